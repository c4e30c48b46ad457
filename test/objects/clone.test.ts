// cloneJSON: a deep copy of JSON data that shares nothing mutable with the original.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cloneJSON } from "../../src/objects/clone.ts";

/** objectsOf lists every object and array in a value. */
function objectsOf(v: unknown, out: object[] = []): object[] {
  if (typeof v === "object" && v !== null) {
    out.push(v);
    for (const x of Object.values(v)) objectsOf(x, out);
  }
  return out;
}

describe("cloneJSON", () => {
  it("copies JSON data: equal, and no object or array of the copy is one of the original's", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const copy = cloneJSON(v);
        expect(copy).toEqual(v);
        const originals = new Set(objectsOf(v));
        for (const o of objectsOf(copy)) expect(originals.has(o)).toBe(false);
      }),
    );
  });

  it("keeps a \"__proto__\" key as an own key, not as the prototype", () => {
    const v = JSON.parse('{"__proto__": {"polluted": true}, "a": [1]}') as Record<string, unknown>;
    const copy = cloneJSON(v);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(["__proto__", "a"]);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("copies 100,000 levels of nesting without overflowing the stack", () => {
    let deep: unknown = "x";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    let copy = cloneJSON(deep);
    let levels = 0;
    while (Array.isArray(copy)) {
      copy = copy[0];
      levels++;
    }
    expect([levels, copy]).toEqual([100_000, "x"]);
  });

  it("copies what is not JSON data with structuredClone", () => {
    const when = new Date(0);
    const copy = cloneJSON({ when, m: new Map([["k", 1]]), u: undefined });
    expect(copy.when).not.toBe(when);
    expect(copy.when.getTime()).toBe(0);
    expect(copy.m.get("k")).toBe(1);
    expect(Object.keys(copy)).toContain("u");
  });
});
