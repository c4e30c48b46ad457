import type { Pod } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import { roleRank } from "./roles.ts";

/**
 * The role hook of the update order (update-order.ts): where a pod's role (spec.roles, roles.ts)
 * puts it in a rollout, before any priorityStrategy and the ordinal.
 */

/** A pod's rank by its role: lower ranks are updated first. */
export type RoleRank = (pod: Pod) => number;

/**
 * roleRanker returns the rank of each pod's role for `set` (roles.ts: roleRank — its index in
 * spec.roles.updateOrder, an unknown role with the first), or undefined when the set declares no
 * roles (then the role plays no part in the order).
 */
export function roleRanker(set: StatefulSet): RoleRank | undefined {
  const roles = set.spec.roles;
  return roles ? (pod) => roleRank(pod, roles) : undefined;
}
