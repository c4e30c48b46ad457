import type { Pod } from "../api/k8s.ts";
import type { Action } from "./actions.ts";
import { getOrdinal, nameOf } from "../objects/names.ts";
import { adjustCounts, deletePodAction, type PhaseResult, type PlanContext } from "./plan-context.ts";
import { isFailed, isRunningAndAvailable, isRunningAndReady, isTerminating } from "./pod-state.ts";
import { fixClaimOwners } from "./replica-fixes.ts";
import { isPreparingDelete, preDeleteStep } from "./lifecycle.ts";
import { switchoverStep } from "./switchover.ts";
import { earlierMs } from "./requeue.ts";
import type { ReplicaCounts } from "./status.ts";

/**
 * planScaleDown is upstream's condemned loop: delete condemned pods highest ordinal first. A
 * terminating pod is waited for; OrderedReady deletes one pod per pass and only a Running, Ready
 * and available pod, the first unhealthy pod of the set (so a broken pod cannot block the
 * scale-down that would remove it), or a Failed pod (not as upstream, which waits on a second
 * broken pod for ever: phase Failed is terminal and such a pod serves nothing, so deleting it
 * takes nothing away; reserved ordinals below the replicas made two of them likely), or a pod
 * preparing for its deletion (a preDelete hook's markPodNotReady made it not ready: waiting for it
 * to be Ready again would wait for ever). Claims of a deleted pod get their owners per the
 * retention policy first; a pod holding a switchover role is handed away first (switchover.ts),
 * and the preDelete lifecycle hook may hold a pod (lifecycle.ts).
 * `condemned` is lowest ordinal first (splitReplicas).
 */
export function planScaleDown(ctx: PlanContext, condemned: readonly Pod[], firstUnhealthy: Pod | undefined, counts: ReplicaCounts): PhaseResult {
  const { set, now, monotonic } = ctx;
  const actions: Action[] = [];
  let c = counts;
  let waiting = false;
  const held: string[] = [];
  let requeueAfterMs: number | undefined;
  const result = (halt: boolean): PhaseResult => (requeueAfterMs === undefined ? { actions, counts: c, waiting, halt, held } : { actions, counts: c, waiting, halt, held, requeueAfterMs });
  for (let t = condemned.length - 1; t >= 0; t--) {
    const pod = condemned[t];
    if (isTerminating(pod)) {
      waiting = true;
      if (monotonic) return result(true);
      continue;
    }
    // Not waited on to be Ready: the first unhealthy pod, a Failed one, and one this deletion made not ready (markPodNotReady).
    if (monotonic && pod !== firstUnhealthy && !isFailed(pod) && !isPreparingDelete(pod) && (!isRunningAndReady(pod) || !isRunningAndAvailable(pod, set.spec.minReadySeconds, now))) {
      waiting = true;
      return result(true);
    }
    actions.push(...fixClaimOwners(ctx, pod, getOrdinal(nameOf(pod))));
    waiting = true;
    // The switchover first (switchover.ts): OrderedReady waits on the pod as on a terminating one.
    const handover = switchoverStep(set, pod, now);
    if (!handover.go) {
      actions.push(...handover.actions);
      requeueAfterMs = earlierMs(requeueAfterMs, handover.requeueAfterMs);
      if (monotonic) return result(true);
      continue;
    }
    // Then the preDelete hook (lifecycle.ts): a pod it moves or holds is not deleted yet, and
    // OrderedReady waits on it as on a terminating pod.
    const hook = preDeleteStep(set, pod, now);
    if (!hook.go) {
      actions.push(...hook.actions);
      if (hook.held) held.push(hook.held);
      if (monotonic) return result(true);
      continue;
    }
    actions.push(deletePodAction(pod, "scaleDown", !!set.spec.roles));
    c = adjustCounts(c, ctx, pod, -1);
    if (monotonic) return result(true);
  }
  return result(false);
}
