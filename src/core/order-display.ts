import type { Pod } from "../api/k8s.ts";
import { nameOf } from "../objects/names.ts";
import { rolloutTargets } from "./partition.ts";
import type { SetView } from "./plan-context.ts";
import { getPodRevision, isTerminating } from "./pod-state.ts";
import { splitReplicas } from "./replicas.ts";

/**
 * The update order as people see it: status.updateOrder (`kubectl get osts -o wide`, `ordinal get
 * -o wide`) and the order line of `ordinal rollout status`. Both come from the plan's one order
 * (update-order.ts) and partition (partition.ts); shown only for a ranked order (priorityStrategy
 * or roles): otherwise it is upstream's descending ordinal, and the status stays as it was.
 */

/** MAX_SHOWN is how many pod names one line shows; the rest are counted ("… +N"). */
const MAX_SHOWN = 16;

/** nameList returns the names joined by `sep`, at most MAX_SHOWN of them, then "… +N". */
function nameList(pods: readonly Pod[], sep: string): string {
  const shown = pods.slice(0, MAX_SHOWN).map(nameOf).join(sep);
  return pods.length > MAX_SHOWN ? `${shown}${sep}… +${pods.length - MAX_SHOWN}` : shown;
}

/**
 * updateOrderStatus returns status.updateOrder: the set's replicas (`pods`, the ones that exist)
 * in the order a rollout moves them, first to last ("web-1,web-2,web-0"), or undefined when the
 * order is not ranked.
 */
export function updateOrderStatus(view: SetView, pods: Iterable<Pod>): string | undefined {
  if (!view.order.ranked) return undefined;
  return nameList(view.order.sort(pods), ",");
}

/**
 * pendingOrder returns the order line of `rollout status` for a ranked order: the replicas not yet
 * at `updateRevision` in the order the rollout takes them, and those the partition keeps at an
 * older revision; undefined when the order is not ranked or no pod is left to update.
 */
export function pendingOrder(view: SetView, pods: readonly Pod[], updateRevision: string): string | undefined {
  if (!view.order.ranked) return undefined;
  const { replicas } = splitReplicas(view.range, pods);
  const targets = rolloutTargets(view, replicas, updateRevision);
  const offsetOf = new Map([...replicas.pods].map(([i, p]) => [p, i]));
  const next: Pod[] = [];
  const kept: Pod[] = [];
  for (const pod of view.order.sort(replicas.pods.values())) {
    if (isTerminating(pod) || getPodRevision(pod) === updateRevision) continue;
    (targets(offsetOf.get(pod)!, pod) ? next : kept).push(pod);
  }
  if (!next.length && !kept.length) return undefined;
  const keptWords = kept.length ? `; kept at their revision by the partition: ${nameList(kept, ", ")}` : "";
  return `update order: ${next.length ? nameList(next, " → ") : "(none)"}${keptWords}`;
}
