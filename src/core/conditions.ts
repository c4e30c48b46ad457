import type { Condition, StatefulSet, StatefulSetStatus } from "../api/statefulset.ts";
import type { Action } from "./actions.ts";
import {
  DEADLINE_EXCEEDED_REASON,
  INPLACE_BLOCKED_CONDITION,
  LIFECYCLE_HELD_CONDITION,
  PAUSED_CONDITION,
  PROGRESSING_CONDITION,
  RECONCILE_ERROR_CONDITION,
  SWITCHOVER_TIMED_OUT_CONDITION,
  VOLUME_EXPANSION_BLOCKED_CONDITION,
  WAITING_FOR_CLAIM_REASON,
} from "../objects/constants.ts";
import { wholeSeconds } from "./inplace-state.ts";
import { withoutRefusal } from "./create-refusal.ts";
import { claimsBehind } from "./claim-update.ts";
import { isRolloutComplete, type ProgressFacts } from "./rollout-progress.ts";
import { updateStrategyOf } from "./update-strategy.ts";

/**
 * The set's status.conditions, after Deployment's: Progressing (True while a rollout runs or once
 * it is complete — reasons RollingUpdate, Scaling (nothing rolls: isScaling), WaitingForPodDeletion
 * (OnDelete), RolloutComplete; with the pods done and claims that OnPodRollingUpdate grows lagging
 * (claim-update.ts: claimsBehind), RollingUpdate saying how far the claims got, WaitingForClaim
 * naming the claims not Bound yet, or False VolumeExpansionBlocked naming those whose
 * StorageClass refuses — no clock runs over the claims' part (progress-deadline.ts) —,
 * Unknown while paused, False while InPlaceOnly blocks it or, with progressDeadlineSeconds, once the
 * deadline passed without progress — reason ProgressDeadlineExceeded, its lastUpdateTime the last
 * progress —), Paused (present once a
 * set has been paused), InPlaceUpdateBlocked (present once InPlaceOnly refused a pod, naming
 * the JSON pointers), SwitchoverTimedOut (present once a switchover went unanswered past its
 * timeout, naming the pods; Progressing is False with that reason meanwhile), LifecycleHookHeld (present once a lifecycle hook held a pod, naming the pods
 * and what holds them), VolumeExpansionBlocked (present once a claim OnPodRollingUpdate should grow
 * could not be, naming the claims and StorageClasses) and ReconcileError, False once a set that
 * could not be planned is planned. lastTransitionTime moves only when a condition's status changes; events
 * are recorded on transitions, not on every pass.
 */

/** What a WaitingForClaim message says before naming the claims (rollout-state.ts prints what follows). */
export const CLAIMS_WAIT_WORDS = "claims wait to be Bound before they can grow: ";

export interface RolloutFacts {
  paused: boolean;
  /** InPlaceOnly refusals this pass ("pod web-2: patch cannot use in-place update: /spec/…"). */
  blocked: string[];
  /** Switchovers requested and not answered within spec.roles.switchover.timeoutSeconds (switchover.ts: pendingSwitchovers' words). */
  switchoverTimeouts?: string[];
  /** Pods a lifecycle hook holds this pass ("pod web-2 PreparingDelete: label example.io/drain=true"). */
  held?: string[];
  /** Claims OnPodRollingUpdate should grow and cannot ("claim data-web-2: StorageClass \"x\" does not allow volume expansion …"). */
  claimRefusals?: string[];
  /** Claims OnPodRollingUpdate should grow and cannot yet: not Bound ("claim data-web-2 is not Bound (Pending): it grows to 2Gi once it is"). */
  claimWaits?: string[];
  /** The progress deadline's clock and verdict (progress-deadline.ts); absent without a clock. */
  progress?: ProgressFacts;
  /** Appended to the deadline's event: the rollback done, or why none (rollback.ts). */
  rollback?: string;
  /** What holds a rollout under way when it does not go away by waiting (blocker.ts: lasting): said in the Progressing message. */
  blocker?: string;
  /** Whether a pod is a replica that does not exist: a ReplicaFailure naming one that exists, or is not wanted, is removed (create-refusal.ts). */
  refusalMissing?: (pod: string) => boolean;
}

