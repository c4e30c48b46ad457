/**
 * Issue 24's bench (run by pass-cost.ts inside `npm run bench`): the converged pass of each of 16
 * shards over 10,000 sets × 10 pods spread over 200 namespaces, and one namespace of 2,000 sets
 * × 10 pods; before (the old read path: a pass over several namespaces listed the cluster's pods,
 * claims and revisions at once and indexed them all) and after (one namespace's objects at a time),
 * side by side in one run. Warm-up, then medians; figures include the fake apiserver's CPU.
 */
import type { ControllerRevision, PersistentVolumeClaim, Pod } from "../../src/api/k8s.ts";
import { StatefulSetSchema } from "../../src/api/statefulset.ts";
import { plan } from "../../src/core/planner.ts";
import type { KubeClient, KubeObject } from "../../src/kube/client.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { SET_NAME_LABEL } from "../../src/objects/constants.ts";
import { indexObjects } from "../../src/reconciler/pass-index.ts";
import { reconcilePass, shardOf } from "../../src/reconciler/pass.ts";
import type { FakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { compileSelector } from "../../src/validation/labels.ts";
import { convergedCluster, fmt, measure, type Figures } from "./pass-cost.ts";

const NOW = new Date("2026-11-21T12:00:00Z");
const now = () => NOW;
type Shard = { index: number; count: number };

/** oldShardPass is the read path before issue 24 for a shard of several namespaces: every managed object of the cluster listed and indexed at once, then each set planned. */
async function oldShardPass(client: KubeClient, shard: Shard): Promise<number> {
  const sets = (await client.list<KubeObject>(R.statefulSets, undefined, { limit: 5000 })).filter((s) => shardOf(s.metadata?.namespace ?? "", shard.count) === shard.index);
  const opts = { labelSelector: SET_NAME_LABEL, limit: 5000 };
  const [pods, claims, revisions] = await Promise.all([
    client.list<Pod & KubeObject>(R.pods, undefined, opts),
    client.list<PersistentVolumeClaim & KubeObject>(R.pvcs, undefined, opts),
    client.list<ControllerRevision & KubeObject>(R.controllerRevisions, undefined, opts),
  ]);
  const index = indexObjects(pods, claims, revisions, []);
  let actions = 0;
  for (const raw of sets) {
    const set = StatefulSetSchema.parse(raw);
    actions += plan({ set, ...index.objectsFor(set), now: NOW, matches: compileSelector(set.spec.selector) }).actions.length;
  }
  return actions;
}

/** eachShard measures every shard's pass and returns the figures per shard. */
async function eachShard(fake: FakeApiServer, count: number, pass: (c: KubeClient, s: Shard) => Promise<unknown>, runs: number): Promise<Figures[]> {
  const out: Figures[] = [];
  for (let index = 0; index < count; index++) out.push(await measure(fake, (c) => pass(c, { index, count }), runs));
  return out;
}

const newShardPass = (c: KubeClient, shard: Shard) => reconcilePass(c, { now, log: silentLogger, shard });

/** summary prints the worst shard and the cluster's sum. */
function summary(label: string, shards: Figures[], oneThousandCpuMs: number): void {
  const worst = (f: (x: Figures) => number) => Math.max(...shards.map(f));
  const cpu = shards.reduce((n, f) => n + f.cpuMs, 0);
  const writes = shards.reduce((n, f) => n + f.writes, 0);
  const requests = shards.reduce((n, f) => n + Object.values(f.requests).reduce((a, b) => a + b, 0), 0);
  console.log(
    `  ${label}: per shard max peak heap +${worst((f) => f.heapMiB).toFixed(0)} MiB (target ≤ 64), max CPU ${worst((f) => f.cpuMs).toFixed(0)} ms (target ≤ 1,000); cluster CPU ${cpu.toFixed(0)} ms = ${(cpu / oneThousandCpuMs).toFixed(1)}× the 1,000-set figure (target ≤ 11×); ${requests} requests, ${writes} writes`,
  );
}

export async function runShardCostBench(oneThousandCpuMs: number): Promise<void> {
  console.log("== issue 24: 10,000 sets × 10 pods over 200 namespaces and 16 shards, each shard's converged pass (warm-up, then median of 3; before: median of 1)");
  {
    const fake = convergedCluster(10_000, 10, 0, 200);
    const after = await eachShard(fake, 16, newShardPass, 3);
    const before = await eachShard(fake, 16, oldShardPass, 1);
    summary("before", before, oneThousandCpuMs);
    summary("after ", after, oneThousandCpuMs);
    console.log(`  after, shard 0: ${fmt(after[0])}`);
    // The fake apiserver runs in the reconciler's process: its 100,000 pods make every pass's GC
    // dearer, and its CPU (serving the lists) is counted. The 1,000-set pass measured beside them
    // (same heap), and each share on its own, say where the ratio above comes from.
    const sameHeap = await measure(convergedCluster(1000, 10), (c) => reconcilePass(c, { now, log: silentLogger }), 3);
    if (fake.list("/api/v1/namespaces").length === 0) throw new Error("the 10,000-set fake is gone"); // kept alive through the measure above
    const sum = (f: (x: Figures) => number) => after.reduce((n, x) => n + f(x), 0);
    const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}×`;
    console.log(`  the 1,000-set pass measured with this 10,000-set fake resident: ${fmt(sameHeap)}`);
    console.log(
      `          → cluster CPU ${ratio(sum((f) => f.cpuMs), sameHeap.cpuMs)} that figure: the reconciler's share ${ratio(sum((f) => f.cpuMs - f.fakeMs), sameHeap.cpuMs - sameHeap.fakeMs)}, the fake apiserver's ${ratio(sum((f) => f.fakeMs), sameHeap.fakeMs)} (${sum((f) => Object.values(f.requests).reduce((a, b) => a + b, 0))} requests vs ${Object.values(sameHeap.requests).reduce((a, b) => a + b, 0)})`,
    );
  }
  console.log("== issue 24: one namespace of 2,000 sets × 10 pods (the pass's peak heap is the largest namespace's)");
  {
    const fake = convergedCluster(2000, 10);
    const after = await measure(fake, (c) => reconcilePass(c, { now, log: silentLogger }), 3);
    console.log(`  after : ${fmt(after)} (target ≤ 96 MiB)`);
  }
}
