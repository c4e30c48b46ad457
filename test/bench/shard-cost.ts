/**
 * Issue 24's bench (run by pass-cost.ts inside `npm run bench`): the converged pass of each of 16
 * shards over 10,000 sets × 10 pods spread over 200 namespaces, and one namespace of 2,000 sets
 * × 10 pods; before (the old read path: a pass over several namespaces listed the cluster's pods,
 * claims and revisions at once and indexed them all) and after (one namespace's objects at a time),
 * side by side in one run. Warm-up, then medians; the fake apiserver runs in a child process.
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
import { compileSelector } from "../../src/validation/labels.ts";
import { fmt, measure, steadyCpu, type BenchApiServer, type Figures } from "./pass-cost.ts";
import { spawnConvergedCluster } from "./remote-fake.ts";

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
async function eachShard(server: BenchApiServer, count: number, pass: (c: KubeClient, s: Shard) => Promise<unknown>, runs: number): Promise<Figures[]> {
  const out: Figures[] = [];
  for (let index = 0; index < count; index++) out.push(await measure(server, (c) => pass(c, { index, count }), runs));
  return out;
}

const newShardPass = (c: KubeClient, shard: Shard) => reconcilePass(c, { now, log: silentLogger, shard });
const wholePass = (c: KubeClient) => reconcilePass(c, { now, log: silentLogger });
const reconcilerMs = (f: Figures) => f.cpuMs - f.fakeMs;

const medianOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sumOf = (shards: Figures[], f: (x: Figures) => number) => shards.reduce((n, x) => n + f(x), 0);

/** The CPU of one round: the 1,000-set reference's passes, then the 16 shards' passes, back to back. */
interface Round {
  reference: { reconcilerMs: number; apiserverMs: number };
  cluster: { reconcilerMs: number; apiserverMs: number };
}

/** shardsInTurn runs every shard's pass once, in turn (a cluster's round of passes). */
const shardsInTurn = (pass: (c: KubeClient, s: Shard) => Promise<unknown>) => async (c: KubeClient) => {
  for (let index = 0; index < 16; index++) await pass(c, { index, count: 16 });
};

/**
 * summary prints the worst shard (peak heap and CPU, each shard measured on its own after a
 * collected heap) and the cluster's CPU against the reference's: per round and the median round.
 */
function summary(label: string, shards: Figures[], rounds: Round[]): void {
  const worst = (f: (x: Figures) => number) => Math.max(...shards.map(f));
  const ratios = rounds.map((r) => r.cluster.reconcilerMs / r.reference.reconcilerMs);
  const mid = rounds[ratios.indexOf(medianOf(ratios))];
  const requests = sumOf(shards, (f) => Object.values(f.requests).reduce((a, b) => a + b, 0));
  console.log(
    `  ${label}: per shard max peak heap +${worst((f) => f.heapMiB).toFixed(0)} MiB (target ≤ 64), max CPU ${worst(reconcilerMs).toFixed(0)} ms (target ≤ 1,000); ` +
      `cluster CPU ${mid.cluster.reconcilerMs.toFixed(0)} ms = ${medianOf(ratios).toFixed(1)}× the 1,000-set pass beside it (${mid.reference.reconcilerMs.toFixed(0)} ms; target ≤ 11×; rounds: ${ratios.map((r) => r.toFixed(1)).join(", ")}); ` +
      `the apiserver's ${mid.cluster.apiserverMs.toFixed(0)} ms = ${(mid.cluster.apiserverMs / mid.reference.apiserverMs).toFixed(1)}× its 1,000-set figure; ${requests} requests, ${sumOf(shards, (f) => f.writes)} writes`,
  );
}

/**
 * runShardCostBench prints issue 24's figures. The fake apiserver runs in a child process (as the
 * apiserver is not the reconciler's process): CPU and peak heap are the reconciler's own, the
 * apiserver's CPU is printed beside them. Peak heap and CPU per shard: each shard's pass measured
 * on its own (warm-up, then one pass after a forced GC). The cluster's CPU against the 1,000-set
 * figure: rounds of the reference's passes (5 back to back) then the 16 shards' passes in turn,
 * as a reconciler runs them (no forced GC between passes), the median round printed with every
 * round's. (In-process, the 10,000-set fake's 300 MiB heap made every pass's GC dearer and its
 * serving CPU was counted as the reconciler's: the ratio swung from 10× to 18× with the machine's
 * load. A reference pass measured right after a forced GC cost 280 or 490 ms on a quiet machine,
 * as the heap's regrowth fell in it or not: the ratio then swung from 10× to 17×.)
 */
export async function runShardCostBench(): Promise<void> {
  const rounds = 5;
  console.log(`== issue 24: 10,000 sets × 10 pods over 200 namespaces and 16 shards, each shard's converged pass (apiserver in its own process; per shard: warm-up, then one pass after a forced GC; the cluster's CPU: ${rounds} rounds of 5 reference passes then the 16 shards in turn, median round)`);
  const small = await spawnConvergedCluster(1000, 10, 0);
  const big = await spawnConvergedCluster(10_000, 10, 200);
  const reference = await measure(small, wholePass, 3);
  const before = await eachShard(big, 16, oldShardPass, 1);
  const beforeRound: Round = { reference: await steadyCpu(small, wholePass, 5), cluster: await steadyCpu(big, shardsInTurn(oldShardPass), 1) };
  const after = await eachShard(big, 16, newShardPass, 1);
  const afterRounds: Round[] = [];
  for (let i = 0; i < rounds; i++) afterRounds.push({ reference: await steadyCpu(small, wholePass, 5), cluster: await steadyCpu(big, shardsInTurn(newShardPass), 1) });
  small.stop();
  big.stop();
  console.log(`  1,000 sets × 10 pods, one pass (after a forced GC; median of 3): ${fmt(reference)}`);
  summary("before", before, [beforeRound]);
  summary("after ", after, afterRounds);
  console.log(`  after, shard 0: ${fmt(after[0])}`);
  console.log("== issue 24: one namespace of 2,000 sets × 10 pods (the pass's peak heap is the largest namespace's)");
  {
    const one = await spawnConvergedCluster(2000, 10, 0);
    const after = await measure(one, wholePass, 3);
    one.stop();
    console.log(`  after : ${fmt(after)} (target ≤ 96 MiB)`);
  }
}
