/**
 * The one owner of "which ordinals belong to the set" (upstream's podInOrdinalRange, Kruise's
 * getStatefulSetReplicasRange). Every phase of the planner, the webhooks and the validators ask
 * here; none re-derives the rule from spec.ordinals.start and spec.replicas.
 *
 * The set's replicas are the first `replicas` ordinals at or above `ordinals.start` that are not
 * reserved (spec.reserveOrdinals, Kruise's meaning: `replicas: 3, reserveOrdinals: [1]` gives
 * NAME-0, NAME-2, NAME-3). A replica's *offset* is its rank among them (0 … replicas−1): the
 * planner's slots (core/slots.ts), the partition (Kruise v1.8: the lowest `partition` replicas
 * that exist keep the current revision, reserved ordinals are not counted) and maxUnavailable all
 * count offsets, so a reserved ordinal is never a slot.
 *
 * Reserved ordinals are kept as sorted, merged spans, never one entry per ordinal: a range
 * "0-2000000000" costs one span, and every question here costs O(log spans).
 */

/** What the range is derived from: a parsed set's spec, or a validator's sanitized copy of one. */
export interface OrdinalSpec {
  replicas: number;
  ordinals?: { start?: number };
  /** Kruise's reserveOrdinals: ordinals (ints) and inclusive ranges ("a-b"). */
  reserveOrdinals?: readonly (number | string)[];
}

/** A set's replicas as ordinals. */
export interface OrdinalRange {
  /** spec.ordinals.start (0 when unset). */
  readonly start: number;
  /** spec.replicas: how many offsets there are. */
  readonly replicas: number;
  /** Reserved ordinals at or above `start`, as disjoint inclusive [lo, hi] spans, lowest first. */
  readonly reserved: readonly (readonly [number, number])[];
  /** reservedBefore[k]: how many ordinals spans 0 … k−1 reserve (prefix sums; length spans+1). */
  readonly reservedBefore: readonly number[];
  /** One past the highest ordinal of a replica (`start` when replicas is 0). */
  readonly end: number;
}

/** RESERVE_RANGE matches a reserveOrdinals string: "a-b", both non-negative integers. */
const RESERVE_RANGE = /^([0-9]+)-([0-9]+)$/;

/**
 * parseReserveOrdinal returns the inclusive span an entry of reserveOrdinals reserves, or
 * undefined when the entry is not a non-negative integer or an "a-b" range with a ≤ b (such an
 * entry reserves nothing: the validators refuse it, and the CRD's pattern keeps most out).
 */
export function parseReserveOrdinal(entry: unknown): [number, number] | undefined {
  if (typeof entry === "number") return Number.isSafeInteger(entry) && entry >= 0 ? [entry, entry] : undefined;
  if (typeof entry !== "string") return undefined;
  const m = RESERVE_RANGE.exec(entry);
  if (!m) return undefined;
  const lo = Number(m[1]);
  const hi = Number(m[2]);
  return Number.isSafeInteger(lo) && Number.isSafeInteger(hi) && lo <= hi ? [lo, hi] : undefined;
}

/** mergeSpans returns the spans sorted and merged (overlapping or adjacent spans become one). */
function mergeSpans(spans: [number, number][]): [number, number][] {
  spans.sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of spans) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/** ordinalRange returns the set's replicas as ordinals (see the file comment). */
export function ordinalRange(spec: OrdinalSpec): OrdinalRange {
  const start = spec.ordinals?.start ?? 0;
  const replicas = Math.max(0, spec.replicas);
  const spans: [number, number][] = [];
  for (const entry of spec.reserveOrdinals ?? []) {
    const s = parseReserveOrdinal(entry);
    // Reserved ordinals below start change nothing: the replicas begin at start.
    if (s && s[1] >= start) spans.push([Math.max(s[0], start), s[1]]);
  }
  const reserved = mergeSpans(spans);
  const reservedBefore = [0];
  for (const [lo, hi] of reserved) reservedBefore.push(reservedBefore[reservedBefore.length - 1] + hi - lo + 1);
  const partial = { start, replicas, reserved, reservedBefore, end: start };
  return { ...partial, end: replicas === 0 ? start : ordinalAt(partial, replicas - 1) + 1 };
}

/** spansBelow returns how many spans lie entirely below `ordinal` (binary search). */
function spansBelow(range: OrdinalRange, ordinal: number): number {
  let lo = 0;
  let hi = range.reserved.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (range.reserved[mid][1] < ordinal) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** isReserved is true when spec.reserveOrdinals reserves the ordinal (at or above start). */
export function isReserved(range: OrdinalRange, ordinal: number): boolean {
  const k = spansBelow(range, ordinal);
  return k < range.reserved.length && range.reserved[k][0] <= ordinal;
}

/**
 * offsetOf returns the replica offset of an ordinal (its rank among the set's ordinals), or
 * undefined when the ordinal is not one of the set's: below start, reserved, or beyond the
 * replicas. This is upstream's podInOrdinalRange with Kruise's reserved ordinals.
 */
export function offsetOf(range: OrdinalRange, ordinal: number): number | undefined {
  if (!Number.isSafeInteger(ordinal) || ordinal < range.start || ordinal >= range.end) return undefined;
  const k = spansBelow(range, ordinal);
  if (k < range.reserved.length && range.reserved[k][0] <= ordinal) return undefined;
  return ordinal - range.start - range.reservedBefore[k];
}

/** inOrdinalRange is true when the ordinal is one of the set's replicas (offsetOf is defined). */
export function inOrdinalRange(range: OrdinalRange, ordinal: number): boolean {
  return offsetOf(range, ordinal) !== undefined;
}

/**
 * ordinalAt returns the ordinal of the replica at `offset` (0 … replicas−1): start + offset,
 * moved past every reserved span at or below it. Span k has lo − start − reservedBefore[k]
 * replicas below it, which grows with k: a binary search finds how many spans to skip.
 */
export function ordinalAt(range: Pick<OrdinalRange, "start" | "reserved" | "reservedBefore">, offset: number): number {
  let lo = 0;
  let hi = range.reserved.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (range.reserved[mid][0] - range.start - range.reservedBefore[mid] <= offset) lo = mid + 1;
    else hi = mid;
  }
  return range.start + offset + range.reservedBefore[lo];
}

/** describeRange returns the range for messages: "[0, 4) without 1" or "[2, 5)". */
export function describeRange(range: OrdinalRange): string {
  const inside = range.reserved.filter(([lo]) => lo < range.end);
  const shown = inside.slice(0, 5).map(([lo, hi]) => (lo === hi ? `${lo}` : `${lo}-${hi}`));
  if (inside.length > shown.length) shown.push(`… (${inside.length - shown.length} more)`);
  return `[${range.start}, ${range.end})${shown.length ? ` without ${shown.join(", ")}` : ""}`;
}
