/**
 * Where a set's rollout stands, read from its status and its pods: what `ordinal rollout status`
 * prints and waits for, and what the embedded simulation (src/node/simulation.ts) watches. Pure.
 */
import type { Pod } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import { nameOf } from "../objects/names.ts";
import { LIFECYCLE_HELD_CONDITION, PROGRESSING_CONDITION, SWITCHOVER_TIMED_OUT_CONDITION, WAITING_FOR_CLAIM_REASON } from "../objects/constants.ts";
import { claimsBehind } from "./claim-update.ts";
import { CLAIMS_WAIT_WORDS } from "./conditions.ts";
import { failingContainer, getPodRevision, isTerminating } from "./pod-state.ts";
import { failedRevisions } from "./rollback.ts";
import { rolloutBlocker } from "./blocker.ts";
import { updateStrategyOf } from "./update-strategy.ts";
import { setView } from "./plan-context.ts";
import { rolesSummary } from "./roles.ts";
import { pendingSwitchovers } from "./switchover.ts";
import { pendingOrder } from "./order-display.ts";

/** Set conditions (issue 9's and earlier names) that mean the rollout cannot progress on its own. */
const STUCK_CONDITIONS = new Set(["RolloutStuck", "InPlaceUpdateBlocked", "VolumeExpansionBlocked", SWITCHOVER_TIMED_OUT_CONDITION]);

export interface RolloutState {
  /** true: the rollout is complete (exit 0). */
  done: boolean;
  /** The line to print (kubectl's wording where kubectl has one). */
  message: string;
  /** Set when it cannot finish without a change: paused, stuck, a pod failing. */
  blocked?: "paused" | "stuck" | "failing";
  /**
   * With a ranked update order (priorityStrategy or roles) and pods left to update: the order the
   * rollout takes them in, and those the partition keeps (order-display.ts: pendingOrder).
   */
  order?: string;
}

/**
 * rolloutState returns where the set's rollout stands, after kubectl's statefulSetStatusViewer:
 * the spec must be observed (observedGeneration), all replicas ready, the partition's pods
 * updated, then current revision = update revision. Ordinal adds: a paused rollout, a stuck
 * condition, pods at the update revision whose containers fail (bad image, crash loop), and pods
 * still terminating (after a scale-down: status.replicas above spec.replicas, or a pod deleting),
 * and pods a lifecycle hook holds (condition LifecycleHookHeld: waiting, not stuck); under
 * OnPodRollingUpdate, claims behind their templates (naming those not Bound yet: waiting, not stuck).
 * What a rollout waits on is named by the one rule the Progressing condition and the deadline's
 * event use (blocker.ts): a create the apiserver refused fails the rollout as a failing pod does
 * (after `--stuck-after`); pods not ready name the first and why. `now` judges minReadySeconds.
 */
export function rolloutState(set: StatefulSet, pods: Pod[], now: Date): RolloutState {
  const state = rolloutStep(set, pods, now);
  if (state.done || !set.status?.updateRevision) return state;
  const order = pendingOrder(setView(set), pods, set.status.updateRevision);
  return order ? { ...state, order } : state;
}

/** rolloutStep is rolloutState without the order line. */
function rolloutStep(set: StatefulSet, pods: Pod[], now: Date): RolloutState {
  const s = set.status;
  const strategy = updateStrategyOf(set);
  if (strategy.type !== "RollingUpdate") {
    return { done: true, message: `rollout status is only available for RollingUpdate strategy type (${set.metadata.name} is ${strategy.type})` };
  }
  if (!s || !s.observedGeneration || (set.metadata.generation ?? 0) > s.observedGeneration) {
    return { done: false, message: "Waiting for statefulset spec update to be observed..." };
  }
  for (const c of s.conditions ?? []) {
    const stuck = (STUCK_CONDITIONS.has(c.type) && c.status === "True") || (c.type === "Progressing" && c.status === "False" && c.reason !== "Paused");
    if (stuck) return { done: false, blocked: "stuck", message: `rollout of ${set.metadata.name} is stuck: ${c.type} ${c.reason ?? ""}${c.message ? `: ${c.message}` : ""}`.trim() };
  }
  const held = s.conditions?.find((c) => c.type === LIFECYCLE_HELD_CONDITION && c.status === "True");
  if (held) return { done: false, message: `rollout of ${set.metadata.name} waits on a lifecycle hook: ${held.message ?? ""}`.trim() };
  const updateRevision = s.updateRevision;
  const blocker = rolloutBlocker(setView(set), pods, updateRevision ?? "", now);
  if (blocker.kind === "refused") return { done: false, blocked: "failing", message: blocker.words };
  for (const p of pods) {
    if (updateRevision && getPodRevision(p) !== updateRevision) continue;
    const failing = failingContainer(p);
    if (failing) return { done: false, blocked: "failing", message: `pod ${nameOf(p)} ${failing}` };
  }
  const replicas = set.spec.replicas;
  const ready = s.readyReplicas ?? 0;
  const { paused, partition } = strategy;
  const pausedState = (): RolloutState => ({
    done: false,
    blocked: "paused",
    message: `rollout of ${set.metadata.name} is paused (spec.updateStrategy.rollingUpdate.paused); resume it with: ordinal rollout resume ${set.metadata.name}${set.metadata.namespace ? ` -n ${set.metadata.namespace}` : ""}`,
  });
  const why = blocker.pod ? ` (${blocker.words})` : "";
  if (ready < replicas) return paused && s.updateRevision !== s.currentRevision ? pausedState() : { done: false, message: `Waiting for ${replicas - ready} pods to be ready${why}...` };
  // A scale-down is not complete while a condemned pod still terminates (nor is any change).
  const terminating = Math.max(pods.filter(isTerminating).length, (s.replicas ?? 0) - replicas);
  if (terminating > 0) return { done: false, message: `Waiting for ${terminating} pods to terminate...` };
  // OnPodRollingUpdate: the claims are part of the rollout (status.volumeClaims, claim-update.ts).
  const lag = claimsBehind(set, s.volumeClaims);
  if (lag) {
    if (paused) return pausedState();
    // Progressing WaitingForClaim names the claims that are not Bound yet (conditions.ts).
    const waiting = s.conditions?.find((c) => c.type === PROGRESSING_CONDITION && c.reason === WAITING_FOR_CLAIM_REASON)?.message?.split(CLAIMS_WAIT_WORDS)[1];
    const why = waiting ? ` (${CLAIMS_WAIT_WORDS}${waiting})` : "";
    return { done: false, message: `Waiting for claims of template ${lag.behind.volumeClaimName}: ${lag.behind.compatibleReadyReplicas} out of ${lag.want} pods have theirs at the template's size and mounted${why}...` };
  }
  if (partition > 0) {
    const want = replicas - partition;
    if ((s.updatedReplicas ?? 0) < want) {
      return paused ? pausedState() : { done: false, message: `Waiting for partitioned roll out to finish: ${s.updatedReplicas ?? 0} out of ${want} new pods have been updated...` };
    }
    return { done: true, message: `partitioned roll out complete: ${s.updatedReplicas ?? 0} new pods have been updated...` };
  }
  if (s.updateRevision !== s.currentRevision) {
    return paused ? pausedState() : { done: false, message: `waiting for statefulset rolling update to complete ${s.updatedReplicas ?? 0} pods at revision ${s.updateRevision}...` };
  }
  return { done: true, message: `statefulset rolling update complete ${s.currentReplicas ?? 0} pods at revision ${s.currentRevision}...` };
}

