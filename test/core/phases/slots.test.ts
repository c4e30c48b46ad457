import { describe, expect, it } from "vitest";
import type { Pod } from "../../../src/api/k8s.ts";
import { highestMissing, missingCount, missingOffsets, newSlots, withPods } from "../../../src/core/slots.ts";

const p = (name: string): Pod => ({ metadata: { name } });
const slots = (count: number, offsets: number[]) => newSlots(count, offsets.map((i) => [i, p(`web-${i}`)] as const));

describe("newSlots", () => {
  it("keeps pods in offset order and drops offsets outside 0…count−1", () => {
    const s = slots(3, [2, 0, 5, -1]);
    expect([...s.pods.keys()]).toEqual([0, 2]);
    expect(s.count).toBe(3);
  });
  it("withPods places planned pods over the slots, leaving the input alone", () => {
    const s = slots(3, [1]);
    const w = withPods(s, [[0, p("new-0")], [1, p("new-1")]]);
    expect([...w.pods.entries()].map(([i, x]) => `${i}:${x.metadata?.name}`)).toEqual(["0:new-0", "1:new-1"]);
    expect([...s.pods.keys()]).toEqual([1]);
  });
});

describe("missingOffsets, missingCount, highestMissing", () => {
  it.each([
    ["none exist", 4, [], 10, [0, 1, 2, 3], 4, 3],
    ["gaps between and after", 6, [1, 2, 4], 10, [0, 3, 5], 3, 5],
    ["the limit takes the lowest", 6, [1, 2, 4], 2, [0, 3], 3, 5],
    ["all exist", 3, [0, 1, 2], 10, [], 0, undefined],
    ["the highest exists", 3, [2], 10, [0, 1], 2, 1],
    ["no replicas", 0, [], 10, [], 0, undefined],
  ])("%s", (_, count, offsets, limit, missing, n, highest) => {
    const s = slots(count as number, offsets as number[]);
    expect(missingOffsets(s, limit as number)).toEqual(missing);
    expect(missingCount(s)).toBe(n);
    expect(highestMissing(s)).toBe(highest);
  });
  it("costs the pods that exist and the limit, not count: 2147483647 replicas", () => {
    const s = slots(2147483647, [0, 1, 2147483646]);
    expect(missingOffsets(s, 3)).toEqual([2, 3, 4]);
    expect(missingCount(s)).toBe(2147483644);
    expect(highestMissing(s)).toBe(2147483645);
  });
});
