/**
 * Claim templates that change (issue 23), through reconcile passes on the fake apiserver (which
 * runs the PersistentVolumeClaimResize admission: only a bound claim of a class with
 * allowVolumeExpansion may grow). The test plays the kubelet and the volume controllers: it binds
 * new claims and, one step after a claim grew, reports its new capacity (the resizer).
 */
import { describe, expect, it } from "vitest";
import type { PersistentVolumeClaim, Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { runReconcile } from "../../src/schedule/loop.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

const template = (name: string, storage: string, storageClassName: string) => ({
  metadata: { name },
  spec: { storageClassName, accessModes: ["ReadWriteOnce"], resources: { requests: { storage } } },
});

async function cluster(storageClassName: string, spec: Record<string, unknown> = {}) {
  let clock = Date.parse("2026-11-27T01:00:00Z");
  const now = () => new Date(clock);
  const fake = createFakeApiServer({ now, namespaces: ["default", "ordinal-system"] });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} });
  await client.create(R.storageClasses, undefined, { metadata: { name: "grows" }, provisioner: "x.io/p", allowVolumeExpansion: true });
  await client.create(R.storageClasses, undefined, { metadata: { name: "fixed" }, provisioner: "x.io/p" });
  const kubelet = new KubeletPlayer(client, { namespace: "default", now });
  await client.create(
    R.statefulSets,
    "default",
    setManifest({ replicas: 3, spec: { volumeClaimTemplates: [template("data", "1Gi", storageClassName)], volumeClaimUpdateStrategy: { type: "OnPodRollingUpdate" }, ...spec } }),
  );
  const claims = async () => await client.list<PersistentVolumeClaim>(R.pvcs, "default");
  const pods = async () => await client.list<Pod>(R.pods, "default");
  const set = async () => (await client.get<StatefulSet>(R.statefulSets, "default", "web"))!;
  /** Claims the PV controller leaves alone (kept as the test wrote them: e.g. Pending). */
  const unbound = new Set<string>();
  /** volumes plays the PV controller (binds a Pending claim at its request) and the resizer (capacity follows a grown request). */
  const volumes = async () => {
    for (const c of await claims()) {
      if (unbound.has(c.metadata!.name!)) continue;
      const request = c.spec?.resources?.requests?.storage;
      if (c.status?.phase === "Bound" && c.status.capacity?.storage === request) continue;
      await client.patch(R.pvcs, "default", c.metadata!.name!, { status: { phase: "Bound", capacity: { storage: request } } }, "merge", "status");
    }
  };
  const reconcile = () => runReconcile(client, { log: silentLogger, holder: "t", leaseNamespace: "ordinal-system", budgetMs: 60_000, idleMs: 0, maxPasses: 1, now, sleep: async () => {} });
  /** step: a pass, then the kubelet; the resizer runs first, so a claim grown in a pass is seen resizing by the next one. */
  const step = async () => {
    await volumes();
    await reconcile();
    await kubelet.step();
    clock += 1000;
  };
  const ready = async () => (await pods()).filter((p) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")).length;
  for (let i = 0; i < 15 && (await ready()) < 3; i++) await step();
  await step();
  return { client, step, claims, pods, set, ready, unbound };
}

const sizes = async (claims: () => Promise<PersistentVolumeClaim[]>) =>
  Object.fromEntries((await claims()).map((c) => [c.metadata!.name!, `${c.spec?.resources?.requests?.storage}/${c.status?.capacity?.storage}`]));

