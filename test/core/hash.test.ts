/**
 * Revision hashing: the names it gives are stored in every set's ControllerRevisions and pods'
 * controller-revision-hash, so they must never change between versions (a new name is a new
 * revision: every pod of every set would be rolled). The expected names below were computed
 * independently (FNV-1a and rand.SafeEncodeString re-implemented in Python).
 */
import { describe, expect, it } from "vitest";
import { canonicalJson, fnv32a, hashRevisionData, sortKeys } from "../../src/core/hash.ts";

describe("fnv32a", () => {
  it.each<[string, number]>([
    ["", 0x811c9dc5],
    ["a", 0xe40c292c],
    ["Hello world", 1498229191],
    ["héllo", 1252296000],
  ])("FNV-1a of %j over its UTF-8 bytes", (s, want) => {
    expect(fnv32a(s)).toBe(want);
  });
});

describe("canonicalJson and sortKeys", () => {
  it("sorts keys at every level, keeps array order, drops undefined values", () => {
    expect(canonicalJson({ b: [{ z: 1, a: 2 }, 3], a: { d: undefined, c: null } })).toBe('{"a":{"c":null},"b":[{"a":2,"z":1},3]}');
    expect(sortKeys({ b: 1, a: undefined, c: [undefined] })).toStrictEqual({ b: 1, c: [undefined] });
    expect(Object.keys(sortKeys({ b: 1, a: { y: 1, x: 2 } }) as object)).toEqual(["a", "b"]);
  });
});

describe("hashRevisionData", () => {
  const data = { spec: { template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "img:1" }] } } } };
  it.each<[number, string]>([
    [0, "6fd688f7c9"],
    [1, "776f67dbfd"],
    [2, "77568b54cf"],
    [10, "867c4d7c9d"],
  ])("collisionCount %i names the revision %s", (collisionCount, want) => {
    expect(hashRevisionData(data, collisionCount)).toBe(want);
  });

  it("equal data hashes equally whatever its key order", () => {
    const reordered = { spec: { template: { spec: { containers: [{ image: "img:1", name: "c" }] }, metadata: { labels: { app: "web" } } } } };
    expect(hashRevisionData(reordered, 0)).toBe(hashRevisionData(data, 0));
  });
});
