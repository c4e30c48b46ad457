import type { Pod } from "../api/k8s.ts";
import type { StatefulSet, VolumeClaimStatus } from "../api/statefulset.ts";
import { DEADLINE_EXCEEDED_REASON, PROGRESSING_CONDITION } from "../objects/constants.ts";
import { rolloutBlocker, type Blocker } from "./blocker.ts";
import { isInPlaceUpdating, timeMs, wholeSeconds } from "./inplace-state.ts";
import { awaitsOnlyGate } from "./inplace-update.ts";
import { isHeldByHook } from "./lifecycle.ts";
import { getPodRevision, isRunningAndReady, isTerminating, podReadyCondition } from "./pod-state.ts";
import { splitReplicas } from "./replicas.ts";
import type { ReplicaCounts } from "./status.ts";
import { isRolloutComplete, type ProgressFacts } from "./rollout-progress.ts";
import type { SetView } from "./plan-context.ts";
import type { ReplicaSlots } from "./slots.ts";

/**
 * The progress deadline (Deployment's spec.progressDeadlineSeconds, for a StatefulSet): a rollout
 * that goes that long without progress is reported as Progressing=False, reason
 * ProgressDeadlineExceeded, naming what holds it (blocker.ts; rollback.ts may then roll it back).
 * All of it is read from the cluster: the clock is the Progressing condition's lastUpdateTime,
 * which moves to `now` when a rollout starts (a new update revision, a resume, a rollout after a
 * completed one) and whenever the pass sees progress (progressSeen).
 *
 * Safety first when Ordinal is late (a lost wake, a delayed alarm, a restart): the deadline is
 * judged only after the pass has counted what the cluster already shows, and time spent waiting
 * for Ordinal itself never counts against the rollout:
 *  - progress is what the cluster shows, not only what the last status said: a pod whose in-place
 *    update is done on the node (only Ordinal's own gate is missing) counts as updated and Ready, a
 *    pod at the update revision Ready since the last progress counts, a claim grown counts;
 *  - when the next step is Ordinal's own (blocker.ts: kind "ordinal" — a pod to create, an
 *    in-place step to take, the next pod to update) nothing is judged and the clock starts afresh:
 *    the pass that takes the step sees it first, so a pod created, patched or deleted late still
 *    gets its whole deadline;
 *  - a pod's time starts no earlier than when Ordinal acted on it (its creation at the update
 *    revision, its in-place update, its deletion): the pass that restarted the clock may have died
 *    before it wrote the status;
 *  - a refused create is judged only once it was refused again at or after the deadline (the
 *    pass that finds an old refusal tries again first).
 * A scale-down whose kept replicas are done has no clock (onlyCondemnedLeft). A paused rollout has
 * no clock (resuming starts a fresh one), as a paused Deployment's. Neither has one while a
 * lifecycle hook holds a pod (lifecycle.ts: isHeldByHook): the rollout then waits on another
 * controller (a drain, a registry), which says nothing about the new revision, and a rollback would
 * only undo a release that may be sound; the first pass after the hold starts a fresh clock (the
 * Progressing condition written meanwhile has no lastUpdateTime). Kruise's CloneSet lets its clock
 * run (it only reports; it has no rollback).
 */

/** What the pass knows besides the pods: what holds the rollout (computed here when absent) and status.volumeClaims as this pass counts them. */
export interface ProgressContext {
  blocker?: Blocker;
  volumeClaims?: readonly VolumeClaimStatus[];
  /** The set's replicas by offset, as the plan split them once (replicas.ts: splitReplicas); split here when absent. */
  replicas?: ReplicaSlots;
}

/** Progressing reasons of a rollout under way: its clock carries over from one pass to the next. */
const RUNNING_REASONS = new Set(["RollingUpdate", "Scaling", "WaitingForPodDeletion", DEADLINE_EXCEEDED_REASON]);

/**
 * checkProgress returns the deadline's facts for the set at `now`, or undefined when there is no
 * clock: no progressDeadlineSeconds, the rollout is paused or complete, a lifecycle hook holds a
 * pod, the set is being deleted.
 * `observed` are the counts before this pass's writes; `pods` the set's pods.
 */
