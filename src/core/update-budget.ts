import type { Pod } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import { isInPlaceUpdating } from "./inplace-state.ts";
import { isPreparingDelete } from "./lifecycle.ts";
import { isRunningAndAvailable, isTerminating } from "./pod-state.ts";

/**
 * How many pods a rolling update may take down at once (upstream's MaxUnavailableStatefulSet,
 * Kruise's accounting): podsToUpdate (rolling-update.ts) spends this budget.
 */

/**
 * resolveMaxUnavailable returns spec.updateStrategy.rollingUpdate.maxUnavailable as a pod count:
 * an int as is, a percentage of spec.replicas rounded up (GetScaledValueFromIntOrPercent with
 * roundUp), and never below 1 (upstream: a rollout must be able to make progress). Default 1.
 */
export function resolveMaxUnavailable(set: StatefulSet): number {
  const mu = set.spec.updateStrategy.rollingUpdate?.maxUnavailable;
  let n = 1;
  if (typeof mu === "number") n = mu;
  else if (typeof mu === "string") {
    const m = /^(\d+)%$/.exec(mu);
    // Not a percentage: the whole string as a number (Atoi), else the default.
    n = m ? Math.ceil((Number(m[1]) * set.spec.replicas) / 100) : Number(mu) || 1;
  }
  return Math.max(1, n);
}

/**
 * isUnavailable is true when the pod does not count toward availability: missing from the
 * apiserver, terminating, not running and ready for minReadySeconds, held by an in-place update,
 * or preparing for its deletion (a preDelete lifecycle hook: it is on its way out).
 */
export function isUnavailable(pod: Pod | undefined, minReadySeconds: number, now: Date): boolean {
  return !pod || isTerminating(pod) || !isRunningAndAvailable(pod, minReadySeconds, now) || isInPlaceUpdating(pod) || isPreparingDelete(pod);
}