/**
 * rolloutConditions returns the conditions `status` should carry (others than ours are kept, in
 * order) and the events of the transitions from the set's stored conditions.
 */
export function rolloutConditions(set: StatefulSet, status: StatefulSetStatus, facts: RolloutFacts, now: Date): { conditions: Condition[]; events: Action[] } {
  const prev = set.status?.conditions ?? [];
  const events: Action[] = [];
  const id = `${set.metadata.namespace}/${set.metadata.name}`;
  const { type } = updateStrategyOf(set);
  const complete = isRolloutComplete(set, status);
  const progress = progressWords(set, status, complete);
  const scaling = isScaling(set, status, complete);
  // OnPodRollingUpdate: the pods' part done, the claims' may still lag (claim-update.ts).
  const lag = complete ? claimsBehind(set, status.volumeClaims) : undefined;
  const next = new Map<string, Condition>();
  const exceeded = facts.progress?.exceeded;
  const waitingOn = facts.blocker ? `; waiting on: ${facts.blocker}`.slice(0, 1100) : "";
  const timeouts = facts.switchoverTimeouts ?? [];

  if (facts.paused) next.set(PROGRESSING_CONDITION, cond(PROGRESSING_CONDITION, "Unknown", "RolloutPaused", `rollout paused: ${progress}`));
  else if (facts.blocked.length) next.set(PROGRESSING_CONDITION, cond(PROGRESSING_CONDITION, "False", "InPlaceUpdateBlocked", `rollout blocked by podUpdatePolicy InPlaceOnly: ${progress}`));
  else if (timeouts.length && !complete) next.set(PROGRESSING_CONDITION, cond(PROGRESSING_CONDITION, "False", SWITCHOVER_TIMED_OUT_CONDITION, `rollout stopped: ${progress}; ${timeouts.join("; ")}`.slice(0, 2048)));
  else if (lag && facts.claimRefusals?.length)
    next.set(PROGRESSING_CONDITION, cond(PROGRESSING_CONDITION, "False", "VolumeExpansionBlocked", `${progress}, all ready; claims cannot grow: ${facts.claimRefusals.join("; ")}`.slice(0, 2048)));
  else if (lag && facts.claimWaits?.length)
    next.set(PROGRESSING_CONDITION, cond(PROGRESSING_CONDITION, "True", WAITING_FOR_CLAIM_REASON, `${progress}, all ready; ${CLAIMS_WAIT_WORDS}${facts.claimWaits.join("; ")}`.slice(0, 2048)));
  else if (lag) {
    const words = `claims of template ${lag.behind.volumeClaimName}: ${lag.behind.compatibleReadyReplicas} of ${lag.want} pods have theirs at the template's size and mounted`;
    next.set(PROGRESSING_CONDITION, cond(PROGRESSING_CONDITION, "True", "RollingUpdate", `${progress}, all ready; ${words}`));
  } else if (complete) next.set(PROGRESSING_CONDITION, cond(PROGRESSING_CONDITION, "True", "RolloutComplete", `${progress}, all ready`));
  else if (exceeded) next.set(PROGRESSING_CONDITION, cond(PROGRESSING_CONDITION, "False", DEADLINE_EXCEEDED_REASON, `StatefulSet ${id} has timed out progressing: ${exceeded}`));
  else if (type === "OnDelete" && !scaling) next.set(PROGRESSING_CONDITION, cond(PROGRESSING_CONDITION, "True", "WaitingForPodDeletion", `${progress}: OnDelete updates a pod when it is deleted${waitingOn}`));
  else next.set(PROGRESSING_CONDITION, cond(PROGRESSING_CONDITION, "True", scaling ? "Scaling" : "RollingUpdate", `${progress}${waitingOn}`));

  const progressing = next.get(PROGRESSING_CONDITION);
  if (progressing && facts.progress && !complete) progressing.lastUpdateTime = facts.progress.lastUpdateTime;
  const wasProgressing = prev.find((c) => c.type === PROGRESSING_CONDITION);
  if (exceeded && progressing?.reason === DEADLINE_EXCEEDED_REASON && wasProgressing?.reason !== DEADLINE_EXCEEDED_REASON)
    events.push(event("Warning", DEADLINE_EXCEEDED_REASON, `${progressing.message}${facts.rollback ? `; ${facts.rollback}` : ""}`));

  const wasPaused = prev.find((c) => c.type === PAUSED_CONDITION);
  if (facts.paused) {
    next.set(PAUSED_CONDITION, cond(PAUSED_CONDITION, "True", "Paused", `spec.updateStrategy.rollingUpdate.paused is true: no pod is updated (${progress})`));
    if (wasPaused?.status !== "True") events.push(event("Normal", "RolloutPaused", `StatefulSet ${id} rollout paused: ${progress}`));
  } else if (wasPaused) {
    next.set(PAUSED_CONDITION, cond(PAUSED_CONDITION, "False", "Resumed", "spec.updateStrategy.rollingUpdate.paused is false"));
    if (wasPaused.status === "True") events.push(event("Normal", "RolloutResumed", `StatefulSet ${id} rollout resumed: ${progress}`));
  }

  const wasBlocked = prev.find((c) => c.type === INPLACE_BLOCKED_CONDITION);
  if (facts.blocked.length) {
    const message = facts.blocked.join("; ").slice(0, 2048);
    next.set(INPLACE_BLOCKED_CONDITION, cond(INPLACE_BLOCKED_CONDITION, "True", "InPlaceOnly", message));
    if (wasBlocked?.status !== "True" || wasBlocked.message !== message)
      events.push(event("Warning", "InPlaceUpdateBlocked", `StatefulSet ${id} podUpdatePolicy InPlaceOnly leaves ${message}`));
  } else if (wasBlocked) {
    next.set(INPLACE_BLOCKED_CONDITION, cond(INPLACE_BLOCKED_CONDITION, "False", "InPlaceUpdatePossible", "no pod needs a change that cannot be made in place"));
  }

  const wasTimedOut = prev.find((c) => c.type === SWITCHOVER_TIMED_OUT_CONDITION);
  if (timeouts.length) {
    const message = timeouts.join("; ").slice(0, 2048);
    next.set(SWITCHOVER_TIMED_OUT_CONDITION, cond(SWITCHOVER_TIMED_OUT_CONDITION, "True", "NotAnswered", message));
    if (wasTimedOut?.status !== "True" || wasTimedOut.message !== message) events.push(event("Warning", SWITCHOVER_TIMED_OUT_CONDITION, `StatefulSet ${id} rollout stopped: ${message}`));
  } else if (wasTimedOut) {
    next.set(SWITCHOVER_TIMED_OUT_CONDITION, cond(SWITCHOVER_TIMED_OUT_CONDITION, "False", "NoneTimedOut", "no switchover waits past its timeout"));
  }

  const wasHeld = prev.find((c) => c.type === LIFECYCLE_HELD_CONDITION);
  const held = facts.held ?? [];
  if (held.length) {
    const message = `waiting for another controller to remove a lifecycle hook's labels or finalizers: ${held.join("; ")}`.slice(0, 2048);
    next.set(LIFECYCLE_HELD_CONDITION, cond(LIFECYCLE_HELD_CONDITION, "True", "HookHeld", message));
    if (wasHeld?.status !== "True") events.push(event("Normal", "LifecycleHookHeld", `StatefulSet ${id} ${message}`));
  } else if (wasHeld) {
    next.set(LIFECYCLE_HELD_CONDITION, cond(LIFECYCLE_HELD_CONDITION, "False", "NoPodHeld", "no lifecycle hook holds a pod"));
  }

  const wasExpansionBlocked = prev.find((c) => c.type === VOLUME_EXPANSION_BLOCKED_CONDITION);
  const refusals = facts.claimRefusals ?? [];
  if (refusals.length) {
    const message = refusals.join("; ").slice(0, 2048);
    next.set(VOLUME_EXPANSION_BLOCKED_CONDITION, cond(VOLUME_EXPANSION_BLOCKED_CONDITION, "True", "ExpansionNotAllowed", message));
    if (wasExpansionBlocked?.status !== "True" || wasExpansionBlocked.message !== message)
      events.push(event("Warning", "VolumeExpansionBlocked", `StatefulSet ${id} cannot grow claims to their templates: ${message}`));
  } else if (wasExpansionBlocked) {
    next.set(VOLUME_EXPANSION_BLOCKED_CONDITION, cond(VOLUME_EXPANSION_BLOCKED_CONDITION, "False", "ExpansionPossible", "no claim needs an expansion its StorageClass refuses"));
  }

  // A set that is planned again is no longer in error (set-error.ts wrote it True).
  if (prev.some((c) => c.type === RECONCILE_ERROR_CONDITION))
    next.set(RECONCILE_ERROR_CONDITION, cond(RECONCILE_ERROR_CONDITION, "False", "Planned", "the set's spec parses and was planned"));

  const ts = wholeSeconds(now);
  const merged: Condition[] = [];
  // Keys in the schema's order, so an unchanged condition serializes as the stored one does.
  const stamp = (c: Condition): Condition => {
    const old = prev.find((p) => p.type === c.type);
    const lastTransitionTime = old && old.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : ts;
    const stamped: Condition = { type: c.type, status: c.status, lastTransitionTime, reason: c.reason, message: c.message };
    if (c.lastUpdateTime) stamped.lastUpdateTime = c.lastUpdateTime;
    return stamped;
  };
  for (const p of prev) {
    const n = next.get(p.type);
    merged.push(n ? stamp(n) : p);
  }
  for (const [type, c] of next) if (!prev.some((p) => p.type === type)) merged.push(stamp(c));
  return { conditions: facts.refusalMissing ? withoutRefusal(merged, facts.refusalMissing) : merged, events };
}