describe("a larger storage request with volumeClaimUpdateStrategy OnPodRollingUpdate", () => {
  it("grows every claim, highest ordinal first, the next only once the previous one's resize is done, with no pod restarted", async () => {
    const c = await cluster("grows");
    const uids = (await c.pods()).map((p) => p.metadata?.uid).sort();
    await c.client.patch(R.statefulSets, "default", "web", { spec: { volumeClaimTemplates: [template("data", "2Gi", "grows")] } }, "merge");
    const grownOrder: string[] = [];
    for (let i = 0; i < 20 && grownOrder.length < 3; i++) {
      await c.step();
      const s = await sizes(c.claims);
      // Never more than one claim resizing at once (maxUnavailable 1).
      expect(Object.values(s).filter((v) => v === "2Gi/1Gi").length).toBeLessThanOrEqual(1);
      for (const [name, v] of Object.entries(s)) if (v.startsWith("2Gi") && !grownOrder.includes(name)) grownOrder.push(name);
      // The claims are the rollout's: not RolloutComplete while one lags.
      const reason = (await c.set()).status?.conditions?.find((x) => x.type === "Progressing")?.reason;
      expect(reason).toBe(Object.values(s).every((v) => v === "2Gi/2Gi") ? "RolloutComplete" : "RollingUpdate");
    }
    expect(grownOrder).toEqual(["data-web-2", "data-web-1", "data-web-0"]);
    for (let i = 0; i < 3; i++) await c.step();
    expect((await c.set()).status?.volumeClaims).toEqual([{ volumeClaimName: "data", compatibleReplicas: 3, compatibleReadyReplicas: 3 }]);
    expect((await c.pods()).map((p) => p.metadata?.uid).sort()).toEqual(uids);
  });

  it("a StorageClass without allowVolumeExpansion: condition and one event, no claim written", async () => {
    const c = await cluster("fixed");
    const before = (await c.claims()).map((x) => x.metadata?.resourceVersion);
    await c.client.patch(R.statefulSets, "default", "web", { spec: { volumeClaimTemplates: [template("data", "2Gi", "fixed")] } }, "merge");
    for (let i = 0; i < 4; i++) await c.step();
    expect((await c.claims()).map((x) => x.metadata?.resourceVersion)).toEqual(before);
    const s = await c.set();
    const cond = s.status?.conditions?.find((x) => x.type === "VolumeExpansionBlocked");
    expect(cond?.status).toBe("True");
    expect(cond?.message).toContain(`claim data-web-2: StorageClass "fixed" does not allow volume expansion`);
    expect(s.status?.volumeClaims).toEqual([{ volumeClaimName: "data", compatibleReplicas: 0, compatibleReadyReplicas: 0 }]);
    const events = await c.client.list<{ reason?: string }>(R.events, "default");
    expect(events.filter((e) => e.reason === "VolumeExpansionBlocked")).toHaveLength(1);
    expect(events.filter((e) => e.reason === "FailedResize")).toHaveLength(0);
  });
});

describe("a claim to grow that is not Bound (OnPodRollingUpdate)", () => {
  it("waits for it, saying so (Progressing WaitingForClaim naming it; no deadline runs), then grows it once it is Bound", async () => {
    // 15 s of waiting with a 5 s progress deadline: the wait is not the rollout's to time out.
    const c = await cluster("grows", { progressDeadlineSeconds: 5 });
    c.unbound.add("data-web-1");
    await c.client.patch(R.pvcs, "default", "data-web-1", { status: { phase: "Pending", capacity: null } }, "merge", "status");
    await c.client.patch(R.statefulSets, "default", "web", { spec: { volumeClaimTemplates: [template("data", "2Gi", "grows")] } }, "merge");
    for (let i = 0; i < 15; i++) await c.step();
    expect(await sizes(c.claims)).toEqual({ "data-web-0": "2Gi/2Gi", "data-web-1": "1Gi/undefined", "data-web-2": "2Gi/2Gi" });
    const progressing = async () => (await c.set()).status?.conditions?.find((x) => x.type === "Progressing");
    expect(await progressing()).toMatchObject({ status: "True", reason: "WaitingForClaim" });
    expect((await progressing())?.message).toContain("claim data-web-1 is not Bound (Pending): it grows to 2Gi once it is");
    c.unbound.delete("data-web-1");
    for (let i = 0; i < 5; i++) await c.step();
    expect((await sizes(c.claims))["data-web-1"]).toBe("2Gi/2Gi");
    expect(await progressing()).toMatchObject({ status: "True", reason: "RolloutComplete" });
  });
});

describe("a claim template added to a running set (OnPodRollingUpdate)", () => {
  it("creates the new claims and recreates each pod, highest ordinal first, to mount them", async () => {
    const c = await cluster("grows");
    const before = Object.fromEntries((await c.pods()).map((p) => [p.metadata!.name!, p.metadata!.uid!]));
    await c.client.patch(
      R.statefulSets,
      "default",
      "web",
      { spec: { volumeClaimTemplates: [template("data", "1Gi", "grows"), template("logs", "1Gi", "grows")] } },
      "merge",
    );
    const recreated: string[] = [];
    for (let i = 0; i < 40 && !(recreated.length === 3 && (await c.ready()) === 3); i++) {
      await c.step();
      for (const p of await c.pods()) if (before[p.metadata!.name!] !== p.metadata!.uid && !recreated.includes(p.metadata!.name!)) recreated.push(p.metadata!.name!);
    }
    expect(recreated).toEqual(["web-2", "web-1", "web-0"]);
    const mounts = (await c.pods()).map((p) => (p.spec?.volumes ?? []).flatMap((v) => (v.persistentVolumeClaim ? [v.persistentVolumeClaim.claimName] : [])).sort());
    expect(mounts).toEqual([0, 1, 2].map((i) => [`data-web-${i}`, `logs-web-${i}`]));
    expect((await c.claims()).map((x) => x.metadata?.name).sort()).toEqual(["data-web-0", "data-web-1", "data-web-2", "logs-web-0", "logs-web-1", "logs-web-2"]);
  });
});
