/**
 * Control labels are Ordinal's (issue 35, G5): a set stored with the chosen-deletion label (or the
 * other control keys) in its template — before the validation that refuses it, or past a webhook
 * that was down — does not churn its pods: the pods it creates never take a control key from the
 * template, and an in-place update neither copies one onto a pod nor removes one a user set.
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { INPLACE_STATE_ANNOTATION, LIFECYCLE_STATE_LABEL, PULLER_LABEL, SPECIFIED_DELETE_LABEL } from "../../src/objects/constants.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { setManifest } from "../support/fixtures.ts";

function setup(template: { labels?: Record<string, string>; annotations?: Record<string, string> }, spec: Record<string, unknown> = {}) {
  let clock = Date.parse("2026-12-04T12:00:00Z");
  const now = () => new Date(clock);
  const fake = createFakeApiServer({ now });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} });
  const kubelet = new KubeletPlayer(client, { namespace: "default", now });
  const manifest = setManifest({ replicas: 5, policy: "Parallel", spec });
  const meta = (manifest.spec.template as { metadata: { labels: Record<string, string>; annotations?: Record<string, string> } }).metadata;
  Object.assign(meta.labels, template.labels);
  if (template.annotations) meta.annotations = template.annotations;
  const pods = () => fake.list<Pod>("/api/v1/namespaces/default/pods");
  const settle = async (passes: number) => {
    for (let i = 0; i < passes; i++) {
      await reconcilePass(client, { now, log: silentLogger });
      await kubelet.step();
      clock += 1000;
    }
  };
  const writes = (verb: string) => fake.log.entries.filter((e) => e.verb === verb && e.resource === "pods" && !e.subresource).length;
  return { fake, client, manifest, pods, settle, writes };
}

describe("a template carrying control keys (stored past validation)", () => {
  it("creates each pod once, without the keys, and deletes none (G5: 20 s of churn before)", async () => {
    const t = setup({
      labels: { [SPECIFIED_DELETE_LABEL]: "true", [LIFECYCLE_STATE_LABEL]: "PreparingDelete", [PULLER_LABEL]: "true" },
      annotations: { [INPLACE_STATE_ANNOTATION]: '{"revision":"x"}', "example.io/kept": "yes" },
    });
    t.fake.seed(t.manifest);
    await t.settle(10);
    const pods = t.pods();
    expect(pods).toHaveLength(5);
    for (const p of pods) {
      expect(p.metadata?.labels).not.toHaveProperty(SPECIFIED_DELETE_LABEL);
      expect(p.metadata?.labels).not.toHaveProperty(LIFECYCLE_STATE_LABEL);
      expect(p.metadata?.labels).not.toHaveProperty(PULLER_LABEL);
      expect(p.metadata?.annotations).not.toHaveProperty(INPLACE_STATE_ANNOTATION);
      expect(p.metadata?.annotations?.["example.io/kept"]).toBe("yes");
    }
    expect(t.writes("create")).toBe(5);
    expect(t.writes("delete")).toBe(0);
  });

  it("an in-place update whose templates differ in a control key does not copy it onto the pods (which would delete them all)", async () => {
    const t = setup({}, { updateStrategy: { type: "RollingUpdate", rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible" } } });
    t.fake.seed(t.manifest);
    await t.settle(6);
    const uids = t.pods().map((p) => p.metadata?.uid);
    await t.client.patch(R.statefulSets, "default", "web", { spec: { template: { metadata: { labels: { [SPECIFIED_DELETE_LABEL]: "true", extra: "1" } }, spec: { containers: [{ name: "c", image: "img:2" }] } } } }, "merge");
    await t.settle(30);
    expect(t.pods().map((p) => p.metadata?.uid)).toEqual(uids);
    for (const p of t.pods()) {
      expect(p.spec?.containers[0].image).toBe("img:2");
      expect(p.metadata?.labels?.extra).toBe("1");
      expect(p.metadata?.labels).not.toHaveProperty(SPECIFIED_DELETE_LABEL);
    }
  });
});
