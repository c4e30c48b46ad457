/**
 * The Worker's shards through `wrangler dev` on the real apiserver (issue 24): with
 * RECONCILE_SHARDS=4 each shard's Durable Object takes its own Lease `ordinal-reconciler-<i>-of-4`
 * and the sets of its namespaces converge (the cron tick, `/__scheduled`, pokes every shard; their
 * alarms run the rest). Then the Worker restarts with RECONCILE_SHARDS=2 (same Durable Object
 * state): the 4-shard Leases were never released (a stopped wrangler dev cannot), so the 2-shard
 * objects act for nothing — a set created meanwhile gets no pod — until they have seen those Leases
 * unrenewed for their duration (30 s); then they release them, take `ordinal-reconciler-<i>-of-2`,
 * and every set, the new one too, is theirs. No webhooks are registered: only the tick and the
 * alarms reconcile here.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Lease } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { R } from "../../src/kube/resources.ts";
import { shardOf } from "../../src/reconciler/pass.ts";
import { shardLeaseName } from "../../src/lease/shard-leases.ts";
import type { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { setManifest } from "../support/fixtures.ts";
import { startApiProxy, startWorker, waitHealthy, webhookFetch, WORKER_URL, type Running } from "./servers.ts";
import { admin, kubeletFor, kubectl, listPods, newNamespace, setupCluster, sleep } from "./support.ts";

const LEASE_NS = "ordinal-system";
const state = mkdtempSync(join(tmpdir(), "ordinal-worker-shards-"));
let proxy: Running | undefined;
let worker: Running | undefined;

beforeAll(setupCluster);
afterAll(async () => {
  await worker?.stop();
  await proxy?.stop();
  rmSync(state, { recursive: true, force: true });
  deleteShardLeases();
});

/** deleteShardLeases removes every sharded reconciler Lease (an earlier file's would be another count's, live for its duration). */
function deleteShardLeases(): void {
  const names = kubectl(["-n", LEASE_NS, "get", "leases", "-o", "jsonpath={.items[*].metadata.name}"]).split(/\s+/).filter((n) => /^ordinal-reconciler-\d+-of-\d+$/.test(n));
  if (names.length) kubectl(["-n", LEASE_NS, "delete", "lease", ...names, "--ignore-not-found"]);
}

const holderOf = async (name: string) => (await admin.get<Lease>(R.leases, LEASE_NS, name))?.spec?.holderIdentity ?? "";
/** isShardHolder is true when `holder` is shard `i`'s object's own identity (`ordinal-worker-<i>-<8 hex digits>`, kept in its storage). */
const isShardHolder = (holder: string, i: number) => new RegExp(`^ordinal-worker-${i}-[0-9a-f]{8}$`).test(holder);

/** poke sends the cron tick (`/__scheduled`): every shard's object runs its full pass (a closed kept-alive socket is retried once). */
async function poke(): Promise<void> {
  const tick = () => webhookFetch(`${WORKER_URL}/__scheduled?cron=*+*+*+*+*`);
  const res = await tick().catch((e: unknown) => ((e as { cause?: { code?: string } }).cause?.code === "UND_ERR_SOCKET" ? tick() : Promise.reject(e)));
  expect(res.status, worker?.output().slice(-3000)).toBe(200);
}

/** start runs the Worker with `shards` shards and sends the first tick; a restart keeps the Leases the last run left. */
async function start(shards: number, restart = false): Promise<void> {
  worker = startWorker("http://127.0.0.1:28789", { vars: { RECONCILE_SHARDS: String(shards), RECONCILE_INTERVAL_MS: "2000" }, persistTo: state, keepLeases: restart });
  await waitHealthy(WORKER_URL, worker, 120_000);
  await poke();
}

/** converged is true when the set's one pod is Ready as its status says, for its generation. */
async function converged(ns: string, name: string): Promise<boolean> {
  const set = await admin.get<StatefulSet>(R.statefulSets, ns, name);
  return set?.status?.readyReplicas === 1 && set.status.observedGeneration === set.metadata.generation;
}

/** until polls `done` (playing the kubelet of the namespaces between looks) and fails with `what` after `ms`. */
async function until(what: string, ms: number, kubelets: KubeletPlayer[], done: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`${what} not within ${ms} ms\n${worker?.output().slice(-4000)}`);
    for (const k of kubelets) await k.step();
    await sleep(500);
  }
}

const createSet = (ns: string, name: string) => admin.create(R.statefulSets, ns, setManifest({ namespace: ns, name, replicas: 1, policy: "Parallel" }));

describe("the Worker's shards under wrangler dev", () => {
  it("4 shards each hold their own Lease and converge their namespaces; restarted with 2, nothing acts until the 4-shard Leases expire, then the 2 shards take every set", async () => {
    deleteShardLeases();
    proxy = startApiProxy(28789);
    // Namespaces until every one of the 4 shards has one (FNV-1a of the name; at most a few extra).
    const namespaces: string[] = [];
    while (new Set(namespaces.map((n) => shardOf(n, 4))).size < 4 && namespaces.length < 24) namespaces.push(await newNamespace("wshard"));
    expect(new Set(namespaces.map((n) => shardOf(n, 4))).size).toBe(4);
    for (const ns of namespaces) await createSet(ns, "web");
    const kubelets = namespaces.map((ns) => kubeletFor(ns));

    await start(4);
    await until("4 shards' Leases held and every set converged", 60_000, kubelets, async () => {
      const holders = await Promise.all([0, 1, 2, 3].map((i) => holderOf(shardLeaseName(i, 4))));
      return holders.every(isShardHolder) && (await Promise.all(namespaces.map((ns) => converged(ns, "web")))).every(Boolean);
    });
    expect(await holderOf(shardLeaseName(0, 2))).toBe("");

    // Restart with 2 shards: the 4-shard Leases stay as the stopped Worker left them (held).
    await worker!.stop();
    const held4 = await Promise.all([0, 1, 2, 3].map((i) => holderOf(shardLeaseName(i, 4))));
    expect(held4.every(isShardHolder), held4.join(", ")).toBe(true);
    await start(2, true);
    const lateNs = namespaces[0];
    await createSet(lateNs, "late");
    let firstPodAt: number | undefined;
    let liveOldLeasesAtFirstPod: string[] = [];
    await until("the 2 shards' Leases held and the set created after the restart converged", 75_000, kubelets, async () => {
      if (firstPodAt === undefined && (await listPods(lateNs)).some((p) => p.metadata?.name === "late-0")) {
        firstPodAt = Date.now();
        liveOldLeasesAtFirstPod = (await Promise.all([0, 1, 2, 3].map(async (i) => [i, await holderOf(shardLeaseName(i, 4))] as const))).filter(([, h]) => h).map(([i, h]) => `${i}-of-4=${h}`);
      }
      // The cron tick every few seconds, as the minute's tick would (an alarm does it too).
      await poke();
      const holders = await Promise.all([0, 1].map((i) => holderOf(shardLeaseName(i, 2))));
      return holders.every(isShardHolder) && (await converged(lateNs, "late"));
    });
    // No shard of the new count acted while the old count's Leases were live: the first pod of the
    // set created after the restart came after the 2 shards had seen them unrenewed for 30 s (and
    // released them), never from a shard of each count.
    expect(liveOldLeasesAtFirstPod).toEqual([]);
    expect(worker!.output()).toMatch(/reconciler Leases of another shard count are live/);
    for (const ns of namespaces) expect(await converged(ns, "web")).toBe(true);
  }, 240_000);
});
