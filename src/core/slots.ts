import type { Pod } from "../api/k8s.ts";

/**
 * A set's replicas without a slot per ordinal: the pods that exist (or that this plan creates) by
 * offset (ordinal − start), and how many offsets there are (spec.replicas). Every walk over a set's
 * replicas costs the pods that exist, never spec.replicas: a tenant's `replicas: 2147483647` once
 * made the planner allocate one slot per replica and the process died of a heap OOM (issue 19).
 * Missing offsets are produced on demand, a bounded number at a time (missingOffsets).
 */
export interface ReplicaSlots {
  /** Offsets 0 … count−1 are the set's replicas (spec.replicas). */
  readonly count: number;
  /** The pods of the replicas that exist, by offset, lowest offset first. */
  readonly pods: ReadonlyMap<number, Pod>;
}

/** newSlots returns the slots of `count` replicas holding `pods` (offset, pod); offsets outside 0 … count−1 are dropped, a later pod at an offset wins. */
export function newSlots(count: number, pods: Iterable<readonly [number, Pod]>): ReplicaSlots {
  const sorted = [...pods].filter(([i]) => i >= 0 && i < count).sort((a, b) => a[0] - b[0]);
  return { count, pods: new Map(sorted) };
}

/** withPods returns the slots with `added` placed over them (the pods a phase plans to create). */
export function withPods(slots: ReplicaSlots, added: Iterable<readonly [number, Pod]>): ReplicaSlots {
  return newSlots(slots.count, [...slots.pods, ...added]);
}

/** missingCount returns how many replicas have no pod. */
export function missingCount(slots: ReplicaSlots): number {
  return slots.count - slots.pods.size;
}

/**
 * missingOffsets returns the lowest `limit` offsets that have no pod, lowest first. It walks the
 * pods that exist and the offsets it returns, nothing else, whatever `count` is.
 */
export function missingOffsets(slots: ReplicaSlots, limit: number): number[] {
  const out: number[] = [];
  let next = 0;
  for (const i of slots.pods.keys()) {
    for (; next < i && out.length < limit; next++) out.push(next);
    if (out.length >= limit) return out;
    next = i + 1;
  }
  for (; next < slots.count && out.length < limit; next++) out.push(next);
  return out;
}

/** highestMissing returns the highest offset that has no pod (at most pods + 1 steps), undefined when every replica exists. */
export function highestMissing(slots: ReplicaSlots): number | undefined {
  for (let i = slots.count - 1; i >= 0; i--) if (!slots.pods.has(i)) return i;
  return undefined;
}
