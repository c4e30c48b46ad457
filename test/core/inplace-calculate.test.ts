/** calculateInPlaceUpdate's edges (src/core/inplace-calculate.ts): what is an image change, pointer order, templates without metadata. */
import { describe, expect, it } from "vitest";
import type { PodTemplateSpec } from "../../src/api/k8s.ts";
import { calculateInPlaceUpdate } from "../../src/core/inplace-calculate.ts";

const tpl = (containers: Record<string, unknown>[], extra: Record<string, unknown> = {}, metadata?: Record<string, unknown>): PodTemplateSpec =>
  ({ ...(metadata ? { metadata } : {}), spec: { containers, ...extra } }) as unknown as PodTemplateSpec;
const reason = (from: PodTemplateSpec, to: PodTemplateSpec) => {
  const got = calculateInPlaceUpdate(from, to);
  return got.ok ? "ok" : got.reason;
};

describe("calculateInPlaceUpdate: only a replaced image string is an image change", () => {
  it.each<[string, PodTemplateSpec, PodTemplateSpec, string]>([
    ["an image added where the template had none", tpl([{ name: "a" }]), tpl([{ name: "a", image: "x:1" }]), "patch cannot use in-place update: /spec/containers/0/image"],
    ["an image replaced by a non-string", tpl([{ name: "a", image: "x:1" }]), tpl([{ name: "a", image: 7 }]), "patch cannot use in-place update: /spec/containers/0/image"],
    ["imagePullPolicy is not the image", tpl([{ name: "a", image: "x:1", imagePullPolicy: "Always" }]), tpl([{ name: "a", image: "x:1", imagePullPolicy: "IfNotPresent" }]), "patch cannot use in-place update: /spec/containers/0/imagePullPolicy"],
    [
      "labels of an ephemeral volume's claim template are not the pod's",
      tpl([{ name: "a", image: "x:1" }], { volumes: [{ name: "v", ephemeral: { volumeClaimTemplate: { metadata: { labels: { a: "1" } }, spec: {} } } }] }),
      tpl([{ name: "a", image: "x:1" }], { volumes: [{ name: "v", ephemeral: { volumeClaimTemplate: { metadata: { labels: { a: "2" } }, spec: {} } } }] }),
      "patch cannot use in-place update: /spec/volumes/0/ephemeral/volumeClaimTemplate/metadata/labels/a",
    ],
    ["the template's name and other metadata are not the pod's", tpl([{ name: "a", image: "x:1" }], {}, { name: "t1", generateName: "a-" }), tpl([{ name: "a", image: "x:1" }], {}, { name: "t2" }), "ok"],
    ["the image of the eleventh container", tpl(Array.from({ length: 11 }, (_, i) => ({ name: `c${i}`, image: "x:1" }))), tpl(Array.from({ length: 11 }, (_, i) => ({ name: `c${i}`, image: i === 10 ? "x:2" : "x:1" }))), "ok"],
  ])("%s", (_, from, to, want) => {
    expect(reason(from, to)).toBe(want);
  });

  it("pointers come sorted whatever order the diff finds them in", () => {
    const from = tpl([{ name: "a", image: "x:1" }], { dnsPolicy: "ClusterFirst" });
    const to = tpl([{ name: "a", image: "x:1", args: ["-v"] }], { dnsPolicy: "Default" });
    expect(reason(from, to)).toBe("patch cannot use in-place update: /spec/containers/0/args, /spec/dnsPolicy");
  });

  it("templates without metadata: labels and annotations appear or go as a whole", () => {
    const got = calculateInPlaceUpdate(tpl([{ name: "a", image: "x:1" }]), tpl([{ name: "a", image: "x:2" }], {}, { labels: { app: "web" }, annotations: { n: "1" } }));
    expect(got).toEqual({ ok: true, spec: { images: [{ field: "containers", index: 0, name: "a", image: "x:2" }], labels: { app: "web" }, annotations: { n: "1" } } });
    const back = calculateInPlaceUpdate(tpl([{ name: "a", image: "x:1" }], {}, { labels: { app: "web" }, annotations: { n: "1" } }), tpl([{ name: "a", image: "x:1" }]));
    expect(back).toEqual({ ok: true, spec: { images: [], labels: { app: null }, annotations: { n: null } } });
  });

  it("a template without a spec diffs as an empty one", () => {
    expect(reason({ metadata: {} } as PodTemplateSpec, tpl([{ name: "a", image: "x:1" }]))).toBe("patch cannot use in-place update: /spec/containers");
  });
});

describe("calculateInPlaceUpdate: a restart is never in place", () => {
  const at = (restartedAt?: string, image = "x:1") => tpl([{ name: "a", image }], {}, { labels: { app: "web" }, ...(restartedAt ? { annotations: { "kubectl.kubernetes.io/restartedAt": restartedAt } } : {}) });
  it.each<[string, PodTemplateSpec, PodTemplateSpec, string]>([
    ["restartedAt set (the first restart)", at(), at("2026-11-27T02:00:00Z"), "a restart (template annotation kubectl.kubernetes.io/restartedAt set to 2026-11-27T02:00:00Z) needs new containers: in place would keep them"],
    ["restartedAt changed (a later restart)", at("2026-11-27T01:00:00Z"), at("2026-11-27T02:00:00Z"), "a restart (template annotation kubectl.kubernetes.io/restartedAt set to 2026-11-27T02:00:00Z) needs new containers: in place would keep them"],
    ["restartedAt removed (an undo past a restart)", at("2026-11-27T01:00:00Z"), at(), "a restart (template annotation kubectl.kubernetes.io/restartedAt removed) needs new containers: in place would keep them"],
    [
      "a restart with a spec change names both",
      at(undefined, "x:1"),
      { ...at("2026-11-27T02:00:00Z"), spec: { containers: [{ name: "a", image: "x:1", args: ["-v"] }] } } as PodTemplateSpec,
      "patch cannot use in-place update: /spec/containers/0/args; a restart (template annotation kubectl.kubernetes.io/restartedAt set to 2026-11-27T02:00:00Z) needs new containers: in place would keep them",
    ],
    ["an unchanged restartedAt with a new image stays in place", at("2026-11-27T01:00:00Z"), at("2026-11-27T01:00:00Z", "x:2"), "ok"],
    ["another annotation changing stays in place", at("2026-11-27T01:00:00Z"), { ...at("2026-11-27T01:00:00Z"), metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": "2026-11-27T01:00:00Z", note: "x" } } } as PodTemplateSpec, "ok"],
  ])("%s", (_, from, to, want) => {
    expect(reason(from, to)).toBe(want);
  });
});
