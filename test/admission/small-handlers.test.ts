/** validateImageListRequest and denyInvalid at their edges (src/admission/validate-imagelists.ts, invalid.ts). */
import { describe, expect, it } from "vitest";
import { denyInvalid, MAX_ERROR_CHARS, MAX_REPORTED_ERRORS } from "../../src/admission/invalid.ts";
import { validateImageListRequest } from "../../src/admission/validate-imagelists.ts";
import { FieldPath, invalid, type FieldError } from "../../src/validation/field-error.ts";
import { imageListKind, request } from "./helpers.ts";

const list = (images: Record<string, unknown>) => ({ apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", metadata: { name: "node-1", namespace: "default" }, spec: { images } });

describe("validateImageListRequest", () => {
  it.each<[string, Parameters<typeof request>[0], boolean]>([
    ["a valid list (CREATE)", { operation: "CREATE", object: list({ "nginx:1.25": {} }) }, true],
    ["a valid list (UPDATE)", { operation: "UPDATE", object: list({ "nginx:1.25": {} }), oldObject: list({}) }, true],
    ["a bad reference (CREATE)", { operation: "CREATE", object: list({ "Bad Ref": {} }) }, false],
    ["a bad reference (UPDATE)", { operation: "UPDATE", object: list({ "Bad Ref": {} }), oldObject: list({}) }, false],
    ["DELETE is not judged", { operation: "DELETE", object: list({ "Bad Ref": {} }) }, true],
    ["a subresource is not judged", { operation: "UPDATE", subResource: "status", object: list({ "Bad Ref": {} }), oldObject: list({}) }, true],
  ])("%s", (_, f, allowed) => {
    const req = request({ kind: imageListKind, name: "node-1", ...f });
    const { response } = validateImageListRequest(req);
    expect(response.uid).toBe(req.uid);
    expect(response.allowed).toBe(allowed);
    if (!allowed) expect(response.status?.message).toMatch(/^ImageList\.apps\.ordinal\.dev "node-1" is invalid: spec\.images\[Bad Ref\]: Invalid value: "Bad Ref"/);
  });
  it("an oversized list is refused as an ImageList", () => {
    const big = list({ "nginx:1.25": {} });
    (big.metadata as Record<string, unknown>).annotations = { a: "x".repeat(70_000) };
    const { response } = validateImageListRequest(request({ kind: imageListKind, name: "node-1", object: big }));
    expect(response.status?.message).toMatch(/: spec: Forbidden: a ImageList with a string longer than/);
  });
});

describe("denyInvalid", () => {
  const req = request({ object: {} });
  const gk = { group: "", kind: "Pod" };
  const err = (i: number, detail = "bad"): FieldError => invalid(FieldPath.root("spec").child(`f${i}`), i, detail);
  it("no errors: the head alone; no warnings unless given", () => {
    const r = denyInvalid(req, gk, "x", []);
    expect(r.status?.message).toBe('Pod "x" is invalid');
    expect(r.warnings).toBeUndefined();
    expect(denyInvalid(req, gk, "x", [], ["careful"]).warnings).toEqual(["careful"]);
  });
  it.each<[string, number, RegExp]>([
    ["one more than the limit: and up to 1 more error", MAX_REPORTED_ERRORS + 1, /, and up to 1 more error\]$/],
    ["two more: errors", MAX_REPORTED_ERRORS + 2, /, and up to 2 more errors\]$/],
    ["exactly the limit: none counted", MAX_REPORTED_ERRORS, /spec\.f99: Invalid value: 99: bad\]$/],
  ])("%s", (_, n, want) => {
    const r = denyInvalid(req, gk, "x", Array.from({ length: n }, (_, i) => err(i)));
    expect(r.status?.message).toMatch(want);
    expect(r.status?.details?.causes).toHaveLength(MAX_REPORTED_ERRORS === n ? n : MAX_REPORTED_ERRORS);
  });
  it.each<[string, number, RegExp]>([
    // The value is cut to MAX_ERROR_CHARS first, then the error's text: the note counts the cut text.
    ["a bad value five times too long is cut before the message is", 5 * MAX_ERROR_CHARS, /^Pod "x" is invalid: spec\.image: Invalid value: "a{996}… \(1069 characters, cut\)$/],
    ["a value that fits, in a text that does not: the text is cut", MAX_ERROR_CHARS, /^Pod "x" is invalid: spec\.image: Invalid value: "a{996}… \(1068 characters, cut\)$/],
  ])("%s", (_, len, want) => {
    const r = denyInvalid(req, gk, "x", [invalid(FieldPath.root("spec").child("image"), "a".repeat(len), "must be short")]);
    expect(r.status?.message).toMatch(want);
  });
  it.each<[string, number, boolean]>([
    ["a name of 253 characters is shown whole", 253, false],
    ["a longer one is cut", 254, true],
  ])("%s", (_, len, cut) => {
    const r = denyInvalid(req, gk, "n".repeat(len), [err(0)]);
    expect(r.status?.details?.name?.endsWith("characters, cut)")).toBe(cut);
    expect(r.status?.details?.name?.startsWith("n".repeat(253))).toBe(true);
  });
});
