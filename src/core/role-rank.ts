import type { Pod } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";

/**
 * The role hook of the update order (update-order.ts): where a pod's role (spec.roles, issue 33)
 * puts it in a rollout, before any priorityStrategy and the ordinal.
 */

/** A pod's rank by its role: lower ranks are updated first. */
export type RoleRank = (pod: Pod) => number;

/**
 * roleRanker returns the rank of each pod's role for `set`, or undefined when the set declares no
 * roles (then the role plays no part in the order). Until spec.roles exists no set declares any.
 */
export function roleRanker(_set: StatefulSet): RoleRank | undefined {
  return undefined;
}
