// Labels and selectors: validation as the apiserver words it, matching, canonical string form.
import { describe, expect, it } from "vitest";
import {
  type LabelSelector,
  labelSelectorAsRequirements,
  selectorMatches,
  selectorToString,
  validateLabelName,
  validateLabelSelector,
  validateLabels,
} from "../../src/validation/index.ts";
import { messages } from "./helpers.ts";

describe("validateLabelName", () => {
  it("reports at the given path", () => {
    expect(messages(validateLabelName("a/", "spec.selector"))).toEqual([
      'spec.selector: Invalid value: "a/": name part must be non-empty',
      "spec.selector: Invalid value: \"a/\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
  });
});

describe("validateLabels", () => {
  it("reports keys and values at the map's path (no key), as upstream", () => {
    expect(messages(validateLabels({ ok: "yes", "bad key": "v", k: "bad value" }, "metadata.labels")).map((m) => m.slice(0, 40))).toEqual([
      'metadata.labels: Invalid value: "bad key',
      'metadata.labels: Invalid value: "bad val',
    ]);
    expect(validateLabels(undefined, "metadata.labels")).toEqual([]);
  });
});

describe("validateLabelSelector", () => {
  it("checks operators, values and keys, and never throws", () => {
    expect(validateLabelSelector({ matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "In", values: ["a", "b"] }] }, "s")).toEqual([]);
    expect(messages(validateLabelSelector({ matchExpressions: [{ key: "tier", operator: "NotIn", values: ["a b"] }] }, "s"))[0]).toMatch(
      /^s\.matchExpressions\[0\]\.values\[0\]: Invalid value: "a b": a valid label must be/,
    );
    expect(messages(validateLabelSelector("x", "s"))).toEqual(['s: Invalid value: "string": s in body must be of type object: "string"']);
    expect(() => validateLabelSelector({ matchExpressions: [null, 3, { operator: 5 }] }, "s")).not.toThrow();
  });
});

describe("labelSelectorAsRequirements", () => {
  it("distinguishes absent, empty, valid and invalid selectors", () => {
    expect(labelSelectorAsRequirements(undefined)).toEqual({ kind: "nothing" });
    expect(labelSelectorAsRequirements({})).toEqual({ kind: "everything" });
    expect(labelSelectorAsRequirements({ matchExpressions: [{ key: "a", operator: "Is" }] })).toEqual({ kind: "error", error: '"Is" is not a valid label selector operator' });
    expect(labelSelectorAsRequirements({ matchExpressions: [{ key: "a", operator: "toString" }] }).kind).toBe("error");
  });
});

describe("selectorMatches", () => {
  const sel: LabelSelector = {
    matchLabels: { app: "web" },
    matchExpressions: [
      { key: "tier", operator: "In", values: ["a", "b"] },
      { key: "canary", operator: "DoesNotExist" },
      { key: "zone", operator: "NotIn", values: ["x"] },
      { key: "team", operator: "Exists" },
    ],
  };
  const cases: Array<[Record<string, string>, boolean]> = [
    [{ app: "web", tier: "a", team: "t" }, true],
    [{ app: "web", tier: "c", team: "t" }, false],
    [{ app: "web", tier: "a", team: "t", canary: "1" }, false],
    [{ app: "web", tier: "a", team: "t", zone: "x" }, false],
    [{ app: "web", tier: "a", team: "t", zone: "y" }, true],
    [{ app: "web", tier: "a" }, false],
    [{ app: "api", tier: "a", team: "t" }, false],
  ];
  for (const [labels, want] of cases) it(`${JSON.stringify(labels)} → ${want}`, () => expect(selectorMatches(sel, labels)).toBe(want));
  it("matches nothing when absent, everything when empty", () => {
    expect(selectorMatches(undefined, { a: "b" })).toBe(false);
    expect(selectorMatches({}, {})).toBe(true);
  });
});

describe("selectorToString", () => {
  const cases: Array<[LabelSelector | undefined, string]> = [
    [{ matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "In", values: ["b", "a"] }] }, "app=web,tier in (a,b)"],
    [{ matchLabels: { z: "1", a: "2" } }, "a=2,z=1"],
    [{ matchExpressions: [{ key: "x", operator: "DoesNotExist" }, { key: "e", operator: "Exists" }, { key: "n", operator: "NotIn", values: ["v"] }] }, "e,n notin (v),!x"],
    [{}, ""],
    [undefined, ""],
  ];
  for (const [sel, s] of cases) it(JSON.stringify(s), () => expect(selectorToString(sel)).toBe(s));
});
