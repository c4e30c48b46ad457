/**
 * Lifecycle hooks through whole reconcile passes on the fake apiserver with a kubelet player
 * (src/core/lifecycle.ts): a preDelete hook holds a scale-in and a recreate until another
 * controller removes its label, a pod scaled back in goes back to Normal, an inPlaceUpdate hook
 * holds an in-place update, and the set's condition says who is held.
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { gateCondition } from "../../src/core/inplace-state.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { LIFECYCLE_STATE_LABEL } from "../../src/objects/constants.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { setManifest } from "../support/fixtures.ts";

const DRAIN = "example.io/drain";
const hook = (markPodNotReady = false) => ({ labelsHandler: { [DRAIN]: "true" }, markPodNotReady });

function setup(spec: Record<string, unknown>, replicas = 3) {
  let clock = Date.parse("2026-11-21T12:00:00Z");
  const now = () => new Date(clock);
  const fake = createFakeApiServer({ now });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} });
  const kubelet = new KubeletPlayer(client, { namespace: "default", now });
  const manifest = setManifest({ replicas, spec });
  (manifest.spec.template as { metadata: { labels: Record<string, string> } }).metadata.labels[DRAIN] = "true";
  const pods = () => fake.list<Pod>("/api/v1/namespaces/default/pods");
  const podNamed = (name: string) => pods().find((p) => p.metadata?.name === name);
  const set = () => fake.get<{ status?: { conditions?: { type: string; status: string; message?: string }[] } }>("/apis/apps.ordinal.dev/v1/namespaces/default/statefulsets/web");
  const settle = async (passes = 12) => {
    for (let i = 0; i < passes; i++) {
      await reconcilePass(client, { now, log: silentLogger });
      await kubelet.step();
      clock += 1000;
    }
  };
  const release = (name: string) => client.patch(R.pods, "default", name, { metadata: { labels: { [DRAIN]: "false" } } }, "merge");
  const held = () => set()?.status?.conditions?.find((c) => c.type === "LifecycleHookHeld");
  return { fake, client, manifest, pods, podNamed, settle, release, held };
}

describe("preDelete hook", () => {
  it("holds a scale-in in PreparingDelete (not ready) until the label is removed, then deletes the pod", async () => {
    const t = setup({ lifecycle: { preDelete: hook(true) } });
    await t.fake.seed(t.manifest);
    await t.settle();
    expect(t.pods().map((p) => p.metadata?.labels?.[LIFECYCLE_STATE_LABEL])).toEqual(["Normal", "Normal", "Normal"]);
    await t.client.patch(R.statefulSets, "default", "web", { spec: { replicas: 2 } }, "merge");
    await t.settle();
    const web2 = t.podNamed("web-2");
    expect(web2?.metadata?.deletionTimestamp).toBeUndefined();
    expect(web2?.metadata?.labels?.[LIFECYCLE_STATE_LABEL]).toBe("PreparingDelete");
    expect(gateCondition(web2!)).toMatchObject({ status: "False", reason: "PreparingDelete" });
    expect(web2?.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("False");
    expect(t.held()).toMatchObject({ status: "True", message: expect.stringContaining("pod web-2 PreparingDelete: label example.io/drain=true") });
    await t.release("web-2");
    await t.settle();
    expect(t.pods().map((p) => p.metadata?.name)).toEqual(["web-0", "web-1"]);
    expect(t.held()).toMatchObject({ status: "False" });
  });

  it("a pod scaled back in while held goes back to Normal and into traffic", async () => {
    const t = setup({ lifecycle: { preDelete: hook(true) } });
    await t.fake.seed(t.manifest);
    await t.settle();
    await t.client.patch(R.statefulSets, "default", "web", { spec: { replicas: 2 } }, "merge");
    await t.settle(4);
    expect(t.podNamed("web-2")?.metadata?.labels?.[LIFECYCLE_STATE_LABEL]).toBe("PreparingDelete");
    await t.client.patch(R.statefulSets, "default", "web", { spec: { replicas: 3 } }, "merge");
    await t.settle();
    const web2 = t.podNamed("web-2")!;
    expect(web2.metadata?.labels?.[LIFECYCLE_STATE_LABEL]).toBe("Normal");
    expect(gateCondition(web2)?.status).toBe("True");
    expect(web2.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
  });

  it("holds a recreate for an update on its pod alone; released, the pod is recreated and the rollout goes on", async () => {
    const t = setup({ lifecycle: { preDelete: hook() } });
    await t.fake.seed(t.manifest);
    await t.settle();
    const uids = t.pods().map((p) => p.metadata?.uid);
    await t.client.patch(R.statefulSets, "default", "web", { spec: { template: { spec: { containers: [{ name: "c", image: "img:2" }] } } } }, "merge");
    await t.settle();
    expect(t.pods().map((p) => p.metadata?.uid)).toEqual(uids);
    expect(t.podNamed("web-2")?.metadata?.labels?.[LIFECYCLE_STATE_LABEL]).toBe("PreparingDelete");
    expect(t.podNamed("web-1")?.metadata?.labels?.[LIFECYCLE_STATE_LABEL]).toBe("Normal");
    await t.release("web-2");
    await t.settle();
    // web-2 was recreated at img:2 (its template label holds it again); web-1 is next and held.
    expect(t.podNamed("web-2")?.metadata?.uid).not.toBe(uids[2]);
    expect(t.podNamed("web-2")?.spec?.containers[0].image).toBe("img:2");
    expect(t.podNamed("web-1")?.metadata?.labels?.[LIFECYCLE_STATE_LABEL]).toBe("PreparingDelete");
    expect(t.podNamed("web-0")?.metadata?.uid).toBe(uids[0]);
  });
});

describe("preDelete hook and a chosen deletion", () => {
  it("a pod labelled ordinal.dev/specified-delete waits in PreparingDelete until released, then is deleted and recreated", async () => {
    const t = setup({ lifecycle: { preDelete: hook(true) } });
    await t.fake.seed(t.manifest);
    await t.settle();
    const uid = t.podNamed("web-1")?.metadata?.uid;
    await t.client.patch(R.pods, "default", "web-1", { metadata: { labels: { "ordinal.dev/specified-delete": "true" } } }, "merge");
    await t.settle();
    expect(t.podNamed("web-1")?.metadata?.uid).toBe(uid);
    expect(t.podNamed("web-1")?.metadata?.labels?.[LIFECYCLE_STATE_LABEL]).toBe("PreparingDelete");
    expect(t.held()).toMatchObject({ status: "True", message: expect.stringContaining("pod web-1 PreparingDelete") });
    await t.release("web-1");
    await t.settle();
    expect(t.podNamed("web-1")?.metadata?.uid).not.toBe(uid);
    expect(t.pods()).toHaveLength(3);
  });
});

describe("inPlaceUpdate hook", () => {
  it("holds an in-place update in PreparingUpdate until released, then updates in place: Updated, and Normal once the label is back", async () => {
    const t = setup({
      lifecycle: { inPlaceUpdate: hook(true) },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible" } },
    });
    await t.fake.seed(t.manifest);
    await t.settle();
    const uids = t.pods().map((p) => p.metadata?.uid);
    await t.client.patch(R.statefulSets, "default", "web", { spec: { template: { spec: { containers: [{ name: "c", image: "img:2" }] } } } }, "merge");
    await t.settle();
    const web2 = t.podNamed("web-2")!;
    expect(web2.spec?.containers[0].image).toBe("img:1");
    expect(web2.metadata?.labels?.[LIFECYCLE_STATE_LABEL]).toBe("PreparingUpdate");
    expect(gateCondition(web2)).toMatchObject({ status: "False", reason: "PreparingUpdate" });
    expect(t.held()).toMatchObject({ status: "True", message: expect.stringContaining("pod web-2 PreparingUpdate") });
    expect(t.podNamed("web-1")?.spec?.containers[0].image).toBe("img:1");
    await t.release("web-2");
    await t.settle();
    const updated = t.podNamed("web-2")!;
    expect(updated.metadata?.uid).toBe(uids[2]);
    expect(updated.spec?.containers[0].image).toBe("img:2");
    expect(updated.metadata?.labels?.[LIFECYCLE_STATE_LABEL]).toBe("Updated");
    expect(gateCondition(updated)?.status).toBe("True");
    // The other controller puts its label back once its post-update work is done: Normal.
    await t.client.patch(R.pods, "default", "web-2", { metadata: { labels: { [DRAIN]: "true" } } }, "merge");
    await t.settle(3);
    expect(t.podNamed("web-2")?.metadata?.labels?.[LIFECYCLE_STATE_LABEL]).toBe("Normal");
  });
});