export function checkProgress(view: SetView, observed: ReplicaCounts, updateRevision: string, pods: readonly Pod[], now: Date, more: ProgressContext = {}): ProgressFacts | undefined {
  const { set } = view;
  const seconds = set.spec.progressDeadlineSeconds;
  if (!seconds || set.metadata.deletionTimestamp != null) return undefined;
  if (view.strategy.paused) return undefined;
  const replicas = more.replicas ?? splitReplicas(view.range, pods).replicas;
  if (isRolloutComplete(set, observed) || onlyCondemnedLeft(set, replicas, pods, updateRevision)) return undefined;
  const prev = set.status?.conditions?.find((c) => c.type === PROGRESSING_CONDITION);
  const running = prev?.reason !== undefined && RUNNING_REASONS.has(prev.reason) && set.status?.updateRevision === updateRevision;
  const wasExceeded = running && prev?.reason === DEADLINE_EXCEEDED_REASON;
  const blocker = more.blocker ?? rolloutBlocker(view, pods, updateRevision, now, { replicas });
  const exceeded = () => `no pod newly updated and Ready for ${seconds}s: ${blocker.words}`;
  // A hold stops the clock, but does not clear a deadline already exceeded at this revision.
  if (pods.some((p) => isHeldByHook(set, p))) return wasExceeded ? { lastUpdateTime: prev?.lastUpdateTime ?? wholeSeconds(now), exceeded: exceeded() } : undefined;
  const since = running ? timeMs(prev?.lastUpdateTime) : NaN;
  if (Number.isNaN(since) || progressSeen(set, observed, updateRevision, pods, since, more.volumeClaims)) return { lastUpdateTime: wholeSeconds(now), requeueAfterMs: seconds * 1000 };
  const lastUpdateTime = prev?.lastUpdateTime ?? wholeSeconds(now);
  // A pod's time starts no earlier than Ordinal's step on it (the status that restarted the clock may be lost).
  const acted = blocker.sinceMs ?? NaN;
  const due = (Number.isNaN(acted) ? since : Math.max(since, acted)) + seconds * 1000;
  // Exceeded stays exceeded, but for a pod Ordinal acted on since (replaced, healed, updated): it
  // gets its own deadline before the rollout is judged again (and maybe rolled back for it).
  if (wasExceeded) return acted > since && now.getTime() < due ? { lastUpdateTime, requeueAfterMs: due - now.getTime() } : { lastUpdateTime, exceeded: exceeded() };
  // Waiting for Ordinal's own step: that time never counts, the clock starts afresh (the pass that
  // takes the step sees it first, so a pod created, patched or deleted late gets its whole deadline).
  if (blocker.kind === "ordinal") return { lastUpdateTime: wholeSeconds(now), requeueAfterMs: seconds * 1000 };
  if (now.getTime() < due) return { lastUpdateTime, requeueAfterMs: due - now.getTime() };
  // A create refused before the deadline, not tried since: this pass tries again before judging.
  if (blocker.kind === "refused" && !((blocker.lastRefusedMs ?? 0) >= due)) return { lastUpdateTime, requeueAfterMs: seconds * 1000 };
  return { lastUpdateTime, exceeded: exceeded() };
}

/**
 * progressSeen is true when the cluster shows progress since the last look (the stored status
 * and `sinceMs`, the last progress): more pods updated and Ready than the status says — counting
 * a pod whose in-place update is done on the node and waits only for Ordinal's gate (awaitsOnlyGate)
 * —, a pod at the update revision Ready since the last progress, the pods moved toward
 * spec.replicas (a scale), or a claim grown (status.volumeClaims: more claims at the template's
 * size, or done resizing).
 */
function progressSeen(set: StatefulSet, observed: ReplicaCounts, updateRevision: string, pods: readonly Pod[], sinceMs: number, volumeClaims: readonly VolumeClaimStatus[] | undefined): boolean {
  const stored = set.status;
  const atUpdate = pods.filter((p) => getPodRevision(p) === updateRevision && !isTerminating(p));
  const finishing = atUpdate.filter(awaitsOnlyGate).length;
  if (observed.updatedReadyReplicas + finishing > (stored?.updatedReadyReplicas ?? 0)) return true;
  const storedReplicas = stored?.replicas ?? observed.replicas;
  if (Math.abs(observed.replicas - set.spec.replicas) < Math.abs(storedReplicas - set.spec.replicas)) return true;
  if (atUpdate.some((p) => !isInPlaceUpdating(p) && isRunningAndReady(p) && timeMs(podReadyCondition(p)?.lastTransitionTime) >= sinceMs)) return true;
  return (volumeClaims ?? []).some((v) => {
    const before = stored?.volumeClaims?.find((b) => b.volumeClaimName === v.volumeClaimName);
    return !!before && (v.compatibleReplicas > before.compatibleReplicas || v.compatibleReadyReplicas > before.compatibleReadyReplicas);
  });
}

/**
 * onlyCondemnedLeft is true when the set's own replicas (its ordinals: ordinals.start,
 * reserveOrdinals) make a complete rollout and what remains is pods beyond them going away: a
 * scale-down waits on the kubelet's grace periods, which no controller speeds up (a Deployment's
 * terminating pods do not count against its deadline either).
 */
function onlyCondemnedLeft(set: StatefulSet, replicas: ReplicaSlots, pods: readonly Pod[], updateRevision: string): boolean {
  const kept = [...replicas.pods.values()].filter((p) => !isTerminating(p));
  if (kept.length === pods.length) return false;
  return isRolloutComplete(set, {
    replicas: kept.length,
    readyReplicas: kept.filter(isRunningAndReady).length,
    updatedReplicas: kept.filter((p) => getPodRevision(p) === updateRevision).length,
  });
}
