// jsonDiff: fast-json-patch's compare, ported (the Worker does not bundle the library): the same
// operations, in the same order, with the same values, on random pairs of related documents.
// FC_SEED=<n> replays the randomized part.
import fc from "fast-check";
import jsonpatch from "fast-json-patch";
import { describe, expect, it } from "vitest";
import { jsonDiff } from "../../src/objects/json-diff.ts";
import { fcRuns } from "../support/random.ts";

/** As the patch travels: JSON text (undefined members dropped, undefined items null). */
const wire = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

// Keys that need escaping, keys that look like indexes, and plain ones.
const key = fc.constantFrom("a", "b", "c", "0", "1", "x/y", "m~n", "~1", "");
const leaf = fc.oneof(fc.constant(null), fc.constant(undefined), fc.boolean(), fc.integer({ min: -3, max: 3 }), fc.constantFrom("", "s", "t"));
const doc = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, leaf, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 4 }),
  object: fc.dictionary(key, tie("value"), { maxKeys: 5 }),
})).value;

/** edited returns a copy of `v` with changes drawn from `pick` (0..n-1), so pairs share most of their structure. */
function edited(v: unknown, pick: (n: number) => number, other: () => unknown): unknown {
  if (pick(10) === 0) return other();
  if (Array.isArray(v)) {
    const out = v.map((x) => edited(x, pick, other));
    if (pick(4) === 0) out.push(other());
    if (pick(4) === 0) out.pop();
    return out;
  }
  if (typeof v === "object" && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (pick(6) > 0) out[k] = edited(x, pick, other);
    if (pick(4) === 0) out[["a", "x/y", "new", "9"][pick(4)]] = other();
    return out;
  }
  return v;
}

describe("jsonDiff", () => {
  it("returns what fast-json-patch's compare returns, on random related documents", () => {
    fc.assert(
      fc.property(fc.dictionary(key, doc, { maxKeys: 5 }), fc.array(fc.nat(), { minLength: 1, maxLength: 40 }), fc.array(doc, { minLength: 1, maxLength: 5 }), (a, draws, others) => {
        let d = 0;
        let o = 0;
        const b = edited(a, (n) => draws[d++ % draws.length] % n, () => others[o++ % others.length]);
        const pairs: Array<[object, object]> = [[{ v: a }, { v: b }], [{ v: b }, { v: a }], [a, { ...a, v: b }], [[a], [b, a]]];
        for (const [from, to] of pairs) expect(wire(jsonDiff(from, to))).toEqual(wire(jsonpatch.compare(from, to)));
      }),
      { numRuns: fcRuns(300, 5000) },
    );
  });

  it("escapes keys, replaces a changed type whole and copies the values it returns", () => {
    const to = { spec: { "a/b": 1, "c~d": [1, { e: 2 }], list: { 0: "x" } } };
    const ops = jsonDiff({ spec: { "a/b": 0, list: ["x"] } }, to);
    expect(wire(ops)).toEqual([
      { op: "replace", path: "/spec/list", value: { 0: "x" } },
      { op: "replace", path: "/spec/a~1b", value: 1 },
      { op: "add", path: "/spec/c~0d", value: [1, { e: 2 }] },
    ]);
    (to.spec["c~d"][1] as { e: number }).e = 3;
    expect(ops[2].value).toEqual([1, { e: 2 }]);
  });
});
