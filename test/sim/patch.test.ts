/** PATCH: merge patch (RFC 7386), JSON patch (RFC 6902) and strategic merge patch. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyJsonPatch, mergePatch, strategicMerge } from "../../src/sim/fake-apiserver/patch.ts";
import { CMS, OSTS, ordinalSet, setup } from "./helpers.ts";

describe("mergePatch (RFC 7386 appendix A)", () => {
  it.each([
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
    [["a", "b"], ["c", "d"], ["c", "d"]],
    [{ a: "b" }, ["c"], ["c"]],
    [{ a: "foo" }, null, null],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: "b", c: null }, { a: "b" }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])("%j + %j = %j", (target, patch, want) => {
    expect(mergePatch(target, patch)).toEqual(want);
  });

  it("applying a patch twice is the same as once (property)", () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, fc.string(), fc.integer(), fc.boolean(), fc.constant(null), tie("object")),
      object: fc.dictionary(fc.string({ maxLength: 3 }), tie("value"), { maxKeys: 3 }),
    })).object;
    fc.assert(
      fc.property(json, json, (t, p) => {
        const once = mergePatch(t, p);
        expect(mergePatch(once, p)).toEqual(once);
      }),
    );
  });
});

describe("applyJsonPatch", () => {
  const doc = { metadata: { name: "a", labels: { x: "1" } }, list: [1, 2] };
  it.each([
    [[{ op: "add", path: "/metadata/labels/y", value: "2" }], { metadata: { name: "a", labels: { x: "1", y: "2" } }, list: [1, 2] }],
    [[{ op: "remove", path: "/list/0" }], { metadata: { name: "a", labels: { x: "1" } }, list: [2] }],
    [[{ op: "replace", path: "/metadata/labels/z", value: "3" }], { metadata: { name: "a", labels: { x: "1", z: "3" } }, list: [1, 2] }],
    [[{ op: "move", from: "/metadata/labels/x", path: "/metadata/labels/w" }], { metadata: { name: "a", labels: { w: "1" } }, list: [1, 2] }],
    [[{ op: "copy", from: "/list", path: "/copy" }], { metadata: { name: "a", labels: { x: "1" } }, list: [1, 2], copy: [1, 2] }],
    [[{ op: "test", path: "/list", value: [1, 2] }, { op: "add", path: "/list/-", value: 3 }], { metadata: { name: "a", labels: { x: "1" } }, list: [1, 2, 3] }],
  ])("%j", (ops, want) => {
    expect(applyJsonPatch(doc, JSON.stringify(ops))).toEqual(want);
  });

  it.each([
    [[{ op: "test", path: "/metadata/name", value: "b" }]],
    [[{ op: "remove", path: "/nope" }]],
    [[{ op: "add", path: "/a/b/c", value: 1 }]],
    [[{ op: "replace", path: "/list/5", value: 1 }]],
    [[{ op: "bogus", path: "/x" }]],
    [[{ path: "/x" }]],
  ])("%j is a 422 and leaves the document alone", (ops) => {
    const before = JSON.stringify(doc);
    expect(() => applyJsonPatch(doc, JSON.stringify(ops))).toThrow("the server rejected our request due to an error in our request");
    expect(JSON.stringify(doc)).toBe(before);
  });

  it("a body that is not a JSON list is a 400", () => {
    expect(() => applyJsonPatch(doc, "{}")).toThrow(/cannot unmarshal object/);
    expect(() => applyJsonPatch(doc, "[")).toThrow();
  });
});

describe("strategicMerge", () => {
  it("merges containers by name, keeps fields not in the patch, orders new items first", () => {
    const spec = { containers: [{ name: "a", image: "1", env: [{ name: "X", value: "1" }] }, { name: "b", image: "1" }] };
    const out = strategicMerge(spec, { containers: [{ name: "b", image: "2" }, { name: "c", image: "3" }] });
    expect(out).toEqual({ containers: [{ name: "a", image: "1", env: [{ name: "X", value: "1" }] }, { name: "b", image: "2" }, { name: "c", image: "3" }] });
  });

  it("honours $patch: delete / replace, $setElementOrder, $retainKeys and $deleteFromPrimitiveList", () => {
    const obj = { metadata: { finalizers: ["a", "b"] }, spec: { volumes: [{ name: "v1", emptyDir: {} }, { name: "v2", emptyDir: {} }], strategy: { type: "A", extra: 1 } } };
    expect(strategicMerge(obj, { spec: { volumes: [{ name: "v1", $patch: "delete" }] } })).toMatchObject({ spec: { volumes: [{ name: "v2", emptyDir: {} }] } });
    expect(strategicMerge(obj, { spec: { volumes: [{ name: "v3" }, { $patch: "replace" }] } })).toMatchObject({ spec: { volumes: [{ name: "v3" }] } });
    expect(strategicMerge(obj, { spec: { volumes: [{ name: "v2", emptyDir: {} }, { name: "v1" }], "$setElementOrder/volumes": [{ name: "v2" }, { name: "v1" }] } })).toMatchObject({
      spec: { volumes: [{ name: "v2" }, { name: "v1" }] },
    });
    expect(strategicMerge(obj, { spec: { strategy: { $retainKeys: ["type"], type: "B" } } })).toMatchObject({ spec: { strategy: { type: "B" } } });
    expect((strategicMerge(obj, { spec: { strategy: { $retainKeys: ["type"], type: "B" } } }) as { spec: { strategy: object } }).spec.strategy).toEqual({ type: "B" });
    expect(strategicMerge(obj, { metadata: { "$deleteFromPrimitiveList/finalizers": ["a"] } })).toMatchObject({ metadata: { finalizers: ["b"] } });
    expect(strategicMerge(obj, { metadata: { finalizers: ["c", "a"] } })).toMatchObject({ metadata: { finalizers: ["c", "a", "b"] } });
    expect(strategicMerge(obj, { spec: { $patch: "delete" } })).toEqual({ metadata: { finalizers: ["a", "b"] } });
  });
});

describe("PATCH requests", () => {
  it("content types: merge, json, strategic (built-ins only), others 415", async () => {
    const { call } = setup();
    await call("POST", CMS, { metadata: { name: "a" } });
    expect((await call("PATCH", `${CMS}/a`, { data: { a: "1" } }, "application/merge-patch+json")).body.data).toEqual({ a: "1" });
    expect((await call("PATCH", `${CMS}/a`, [{ op: "add", path: "/data/b", value: "2" }], "application/json-patch+json")).body.data).toEqual({ a: "1", b: "2" });
    expect((await call("PATCH", `${CMS}/a`, { data: { c: "3" } }, "application/strategic-merge-patch+json; charset=utf-8")).body.data).toEqual({ a: "1", b: "2", c: "3" });
    expect((await call("PATCH", `${CMS}/a`, "data: {}", "application/apply-patch+yaml")).status).toBe(415);
    await call("POST", OSTS, ordinalSet("web"));
    expect((await call("PATCH", `${OSTS}/web`, { spec: {} }, "application/strategic-merge-patch+json")).status).toBe(415);
  });

  it("the patched object is validated like an update", async () => {
    const { call } = setup();
    await call("POST", CMS, { metadata: { name: "a" } });
    const r = await call("PATCH", `${CMS}/a`, { metadata: { name: "b" } });
    expect(r.body.message).toBe("the name of the object (b) does not match the name on the URL (a)");
    const bad = await call("PATCH", `${CMS}/a`, { data: { "no/slash": "x" } });
    expect(bad.status).toBe(422);
  });
});
