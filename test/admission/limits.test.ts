/** oversized (src/admission/limits.ts) at its bounds: values counted, strings measured, managedFields left out. */
import { describe, expect, it } from "vitest";
import { MAX_OBJECT_VALUES, MAX_STRING_CHARS, oversized } from "../../src/admission/limits.ts";
import { formatFieldError } from "../../src/validation/field-error.ts";

const list = (n: number) => Array.from({ length: n }, () => "v");

describe("oversized", () => {
  it.each<[string, unknown, RegExp | undefined]>([
    // spec is one value and each item another.
    ["exactly MAX_OBJECT_VALUES values", { spec: list(MAX_OBJECT_VALUES - 1) }, undefined],
    ["one value more", { spec: list(MAX_OBJECT_VALUES) }, /^spec: Forbidden: a Thing with more than 5000 JSON values is refused/],
    ["values in metadata count", { metadata: { labels: Object.fromEntries(list(MAX_OBJECT_VALUES).map((v, i) => [`k${i}`, v])) }, spec: {} }, /more than 5000 JSON values/],
    ["managedFields do not", { metadata: { managedFields: list(2 * MAX_OBJECT_VALUES) }, spec: {} }, undefined],
    ["values in nested objects count", { spec: { a: { b: list(MAX_OBJECT_VALUES) } } }, /more than 5000 JSON values/],
    ["a string of MAX_STRING_CHARS", { spec: { image: "a".repeat(MAX_STRING_CHARS) } }, undefined],
    ["a string one character longer", { spec: { image: "a".repeat(MAX_STRING_CHARS + 1) } }, /^spec: Forbidden: a Thing with a string longer than 65536 characters is refused/],
    ["a long string in metadata", { metadata: { name: "a".repeat(MAX_STRING_CHARS + 1) } }, /string longer than 65536/],
    ["not an object", "x".repeat(MAX_STRING_CHARS + 1), undefined],
    ["an object with neither spec nor metadata", {}, undefined],
  ])("%s", (_, obj, want) => {
    const e = oversized(obj, "Thing");
    if (!want) expect(e).toBeUndefined();
    else expect(e && formatFieldError(e)).toMatch(want);
  });
});
