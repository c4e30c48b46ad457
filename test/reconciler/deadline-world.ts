/**
 * The world of the progress-deadline tests: a set on the fake apiserver, the kubelet player and
 * reconcile passes on one clock (deadline-pass.test.ts, blocker-pass.test.ts).
 */
import { expect } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { runReconcile } from "../../src/schedule/loop.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

/** The image that never works (its pull fails, or it never becomes Ready). */
export const BAD = "img:bad";

/**
 * cluster returns a converged set of 3 (img:1, progressDeadlineSeconds 10 and `spec`) on the fake
 * apiserver with the kubelet player, one clock for all, and the means to drive it: `pass` (one
 * reconcile pass alone), `passes` (several, a second apart), `step` (a pass, a kubelet step, a second), `advance` (time alone).
 */
export async function cluster(spec: Record<string, unknown>, o: { policy?: "OrderedReady" | "Parallel"; bad?: "pull" | "unready" } = {}) {
  let clock = Date.parse("2026-11-27T01:00:00Z");
  const now = () => new Date(clock);
  const fake = createFakeApiServer({ now, namespaces: ["default", "ordinal-system"] });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} });
  const isBad = (image: string) => image === BAD;
  const kubelet = new KubeletPlayer(client, { namespace: "default", now, ...(o.bad === "unready" ? { unreadyImages: isBad } : { pullFails: isBad }) });
  await client.create(R.statefulSets, "default", setManifest({ replicas: 3, policy: o.policy, spec: { progressDeadlineSeconds: 10, ...spec } }));
  const get = async () => (await client.get<StatefulSet>(R.statefulSets, "default", "web"))!;
  const pods = async () => await client.list<Pod>(R.pods, "default");
  let requeues: (number | undefined)[] = [];
  /** pass: one reconcile pass, nothing else (no kubelet, no time). */
  const pass = async () => {
    const r = await runReconcile(client, { log: silentLogger, holder: "t", leaseNamespace: "ordinal-system", budgetMs: 60_000, idleMs: 0, maxPasses: 1, now, sleep: async () => {} });
    requeues.push(...r.passes.map((p) => p.requeueAfterMs));
  };
  /** step: one reconcile pass, then one kubelet step, then a second passes. */
  const step = async () => {
    await pass();
    await kubelet.step();
    clock += 1000;
  };
  const advance = (ms: number) => (clock += ms);
  /** passes: `n` reconcile passes a second apart, no kubelet. */
  const passes = async (n: number) => {
    for (let i = 0; i < n; i++) {
      await pass();
      clock += 1000;
    }
  };
  const allReadyAt = async (image: string) => {
    const ps = await pods();
    return ps.length === 3 && ps.every((p) => !p.metadata?.deletionTimestamp && p.spec?.containers[0].image === image && p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"));
  };
  for (let i = 0; i < 15 && !(await allReadyAt("img:1")); i++) await step();
  expect(await allReadyAt("img:1")).toBe(true);
  for (let i = 0; i < 3; i++) await step();
  requeues = [];
  const setImage = (image: string) => client.patch(R.statefulSets, "default", "web", { spec: { template: { spec: { containers: [{ name: "c", image }] } } } }, "merge");
  const progressing = async () => (await get()).status?.conditions?.find((c) => c.type === "Progressing");
  return { client, fake, now, pass, passes, kubelet, advance, step, get, pods, allReadyAt, setImage, progressing, requeues: () => requeues, events: () => client.list<{ reason?: string; message?: string }>(R.events, "default") };
}

/** rolling returns a RollingUpdate strategy with `rollingUpdate`. */
export const rolling = (rollingUpdate: Record<string, unknown>) => ({ updateStrategy: { type: "RollingUpdate", rollingUpdate } });
