// validateImageList: every key of spec.images must be an image reference.
import { describe, expect, it } from "vitest";
import { validateImageList } from "../../src/validation/index.ts";
import { messages } from "./helpers.ts";

const list = (images: unknown, extra: Record<string, unknown> = {}) => ({
  apiVersion: "apps.ordinal.dev/v1",
  kind: "ImageList",
  metadata: { name: "base-images" },
  spec: { images, ...extra },
});

describe("validateImageList", () => {
  it("admits valid references", () => {
    expect(validateImageList(list({ "nginx:1.25": {}, ["gcr.io/x/y@sha256:" + "a".repeat(64)]: { alwaysPull: true } }))).toEqual([]);
  });

  it("reports each bad reference at spec.images[<ref>]", () => {
    expect(messages(validateImageList(list({ "nginx 1.25": {}, "nginx;rm": {}, "ok:1": {}, Nginx: {} })))).toEqual([
      'spec.images[nginx 1.25]: Invalid value: "nginx 1.25": invalid reference format',
      'spec.images[nginx;rm]: Invalid value: "nginx;rm": invalid reference format',
      'spec.images[Nginx]: Invalid value: "Nginx": invalid reference format: repository name (library/Nginx) must be lowercase',
    ]);
  });

  it("checks structure and types; refuses nodeSelector (the name is the node)", () => {
    expect(messages(validateImageList({ metadata: { name: "l" } }))).toEqual(["spec: Required value"]);
    expect(messages(validateImageList(list(undefined)))).toEqual(["spec.images: Required value"]);
    expect(messages(validateImageList(list({ "nginx:1": { alwaysPull: "yes" } })))).toEqual([
      'spec.images[nginx:1].alwaysPull: Invalid value: "string": spec.images[nginx:1].alwaysPull in body must be of type boolean: "string"',
    ]);
    expect(messages(validateImageList(list({}, { nodeSelector: { a: "c" } })))).toEqual(["spec.nodeSelector: Forbidden: an ImageList applies to the node named by metadata.name"]);
    expect(messages(validateImageList(null))).toEqual(['body must be of type object: "null"'].map((d) => `: Invalid value: "null": ${d}`));
  });

  it("admits up to 16 imagePullSecrets, each a Secret's name and nothing else (issue 21)", () => {
    const secrets = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `reg-${i}` }));
    expect(validateImageList(list({ "nginx:1": {} }, { imagePullSecrets: secrets(16) }))).toEqual([]);
    expect(messages(validateImageList(list({ "nginx:1": {} }, { imagePullSecrets: secrets(17) })))).toEqual(["spec.imagePullSecrets: Too many: 17: must have at most 16 items"]);
    expect(messages(validateImageList(list({ "nginx:1": {} }, { imagePullSecrets: [{ name: "Bad_Name" }, {}, { name: "ok", key: "x" }] })))).toEqual([
      expect.stringMatching(/^spec\.imagePullSecrets\[0\]\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/),
      "spec.imagePullSecrets[1].name: Required value",
      expect.stringMatching(/^spec\.imagePullSecrets\[2\]: Invalid value: .*only name may be set$/),
    ]);
  });
});
