// parseImageReference: the distribution/reference grammar the kubelet parses images with.
import { describe, expect, it } from "vitest";
import { normalizeImageReference, parseImageReference } from "../../src/validation/index.ts";

describe("parseImageReference", () => {
  const ok: Array<[string, object]> = [
    ["nginx", { domain: "docker.io", path: "library/nginx" }],
    ["nginx:1.25", { domain: "docker.io", path: "library/nginx", tag: "1.25" }],
    ["library/nginx:latest", { domain: "docker.io", path: "library/nginx", tag: "latest" }],
    ["bitnami/redis:7", { domain: "docker.io", path: "bitnami/redis", tag: "7" }],
    ["Registry/app", { domain: "Registry", path: "app" }],
    ["gcr.io/google-samples/cassandra:v13", { domain: "gcr.io", path: "google-samples/cassandra", tag: "v13" }],
    ["localhost:5000/app_x/y__z:V1.0-rc", { domain: "localhost:5000", path: "app_x/y__z", tag: "V1.0-rc" }],
    ["[::1]:5000/app", { domain: "[::1]:5000", path: "app" }],
    [`nginx@sha256:${"a".repeat(64)}`, { domain: "docker.io", path: "library/nginx", digest: `sha256:${"a".repeat(64)}` }],
    [`nginx:1@sha512:${"0".repeat(128)}`, { domain: "docker.io", path: "library/nginx", tag: "1", digest: `sha512:${"0".repeat(128)}` }],
  ];
  for (const [ref, parts] of ok) it(`accepts ${ref}`, () => expect(parseImageReference(ref)).toEqual({ ok: true, ...parts }));

  const bad: Array<[unknown, string]> = [
    ["", "invalid reference format"],
    ["nginx 1.25", "invalid reference format"],
    ["nginx;rm", "invalid reference format"],
    ["Nginx", "invalid reference format: repository name (library/Nginx) must be lowercase"],
    ["docker.io/Library/nginx:1", "invalid reference format: repository name (Library/nginx) must be lowercase"],
    ["nginx:", "invalid reference format"],
    [`nginx:${"t".repeat(129)}`, "invalid reference format"],
    ["nginx@sha256:abc", "invalid reference format"],
    [`nginx@sha256:${"a".repeat(63)}`, "invalid checksum digest length"],
    [`nginx@sha256:${"A".repeat(64)}`, "invalid checksum digest format"],
    [`nginx@md5:${"a".repeat(32)}`, "unsupported digest algorithm"],
    ["a___b", "invalid reference format"],
    ["a-", "invalid reference format"],
    ["-nginx", "invalid reference format"],
    [`${"a".repeat(250)}`, "repository name must not be more than 255 characters"],
    ["a".repeat(64).replace(/a/g, "f"), `invalid repository name (${"f".repeat(64)}), cannot specify 64-byte hexadecimal strings`],
    [42, "image reference must be a string"],
  ];
  for (const [ref, reason] of bad) it(`refuses ${JSON.stringify(ref).slice(0, 40)}`, () => expect(parseImageReference(ref)).toEqual({ ok: false, reason }));
});

describe("normalizeImageReference", () => {
  const cases: Array<[string, string]> = [
    ["nginx", "docker.io/library/nginx:latest"],
    ["nginx:1.25", "docker.io/library/nginx:1.25"],
    ["library/nginx:1.25", "docker.io/library/nginx:1.25"],
    ["index.docker.io/library/nginx", "docker.io/library/nginx:latest"],
    ["docker.io/library/nginx:latest", "docker.io/library/nginx:latest"],
    ["bitnami/redis", "docker.io/bitnami/redis:latest"],
    ["localhost:5000/app", "localhost:5000/app:latest"],
    ["gcr.io/x/y:v1", "gcr.io/x/y:v1"],
    [`nginx@sha256:${"a".repeat(64)}`, `docker.io/library/nginx@sha256:${"a".repeat(64)}`],
    [`nginx:1@sha256:${"a".repeat(64)}`, `docker.io/library/nginx:1@sha256:${"a".repeat(64)}`],
  ];
  for (const [ref, want] of cases) it(`${ref} → ${want}`, () => expect(normalizeImageReference(ref)).toEqual({ ok: true, ref: want }));
  it("is idempotent and refuses what does not parse", () => {
    for (const [, want] of cases) expect(normalizeImageReference(want)).toEqual({ ok: true, ref: want });
    expect(normalizeImageReference("Nginx")).toMatchObject({ ok: false });
    expect(normalizeImageReference("nginx 1")).toEqual({ ok: false, reason: "invalid reference format" });
  });
});
