/**
 * shareTargets and preferredOrder (src/lease/shard-share.ts): the targets add up to the shard count,
 * differ by one at most, and keep an even split where it is; each member reaches for its own part
 * of the range first. A seeded random walk of members taking and giving back by the rule ends even.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { preferredOrder, shareTargets, type Member } from "../../src/lease/shard-share.ts";

const targets = (members: Member[], count: number) => Object.fromEntries(shareTargets(members, count));

describe("shareTargets", () => {
  it.each([
    { name: "one member takes all", members: [{ id: "a", held: 0 }], count: 8, want: { a: 8 } },
    { name: "two members: half each, whoever holds what", members: [{ id: "a", held: 8 }, { id: "b", held: 0 }], count: 8, want: { a: 4, b: 4 } },
    { name: "4 over 3: the extra stays with a member holding the most", members: [{ id: "a", held: 2 }, { id: "b", held: 2 }, { id: "c", held: 0 }], count: 4, want: { a: 2, b: 1, c: 1 } },
    { name: "ties go to the lower identity", members: [{ id: "c", held: 0 }, { id: "b", held: 0 }, { id: "a", held: 0 }], count: 4, want: { a: 2, b: 1, c: 1 } },
    { name: "8 over 3, the joiner is short", members: [{ id: "a", held: 4 }, { id: "b", held: 4 }, { id: "c", held: 0 }], count: 8, want: { a: 3, b: 3, c: 2 } },
    { name: "an even split already there is kept", members: [{ id: "a", held: 2 }, { id: "b", held: 3 }, { id: "c", held: 3 }], count: 8, want: { a: 2, b: 3, c: 3 } },
    { name: "more members than shards: some get none", members: [{ id: "a", held: 1 }, { id: "b", held: 0 }, { id: "c", held: 0 }], count: 2, want: { a: 1, b: 1, c: 0 } },
  ])("$name", ({ members, count, want }) => {
    expect(targets(members, count)).toEqual(want);
  });

  it("from any holdings, members giving back above their target and taking free shards below it end with an even split (seeded)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1, max: 6 }), fc.array(fc.nat(), { minLength: 40, maxLength: 40 }), (count, n, picks) => {
        const ids = Array.from({ length: n }, (_, i) => `r${i}`);
        // Each shard starts with a random member (or nobody).
        const holder: (string | undefined)[] = Array.from({ length: count }, (_, i) => (picks[i % picks.length] % (n + 1) === n ? undefined : ids[picks[i % picks.length] % (n + 1)]));
        const view = () => ids.map((id) => ({ id, held: holder.filter((h) => h === id).length }));
        // Members act one at a time, in a random order, each on a fresh view of the Leases.
        for (let step = 0; step < 40 * n; step++) {
          const id = ids[picks[step % picks.length] % n];
          const target = shareTargets(view(), count).get(id)!;
          const mine = holder.flatMap((h, i) => (h === id ? [i] : []));
          if (mine.length > target) for (const i of mine.slice(target)) holder[i] = undefined;
          const free = preferredOrder(holder.flatMap((h, i) => (h === undefined ? [i] : [])), id, ids, count);
          for (const i of free.slice(0, Math.max(0, target - mine.length))) holder[i] = id;
          picks.push(picks.shift()! + step);
        }
        const held = view().map((m) => m.held);
        expect(held.reduce((a, b) => a + b, 0)).toBe(count);
        expect(Math.max(...held) - Math.min(...held)).toBeLessThanOrEqual(1);
      }),
    );
  });
});

describe("preferredOrder", () => {
  it("each member starts at its own part of the range and wraps around", () => {
    const free = [0, 1, 2, 3, 4, 5, 6, 7];
    expect(preferredOrder(free, "a", ["b", "a"], 8)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(preferredOrder(free, "b", ["b", "a"], 8)).toEqual([4, 5, 6, 7, 0, 1, 2, 3]);
    expect(preferredOrder([1, 6], "b", ["a", "b"], 8)).toEqual([6, 1]);
  });
});
