import type { Pod } from "../api/k8s.ts";
import { isInPlaceUpdating, timeMs } from "./inplace-state.ts";
import type { PlanContext } from "./plan-context.ts";
import type { RolloutTargets } from "./partition.ts";
import { getPodRevision, isRunningAndReady, isTerminating, podReadyCondition } from "./pod-state.ts";

/**
 * Healing a stuck rollout (what upstream leaves to a manual delete, kubernetes#67250, "Forced
 * rollback" in the StatefulSet docs). An OrderedReady set waits for each pod to be Running and
 * Ready; a pod created from a broken template never is, so the rollout stops there for good, and
 * reverting the template does not help: the controller still waits for that pod first.
 *
 * Ordinal replaces such a pod at once when it is safe, that is when all of these hold:
 *  - the set is a RollingUpdate that is not paused, and the partition leaves the pod to the
 *    rollout (partition.ts: at or above it, or with a ranked order among the pods it may take);
 *  - the pod's revision is abandoned: neither the update revision nor the current revision
 *    (the template moved on while the pod was being rolled out);
 *  - the pod is not Ready and was never Ready at that revision (wasNeverReady): it never served,
 *    so nothing it did at that revision can be lost by replacing it;
 *  - it is the first pod OrderedReady would wait for (lowest ordinal not Running and Ready), so
 *    the order is kept: one such pod at a time, and no pod after it is touched first.
 * The pod is then updated as its podUpdatePolicy says (in place when possible, else recreated).
 * A pod whose in-place update never finished (gate False since) is moved on by
 * refreshInPlaceUpdates the same way. Parallel sets need no healing: their rolling update already
 * takes an unavailable pod at no cost.
 */

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
 * isStuckAtAbandonedRevision is true when the replica at `index` may be replaced at once
 * (the conditions above, but for the ordering, which the caller keeps); `targets` says which
 * replicas the partition leaves to the rollout.
 */
export function isStuckAtAbandonedRevision(ctx: PlanContext, pod: Pod, index: number, targets: RolloutTargets): boolean {
  if (!ctx.strategy.rolling || !targets(index, pod)) return false;
  const rev = getPodRevision(pod);
  if (rev === ctx.revisions.updateName || rev === ctx.revisions.currentName) return false;
  return !isTerminating(pod) && !isInPlaceUpdating(pod) && !isRunningAndReady(pod) && wasNeverReady(pod);
}
