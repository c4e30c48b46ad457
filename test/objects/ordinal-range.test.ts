/** The ordinal range (src/objects/ordinal-range.ts): tables, and every answer against Kruise's loop on random specs. */
import { describe, expect, it } from "vitest";
import { describeRange, inOrdinalRange, isReserved, offsetOf, ordinalAt, ordinalRange, parseReserveOrdinal, type OrdinalSpec } from "../../src/objects/ordinal-range.ts";

/** Kruise's getStatefulSetReplicasRange and replica indexing, one ordinal at a time (the model). */
function naive(spec: OrdinalSpec): { ordinals: number[]; reserved: Set<number> } {
  const reserved = new Set<number>();
  for (const e of spec.reserveOrdinals ?? []) {
    const s = parseReserveOrdinal(e);
    if (s) for (let i = s[0]; i <= s[1]; i++) reserved.add(i);
  }
  const ordinals: number[] = [];
  for (let o = spec.ordinals?.start ?? 0; ordinals.length < spec.replicas; o++) if (!reserved.has(o)) ordinals.push(o);
  return { ordinals, reserved };
}

describe("parseReserveOrdinal", () => {
  it.each([
    [3, [3, 3]],
    [0, [0, 0]],
    ["2-5", [2, 5]],
    ["5-5", [5, 5]],
    ["5-2", undefined],
    [-1, undefined],
    [1.5, undefined],
    ["3", undefined],
    [" 1-2", undefined],
    ["1-2-3", undefined],
    ["a-b", undefined],
    [null, undefined],
  ])("%j → %j", (entry, want) => expect(parseReserveOrdinal(entry)).toEqual(want));
});

describe("ordinalRange", () => {
  it.each([
    ["replicas only", { replicas: 3 }, [0, 1, 2]],
    ["start", { replicas: 3, ordinals: { start: 5 } }, [5, 6, 7]],
    ["Kruise's README: replicas 3, reserve [1]", { replicas: 3, reserveOrdinals: [1] }, [0, 2, 3]],
    ["Kruise's comment: start 2, replicas 4, reserve [1, 3]", { replicas: 4, ordinals: { start: 2 }, reserveOrdinals: [1, 3] }, [2, 4, 5, 6]],
    ["a range and an int, out of order and overlapping", { replicas: 3, reserveOrdinals: ["2-4", 0, 3] }, [1, 5, 6]],
    ["reserved below start changes nothing", { replicas: 2, ordinals: { start: 10 }, reserveOrdinals: ["0-9"] }, [10, 11]],
    // Issue 34: a range straddling start still reserves its part at or above start.
    ["a range straddling start: start 2, reserve \"1-3\" reserves 2 and 3", { replicas: 3, ordinals: { start: 2 }, reserveOrdinals: ["1-3"] }, [4, 5, 6]],
    ["reserved beyond the replicas changes nothing", { replicas: 2, reserveOrdinals: [100] }, [0, 1]],
    ["no replicas", { replicas: 0, reserveOrdinals: [0] }, []],
  ])("%s", (_, spec, want) => {
    const r = ordinalRange(spec as OrdinalSpec);
    expect(want.map((_, i) => ordinalAt(r, i))).toEqual(want);
    expect(want.map((o) => offsetOf(r, o))).toEqual(want.map((_, i) => i));
    expect(r.end).toBe(want.length ? want[want.length - 1] + 1 : r.start);
  });

  it("a range straddling start (start 2, reserve \"1-3\"): 2 and 3 are reserved, 1 is below start", () => {
    const r = ordinalRange({ replicas: 2, ordinals: { start: 2 }, reserveOrdinals: ["1-3"] });
    expect([1, 2, 3, 4].map((o) => isReserved(r, o))).toEqual([false, true, true, false]);
    expect([1, 2, 3, 4, 5].map((o) => offsetOf(r, o))).toEqual([undefined, undefined, undefined, 0, 1]);
  });

  it("costs the spans, not the ordinals they reserve", () => {
    const r = ordinalRange({ replicas: 2, reserveOrdinals: ["1-2000000000"] });
    expect([ordinalAt(r, 0), ordinalAt(r, 1)]).toEqual([0, 2000000001]);
    expect(r.reserved).toEqual([[1, 2000000000]]);
    expect(inOrdinalRange(r, 5)).toBe(false);
    expect(isReserved(r, 5)).toBe(true);
    expect(describeRange(r)).toBe("[0, 2000000002) without 1-2000000000");
  });

  it("agrees with Kruise's loop on random specs (seeded)", () => {
    const seed = 22;
    let x = seed;
    const rand = (n: number) => {
      x = (x * 1103515245 + 12345) % 2147483648;
      // The high bits: the low bits of this generator repeat with a short period (x % 2 alternates).
      return Math.floor(x / 65536) % n;
    };
    for (let run = 0; run < 500; run++) {
      const start = rand(4);
      const spec: OrdinalSpec = {
        replicas: rand(12),
        ordinals: { start },
        // Entries near start too, so ranges straddling it (start 2, "1-3") come up often (issue 34).
        reserveOrdinals: Array.from({ length: rand(5) }, () => {
          const lo = rand(2) ? rand(20) : Math.max(0, start - 2 + rand(4));
          return rand(2) ? lo : `${lo}-${lo + rand(4)}`;
        }),
      };
      const r = ordinalRange(spec);
      const model = naive(spec);
      const ctx = `seed ${seed} run ${run}: ${JSON.stringify(spec)}`;
      expect(model.ordinals.map((_, i) => ordinalAt(r, i)), ctx).toEqual(model.ordinals);
      expect(r.end, ctx).toBe(model.ordinals.length ? model.ordinals[model.ordinals.length - 1] + 1 : r.start);
      for (let o = 0; o < 40; o++) {
        const i = model.ordinals.indexOf(o);
        expect(offsetOf(r, o), `${ctx} ordinal ${o}`).toBe(i === -1 ? undefined : i);
        if (o >= r.start) expect(isReserved(r, o), `${ctx} ordinal ${o}`).toBe(model.reserved.has(o));
      }
    }
  });
});
