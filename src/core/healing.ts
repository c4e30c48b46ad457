import type { Pod } from "../api/k8s.ts";
import { isInPlaceUpdating, timeMs } from "./inplace-state.ts";
import type { SetView } from "./plan-context.ts";
import { rolloutTargets, type RolloutTargets } from "./partition.ts";
import { getPodRevision, isFailed, isRunningAndAvailable, isRunningAndReady, isSucceeded, isTerminating, podReadyCondition } from "./pod-state.ts";
import type { SetRevisions } from "./revisions.ts";
import { missingOffsets, type ReplicaSlots } from "./slots.ts";

/**
 * Healing a stuck rollout (what upstream leaves to a manual delete, kubernetes#67250, "Forced
 * rollback" in the StatefulSet docs). An OrderedReady set waits for each pod to be Running and
 * Ready; a pod created from a broken template never is, so the rollout stops there for good, and
 * reverting the template does not help: the controller still waits for that pod first.
 *
 * Ordinal replaces such a pod at once when it is safe, that is when all of these hold:
 *  - the set is a RollingUpdate that is not paused, and the partition leaves the pod to the
 *    rollout (partition.ts: at or above it, or with a ranked order among the pods it may take);
 *  - the pod's revision is not worth waiting for: either abandoned — neither the update revision
 *    nor the current revision (the template moved on while the pod was being rolled out) —, or the
 *    current revision while a rollout moves away from it (current ≠ update) and no pod of the set
 *    at that revision is Ready or was ever Ready (isRevisionProven): a broken release scaled to 0
 *    before its deadline becomes current with no pods (every one of no pods is updated and Ready,
 *    as upstream counts), and its pods made by a later scale-up are never Ready. A current-revision
 *    pod that only starts slowly while others at its revision are Ready is waited for, as upstream
 *    does;
 *  - the pod is not Ready and was never Ready at that revision (wasNeverReady): it never served,
 *    so nothing it did at that revision can be lost by replacing it;
 *  - it is the first pod OrderedReady would wait for (lowest ordinal not Running and Ready, with
 *    no missing or failed replica before it: podToHeal), so the order is kept: one such pod at a
 *    time, and no pod after it is touched first.
 * The pod is then updated as its podUpdatePolicy says (in place when possible, else recreated),
 * through planPodUpdate as any update: a switchover role is handed away first, lifecycle hooks
 * hold it. Roles' rank gate (roles.ts) is not applied: it orders the moves of pods that serve,
 * and OrderedReady moves no other pod while it waits for this one, so gating it would stall the
 * rollout for good. A pod whose in-place update never finished (gate False since) is moved on by
 * refreshInPlaceUpdates the same way. Parallel sets need no healing: their rolling update already
 * takes an unavailable pod at no cost. The blocker (blocker.ts) names the pod podToHeal returns
 * as Ordinal's own next step, so the progress deadline never counts the time before it is healed.
 */

/** What healing reads of a set: its view (strategy, range, order) and its two revisions' names. */
export interface HealingView extends SetView {
  readonly revisions: Pick<SetRevisions, "currentName" | "updateName">;
}

/** Slack between a pod's start and its first Ready=False report (the kubelet writes both at once). */
const FIRST_REPORT_SLACK_MS = 1000;

/**
 * wasNeverReady is true when the pod has not been Ready since it started: it has no Ready
 * condition, or a Ready condition that is not True and has not changed since the pod started
 * (the kubelet reports Ready=False when it starts a pod; a later transition means it was True in
 * between). Times are whole seconds, hence a second of slack.
 */
export function wasNeverReady(pod: Pod): boolean {
  const ready = podReadyCondition(pod);
  if (!ready) return true;
  if (ready.status === "True") return false;
  const since = timeMs(ready.lastTransitionTime);
  const started = timeMs(pod.status?.startTime ?? pod.metadata?.creationTimestamp);
  if (Number.isNaN(since)) return true;
  // With no start time `started` is NaN and the comparison false: the pod reads as once Ready.
  return since <= started + FIRST_REPORT_SLACK_MS;
}

/**
 * isRevisionProven is true when some pod at `revision` among `pods` is Ready or was Ready since it
 * started (wasNeverReady false): the cluster has seen that revision work.
 */
export function isRevisionProven(revision: string, pods: Iterable<Pod>): boolean {
  for (const p of pods) if (getPodRevision(p) === revision && !wasNeverReady(p)) return true;
  return false;
}

/**
 * isHealable is true when the replica at `index` may be replaced at once (the conditions above,
 * but for the ordering, which podToHeal keeps); `targets` says which replicas the partition leaves
 * to the rollout, `currentProven` whether the current revision was seen working (isRevisionProven).
 */
export function isHealable(view: HealingView, pod: Pod, index: number, targets: RolloutTargets, currentProven: boolean): boolean {
  const { currentName, updateName } = view.revisions;
  if (!view.strategy.rolling || !targets(index, pod)) return false;
  const rev = getPodRevision(pod);
  if (rev === updateName || (rev === currentName && (currentName === updateName || currentProven))) return false;
  return !isTerminating(pod) && !isInPlaceUpdating(pod) && !isRunningAndReady(pod) && wasNeverReady(pod);
}

/**
 * podToHeal returns the pod healing replaces now, or undefined: with OrderedReady, the replica
 * planReplicas halts at — the lowest offset whose pod is terminating or not Running, Ready and
 * available, with no missing replica before it (created first) and not failed (recreated first) —
 * when isHealable says so. `pods` are the set's pods (replicas and condemned), the evidence that
 * the current revision works.
 */
export function podToHeal(view: HealingView, replicas: ReplicaSlots, pods: Iterable<Pod>, now: Date): Pod | undefined {
  if (view.set.spec.podManagementPolicy === "Parallel" || !view.strategy.rolling) return undefined;
  const missing = missingOffsets(replicas, 1)[0] ?? Infinity;
  for (const [i, pod] of replicas.pods) {
    if (i > missing || isFailed(pod) || isSucceeded(pod)) return undefined;
    if (!isTerminating(pod) && isRunningAndReady(pod) && isRunningAndAvailable(pod, view.set.spec.minReadySeconds, now)) continue;
    const targets = rolloutTargets(view, replicas, view.revisions.updateName);
    return isHealable(view, pod, i, targets, isRevisionProven(view.revisions.currentName, pods)) ? pod : undefined;
  }
  return undefined;
}
