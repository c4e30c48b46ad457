import type { Pod } from "../api/k8s.ts";
import type { PriorityStrategy, StatefulSet } from "../api/statefulset.ts";
import { getOrdinal, nameOf } from "../objects/names.ts";
import { compileSelector, type LabelMatcher } from "../validation/labels.ts";
import { roleRanker, type RoleRank } from "./role-rank.ts";

/**
 * The one update order (Kruise's pkg/util/updatesort): which pod a rollout moves first. Every
 * place that picks pods for a rollout — recreate and in-place updates, chosen deletions, claim
 * growth — and every display of the order (`ordinal get`, `rollout status`) sorts with it; none
 * re-implements it. Creation and scale-down keep the ordinal order.
 *
 * The sort key, compared in turn:
 *  1. the pod's role rank (spec.roles, role-rank.ts): lower first;
 *  2. spec.updateStrategy.rollingUpdate.unorderedUpdate.priorityStrategy, with Kruise's meaning:
 *     - weightPriority: a pod's score is the sum of the weights of the terms whose matchSelector
 *       matches its labels; higher scores first;
 *     - orderPriority: a pod's level is the position of the first term whose orderedKey the pod
 *       carries as a label; lower levels first, and within a level the integer that ends the
 *       label's value (`sts-10` → 10; none, or beyond int64: 0) decides, higher first.
 *       Where Ordinal differs from Kruise: a pod that carries none of the keys is updated after
 *       every pod that carries one. That is what Kruise's API documents ("the left pods … put
 *       behind those pods have key1") while its code sorts such a pod first. Ordinal follows the
 *       documentation: a pod without the key is one nobody has ranked yet (a new pod, or one
 *       whose labeller has not run), and moving the unknown first could move a leader first; it
 *       also agrees with weightPriority, where a pod no term matches scores 0 and goes last;
 *  3. the ordinal: higher first (upstream's order, and the tie-break of both forms).
 */

/** How one set's rollout orders its pods; built once per plan (plan-context.ts: setView). */
export interface UpdateOrder {
  /**
   * True when the order is not plain descending ordinal (a priorityStrategy or roles): then the
   * partition counts the pods kept at the current revision, as Kruise's unorderedUpdate does,
   * instead of naming the ordinals below it.
   */
  readonly ranked: boolean;
  /** sort returns `pods` in the order the rollout moves them, first to update first (a new array). */
  sort(pods: Iterable<Pod>): Pod[];
}

/** A pod's place: compared field by field (orderKeys). */
interface OrderKey {
  role: number;
  /** Lower first: the negated weight score, or the orderPriority level. */
  level: number;
  /** Higher first: orderPriority's trailing integer. */
  suffix: bigint;
  ordinal: number;
  name: string;
}

const MAX_INT64 = (1n << 63n) - 1n;

/**
 * trailingInteger returns the integer that ends `value` (Kruise's getIntFromStringSuffix): the
 * longest run of ASCII digits at its end, 0 when there is none or it does not fit an int64.
 */
export function trailingInteger(value: string): bigint {
  let start = value.length;
  while (start > 0 && value.charCodeAt(start - 1) >= 48 && value.charCodeAt(start - 1) <= 57) start--;
  if (start === value.length) return 0n;
  const n = BigInt(value.slice(start));
  return n > MAX_INT64 ? 0n : n;
}

/** priorityKey returns the (level, suffix) of a pod's labels under `priority`, compiled once per order. */
function priorityKey(priority: PriorityStrategy | undefined): (labels: Record<string, string>) => Pick<OrderKey, "level" | "suffix"> {
  const weights = priority?.weightPriority ?? [];
  const orders = priority?.orderPriority ?? [];
  if (weights.length) {
    const terms: [number, LabelMatcher][] = weights.map((t) => [t.weight, compileSelector(t.matchSelector)]);
    return (labels) => {
      let score = 0;
      for (const [weight, matches] of terms) if (matches(labels)) score += weight;
      return { level: -score, suffix: 0n };
    };
  }
  if (orders.length) {
    return (labels) => {
      for (let i = 0; i < orders.length; i++) {
        const value = labels[orders[i].orderedKey];
        if (value !== undefined) return { level: i, suffix: trailingInteger(value) };
      }
      // None of the keys: after every pod that carries one (the documented order, see above).
      return { level: orders.length, suffix: 0n };
    };
  }
  return () => ({ level: 0, suffix: 0n });
}

/** compareKeys orders two keys: role, level, suffix (higher first), ordinal (higher first), name. */
function compareKeys(a: OrderKey, b: OrderKey): number {
  if (a.role !== b.role) return a.role < b.role ? -1 : 1;
  if (a.level !== b.level) return a.level < b.level ? -1 : 1;
  if (a.suffix !== b.suffix) return a.suffix > b.suffix ? -1 : 1;
  if (a.ordinal !== b.ordinal) return b.ordinal - a.ordinal;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * newUpdateOrder returns the update order of `set` with its `priority` strategy (the role ranks
 * come from the set's roles, role-rank.ts). Selectors are compiled here, once.
 */
export function newUpdateOrder(set: StatefulSet, priority: PriorityStrategy | undefined): UpdateOrder {
  const rank: RoleRank | undefined = roleRanker(set);
  const key = priorityKey(priority);
  const ranked = rank !== undefined || !!priority?.weightPriority?.length || !!priority?.orderPriority?.length;
  return {
    ranked,
    sort(pods) {
      const keyed = [...pods].map((pod) => {
        const name = nameOf(pod);
        const k: OrderKey = { role: rank ? rank(pod) : 0, ...key(pod.metadata?.labels ?? {}), ordinal: getOrdinal(name), name };
        return { pod, k };
      });
      keyed.sort((a, b) => compareKeys(a.k, b.k));
      return keyed.map((x) => x.pod);
    },
  };
}
