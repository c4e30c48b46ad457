/**
 * `ordinal rollout restart` under InPlaceIfPossible (issue 21): the restartedAt template annotation
 * is not applied in place, the pods are recreated (new UIDs, so new containers), one at a time
 * under maxUnavailable 1, and partition and pause hold as for any recreate.
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { runReconcile } from "../../src/schedule/loop.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

const RESTART = { spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": "2026-11-27T02:00:00Z" } } } } };

async function cluster(rollingUpdate: Record<string, unknown>) {
  let clock = Date.parse("2026-11-27T01:00:00Z");
  const now = () => new Date(clock);
  const fake = createFakeApiServer({ now, namespaces: ["default", "ordinal-system"] });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} });
  const kubelet = new KubeletPlayer(client, { namespace: "default", now });
  await client.create(R.statefulSets, "default", setManifest({ replicas: 3, spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible", ...rollingUpdate } } } }));
  const pods = async () => await client.list<Pod>(R.pods, "default");
  /** step: one reconcile pass, then one kubelet step; returns how many of the 3 replicas were unavailable in between. */
  const step = async (): Promise<number> => {
    await runReconcile(client, { log: silentLogger, holder: "t", leaseNamespace: "ordinal-system", budgetMs: 60_000, idleMs: 0, maxPasses: 1, now, sleep: async () => {} });
    const ready = (await pods()).filter((p) => !p.metadata?.deletionTimestamp && p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")).length;
    await kubelet.step();
    clock += 1000;
    return 3 - ready;
  };
  const readyPods = async () => (await pods()).filter((p) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")).length;
  for (let i = 0; i < 12 && (await readyPods()) < 3; i++) await step();
  const uids = async () => Object.fromEntries((await pods()).map((p) => [p.metadata!.name!, p.metadata!.uid!]));
  const containerIDs = async () => Object.fromEntries((await pods()).map((p) => [p.metadata!.name!, p.status?.containerStatuses?.[0]?.containerID]));
  return { client, step, uids, pods, containerIDs };
}

describe("rollout restart under InPlaceIfPossible", () => {
  it("recreates every pod, one at a time with maxUnavailable 1, and updates none in place", async () => {
    const c = await cluster({ maxUnavailable: 1 });
    const before = await c.uids();
    const containersBefore = await c.containerIDs();
    expect(Object.keys(before).sort()).toEqual(["web-0", "web-1", "web-2"]);
    await c.client.patch(R.statefulSets, "default", "web", RESTART, "merge");
    let worst = 0;
    for (let i = 0; i < 40; i++) {
      const unavailable = await c.step();
      worst = Math.max(worst, unavailable);
      const now = await c.uids();
      if (unavailable === 0 && Object.keys(before).every((n) => now[n] && now[n] !== before[n])) break;
    }
    const after = await c.uids();
    expect(Object.keys(after).sort()).toEqual(["web-0", "web-1", "web-2"]);
    const containersAfter = await c.containerIDs();
    for (const name of Object.keys(before)) {
      expect(after[name], name).not.toBe(before[name]);
      expect(containersAfter[name], name).toMatch(/^sim:\/\//);
      expect(containersAfter[name], name).not.toBe(containersBefore[name]);
    }
    expect(worst).toBe(1);
    for (const p of await c.pods()) expect(p.metadata?.annotations?.["kubectl.kubernetes.io/restartedAt"]).toBe("2026-11-27T02:00:00Z");
  });

  it("honours the partition: only ordinals at or above it restart", async () => {
    const c = await cluster({ partition: 2 });
    const before = await c.uids();
    await c.client.patch(R.statefulSets, "default", "web", RESTART, "merge");
    for (let i = 0; i < 20 && (await c.uids())["web-2"] === before["web-2"]; i++) await c.step();
    for (let i = 0; i < 4; i++) await c.step();
    const after = await c.uids();
    expect([after["web-0"] === before["web-0"], after["web-1"] === before["web-1"], after["web-2"] === before["web-2"]]).toEqual([true, true, false]);
  });

  it("a paused rollout restarts nothing", async () => {
    const c = await cluster({ paused: true });
    const before = await c.uids();
    await c.client.patch(R.statefulSets, "default", "web", RESTART, "merge");
    for (let i = 0; i < 6; i++) await c.step();
    expect(await c.uids()).toEqual(before);
  });
});
