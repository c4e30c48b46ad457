// scanJson against the parsed value: depth, the crowded containers of the measured parts (as
// written, outermost only, in order) and the longest string there, on random JSON, compact or indented.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replaceSpans, scanJson, type KeyPath, type MeasuredParts } from "../../src/http/json-scan.ts";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const depthOf = (v: Json): number => (v !== null && typeof v === "object" ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0);

/** The definition: walk the parsed value by key path. */
function reference(v: Json, parts: MeasuredParts) {
  const matches = (p: KeyPath, path: KeyPath) => p.length === path.length && p.every((k, i) => k === "*" || k === path[i]);
  const isRoot = (path: KeyPath) => parts.measured.some((p) => matches(p, path)) && !(parts.unmeasured ?? []).some((p) => matches(p, path));
  const crowded: Json[] = [];
  let longest = 0;
  const walk = (x: Json, path: string[], measured: boolean, inCrowded: boolean) => {
    const m = measured || isRoot(path);
    if (m && typeof x === "string") longest = Math.max(longest, JSON.stringify(x).length - 2);
    if (x === null || typeof x !== "object") return;
    const entries: [string, Json][] = Array.isArray(x) ? x.map((e) => ["#", e]) : Object.entries(x);
    const crowds = m && entries.length > parts.maxMembers && !inCrowded; // outermost only
    if (crowds) crowded.push(x);
    for (const [k, e] of entries) walk(e, [...path, k], m, inCrowded || crowds);
  };
  walk(v, [], false, false);
  return { crowded, longest };
}

// Keys that JSON objects keep in written order (no integer-like keys), with quotes and escapes.
const key = fc.string({ maxLength: 4 }).map((s) => `k${s}`);
const json: fc.Arbitrary<Json> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small", withCrossShrink: true }, fc.string({ maxLength: 5 }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 5 }),
  object: fc.dictionary(fc.oneof(key, fc.constantFrom("a", "b", "spec", "metadata", "managedFields")), tie("value"), { maxKeys: 5 }),
})).value as fc.Arbitrary<Json>;

const parts: MeasuredParts = { measured: [["a"], ["b", "*"], ["#", "spec"]], unmeasured: [["b", "managedFields"]], maxMembers: 2 };

describe("scanJson", () => {
  it("finds the parsed value's depth, its crowded measured containers and the longest measured string", () => {
    fc.assert(
      fc.property(json, fc.boolean(), (v, indent) => {
        const text = JSON.stringify(v, null, indent ? 2 : undefined);
        const scan = scanJson(text, parts);
        const want = reference(v, parts);
        expect(scan.depth).toBe(depthOf(v));
        expect(scan.crowded.map(([s, e]) => JSON.parse(text.slice(s, e)))).toEqual(want.crowded);
        expect(scan.longestString).toBe(want.longest);
      }),
      { numRuns: 3000 },
    );
  });

  it("reads escaped keys as JSON.parse does", () => {
    const text = '{"\\u0061": [1, 2, 3], "b": {"managedFields": [1, 2, 3], "x": {"p": 1, "q": 2, "r": "\\"ab\\\\"}}}';
    const scan = scanJson(text, parts);
    expect(scan.crowded.map(([s, e]) => text.slice(s, e))).toEqual(["[1, 2, 3]", '{"p": 1, "q": 2, "r": "\\"ab\\\\"}']);
    expect(scan.longestString).toBe(6);
  });

  it("ends on text that is not JSON", () => {
    for (const text of ['{"a": [1, 2', '"open', "]]]}}", "{,,,:", ""]) expect(() => scanJson(text, parts)).not.toThrow();
  });
});

describe("replaceSpans", () => {
  it("replaces each span in order", () => {
    expect(replaceSpans("0123456789", [[1, 3], [5, 6]], "_")).toBe("0_34_6789");
    expect(replaceSpans("abc", [], "_")).toBe("abc");
  });
});
