import type { Pod } from "../api/k8s.ts";
import type { Roles } from "../api/statefulset.ts";
import { nameOf } from "../objects/names.ts";

/**
 * Pods' roles (spec.roles): the label the application or its operator writes on each pod
 * (Patroni's spilo-role: master / replica), read again on every pass — leadership may move while
 * Ordinal waits, and nothing of it is remembered between passes.
 *
 * The rules:
 * - A pod's rank is the position of its role in spec.roles.updateOrder: lower ranks are updated
 *   first (update-order.ts sorts by it before any priorityStrategy and the ordinal).
 * - A pod whose role is unknown — no label, or a value updateOrder does not list — ranks with the
 *   first role: it holds no declared role, so nothing is handed over when it restarts, and it is
 *   never kept for last beside the leader. A pod whose label changes is ranked by its new value on
 *   the next pass; a missing replica (not created yet, or deleted for its update) ranks with the
 *   first role too.
 * - Ranks go one after another (rankGate): a pod of rank r starts its update only once every pod of
 *   a lower rank that the rollout moves is at the update revision and available — so the leader
 *   (last in updateOrder) is never updated while a follower of the old revision remains, or while
 *   a follower is still restarting, whatever maxUnavailable allows.
 */

/** roleOf returns the pod's role: the value of the roles' label, undefined when it has none. */
export const roleOf = (pod: Pod, roles: Roles): string | undefined => pod.metadata?.labels?.[roles.labelKey];

/** roleRank returns the pod's rank: its role's index in updateOrder, 0 (the first role's) when its role is unknown. */
export function roleRank(pod: Pod, roles: Roles): number {
  const role = roleOf(pod, roles);
  const i = role === undefined ? -1 : roles.updateOrder.indexOf(role);
  return i < 0 ? 0 : i;
}

/** roleWords returns a pod's name with its role for messages: "web-2 (master)", "web-0 (no role)". */
export function roleWords(pod: Pod, roles: Roles): string {
  const role = roleOf(pod, roles);
  return `${nameOf(pod)} (${role === undefined ? "no role" : roles.updateOrder.includes(role) ? role : `role ${role} not in updateOrder`})`;
}

/** What holds the higher ranks back: the lowest rank whose pods are not all done, and one of those pods in words. */
export interface RankGate {
  /** Pods of a rank above this one do not start this pass. */
  rank: number;
  /** "pod web-0 (replica) is not updated and available yet", or a missing replica. */
  waitingOn: string;
}

/**
 * rankGate returns the lowest rank some pod of the rollout has still to finish, or undefined when
 * none has (or the set declares no roles): `unfinished` are the pods the rollout still moves (the
 * update candidates) and those being moved or not available at the update revision; a missing
 * replica (`missing`, its name) counts at rank 0.
 */
export function rankGate(roles: Roles | undefined, unfinished: readonly Pod[], missing: string | undefined): RankGate | undefined {
  if (!roles) return undefined;
  let gate: RankGate | undefined = missing === undefined ? undefined : { rank: 0, waitingOn: `pod ${missing} is not created yet` };
  for (const pod of unfinished) {
    const rank = roleRank(pod, roles);
    if (!gate || rank < gate.rank) gate = { rank, waitingOn: `pod ${roleWords(pod, roles)} is not updated and available yet` };
  }
  return gate;
}

/**
 * rolesSummary returns the set's pods by role in update order, for `ordinal rollout status` and
 * logs: "spilo-role: replica web-0, web-1 → master web-2" (pods with no listed role first, with the
 * first role's rank).
 */
export function rolesSummary(roles: Roles, pods: readonly Pod[]): string {
  const byRole = new Map<string, string[]>();
  for (const pod of pods) {
    const role = roleOf(pod, roles);
    const key = role !== undefined && roles.updateOrder.includes(role) ? role : "";
    byRole.set(key, [...(byRole.get(key) ?? []), nameOf(pod)]);
  }
  const part = (role: string, label: string) => (byRole.get(role)?.length ? [`${label} ${byRole.get(role)!.join(", ")}`] : []);
  const parts = [...part("", "(no role)"), ...roles.updateOrder.flatMap((r) => part(r, r))];
  return `${roles.labelKey}: ${parts.length ? parts.join(" → ") : "no pods"}`;
}
