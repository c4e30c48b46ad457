import type { Pod } from "../api/k8s.ts";
import type { SetView } from "./plan-context.ts";
import { getPodRevision, isTerminating } from "./pod-state.ts";
import type { ReplicaSlots } from "./slots.ts";

/**
 * Which replicas the partition keeps at the current revision, in the set's update order
 * (update-order.ts). Two meanings, one owner:
 *  - plain order (descending ordinal, upstream and Kruise's ordered update): the partition names
 *    ordinals, the replicas at offsets below it keep the current revision, even when made again;
 *  - ranked order (a priorityStrategy or roles: UpdateOrder.ranked), as Kruise's unorderedUpdate:
 *    the partition counts pods. The rollout moves pods in the update order until only
 *    `partition` pods are left at an older revision (the last ones in the order), and a replica
 *    made again takes the current revision while fewer than `partition` others have an older one
 *    (Kruise's isCurrentRevisionNeeded). Which pods stay old follows the order as it is when each
 *    pod is taken: a pod once updated is never moved back when labels change later.
 */

/** Whether the rollout may move the replica at an offset (with its pod) to the update revision. */
export type RolloutTargets = (offset: number, pod: Pod) => boolean;

/**
 * rolloutTargets returns which replicas the rollout may move to `updateRevision` now, given the
 * replicas of this plan: plain order, those at or above the partition; ranked order, the first
 * (pods at an older revision − partition) of those pods in the update order, plus every pod at the
 * update revision (its claims may still grow with the rollout). Terminating pods are not counted
 * as old: each is on its way to being replaced.
 */
export function rolloutTargets(view: SetView, replicas: ReplicaSlots, updateRevision: string): RolloutTargets {
  const { partition } = view.strategy;
  if (!view.order.ranked) return (offset) => offset >= partition;
  const old: Pod[] = [];
  for (const pod of replicas.pods.values()) if (!isTerminating(pod) && getPodRevision(pod) !== updateRevision) old.push(pod);
  const taken = new Set(view.order.sort(old).slice(0, Math.max(0, old.length - partition)));
  return (_offset, pod) => getPodRevision(pod) === updateRevision || taken.has(pod);
}

/**
 * needsCurrentRevision is true when a replica made now at `offset` should have the current
 * revision: plain order, when its offset is below a RollingUpdate partition (Kruise v1.8's
 * isCurrentRevisionNeeded: the partition counts replicas, reserved ordinals are not counted);
 * ranked order, while fewer than `partition` of the other replicas (`others`: the pods that exist
 * and those made earlier this pass) are at an older revision.
 */
export function needsCurrentRevision(view: SetView, offset: number, others: Iterable<readonly [number, Pod]>, updateRevision: string): boolean {
  const { type, partition } = view.strategy;
  if (type !== "RollingUpdate") return false;
  if (!view.order.ranked) return offset < partition;
  if (partition <= 0) return false;
  let old = 0;
  for (const [i, pod] of others) if (i !== offset && getPodRevision(pod) !== updateRevision) old++;
  return old < partition;
}
