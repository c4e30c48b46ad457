import type { Pod } from "../api/k8s.ts";
import { isInPlaceUpdating } from "./inplace-state.ts";
import { isPreparingDelete } from "./lifecycle.ts";
import { isRunningAndAvailable, isTerminating } from "./pod-state.ts";

/**
 * How many pods a rolling update may take down at once (upstream's MaxUnavailableStatefulSet,
 * Kruise's accounting): podsToUpdate (rolling-update.ts) spends this budget
 * (UpdateStrategy.maxUnavailable, update-strategy.ts).
 */

/**
 * isUnavailable is true when the pod does not count toward availability: missing from the
 * apiserver, terminating, not running and ready for minReadySeconds, held by an in-place update,
 * or preparing for its deletion (a preDelete lifecycle hook: it is on its way out).
 */
export function isUnavailable(pod: Pod | undefined, minReadySeconds: number, now: Date): boolean {
  return !pod || isTerminating(pod) || !isRunningAndAvailable(pod, minReadySeconds, now) || isInPlaceUpdating(pod) || isPreparingDelete(pod);
}