/**
 * isScaling is true when the set is not complete and nothing rolls: the template is unchanged
 * (current revision = update revision) and either the pods are not spec.replicas yet or every pod
 * is at the update revision. What is left is pods created or removed toward spec.replicas and their
 * readiness — a scale, still so once the last pod of a scale-up exists and is not yet Ready.
 * Pods at another revision with the count right (a rollback replacing them) are a rolling update.
 */
function isScaling(set: StatefulSet, status: StatefulSetStatus, complete: boolean): boolean {
  if (complete || status.currentRevision !== status.updateRevision) return false;
  const replicas = status.replicas ?? 0;
  return replicas !== set.spec.replicas || (status.updatedReplicas ?? 0) >= replicas;
}

/**
 * progressWords returns where the set stands, for the Progressing and Paused messages: a scale
 * ("scaling from 3 to 5 pods at revision …", once every pod exists "scaling to 5 pods at revision
 * …: 4 of 5 ready") or a rollout ("1 of 3 pods at revision …": pods at the update revision).
 */
function progressWords(set: StatefulSet, status: StatefulSetStatus, complete: boolean): string {
  const at = `at revision ${status.updateRevision}`;
  if (!isScaling(set, status, complete)) return `${status.updatedReplicas ?? 0} of ${set.spec.replicas} pods ${at}`;
  const replicas = status.replicas ?? 0;
  if (replicas !== set.spec.replicas) return `scaling from ${replicas} to ${set.spec.replicas} pods ${at}`;
  return `scaling to ${set.spec.replicas} pods ${at}: ${status.readyReplicas ?? 0} of ${set.spec.replicas} ready`;
}

const cond = (type: string, status: Condition["status"], reason: string, message: string): Condition => ({ type, status, reason, message });
const event = (eventType: "Normal" | "Warning", reason: string, message: string): Action => ({ type: "event", eventType, reason, message });