/**
 * rolesLine returns, for a set with spec.roles, its pods by role in update order and the switchover
 * waited on, if any ("roles spilo-role: replica web-0, web-1 → master web-2; switchover: pod web-2
 * holds role master: …"); undefined without roles. `rollout status` prints it when it changes.
 */
export function rolesLine(set: StatefulSet, pods: readonly Pod[], now: Date): string | undefined {
  const roles = set.spec.roles;
  if (!roles) return undefined;
  const waiting = pendingSwitchovers(set, pods, now).map((p) => p.words);
  return `roles ${rolesSummary(roles, pods)}${waiting.length ? `; switchover: ${waiting.join("; ")}` : ""}`;
}

/**
 * followedRevision returns the update revision a follower of the rollout (`rollout status`) waits
 * for after this read of the set, `before` being the one it waited for until now and
 * `failedAtStart` the revisions rolled back from (ordinal.dev/failed-revisions) at its first read
 * (default: this read's, i.e. this is the first). It takes up the status's update revision only
 * from a status that observed the set's generation — before that it is an older spec's, the one
 * the user's change replaces (kubectl waits for observedGeneration too) — and never one Ordinal
 * rolled back from, with two exceptions: a follower that knew none yet and finds the rollback's
 * template written but not yet observed (generation ahead of observedGeneration, the update
 * revision the last one rolled back from) takes up that revision, and one that knew none yet and
 * finds a revision rolled back from since it started (it slept through the rollout and its
 * rollback) takes up that one. It keeps a revision rolled back from while it waited for it, so
 * rolledBackFrom can tell.
 */
export function followedRevision(set: StatefulSet, before: string | undefined, failedAtStart: readonly string[] = failedRevisions(set)): string | undefined {
  const update = set.status?.updateRevision;
  const failed = failedRevisions(set);
  if (before !== undefined && failed.includes(before)) return before;
  const since = before === undefined ? failed.filter((r) => !failedAtStart.includes(r)).at(-1) : undefined;
  if (since) return since;
  if (!update) return before;
  const unobserved = (set.metadata.generation ?? 0) > (set.status?.observedGeneration ?? 0);
  if (!unobserved) return failed.includes(update) ? before : update;
  return before === undefined && failed.at(-1) === update ? update : before;
}

/** An automatic rollback a follower saw: the revision it waited for, and the one the set went back to. */
export interface RollbackSeen {
  from: string;
  to: string;
}

/**
 * rolledBackFrom returns the automatic rollback (progressDeadlineSeconds with rollbackOnFailure)
 * that abandoned `followed`, the revision a follower waited for (followedRevision), or undefined
 * when it was not rolled back. `to` is the status's update revision once the rollback's template
 * is observed, before that its current revision (the one rollback.ts writes back).
 */
export function rolledBackFrom(set: StatefulSet, followed: string | undefined): RollbackSeen | undefined {
  if (!followed || !failedRevisions(set).includes(followed)) return undefined;
  const s = set.status;
  const to = s?.updateRevision && s.updateRevision !== followed ? s.updateRevision : s?.currentRevision;
  return { from: followed, to: to ?? "unknown" };
}
