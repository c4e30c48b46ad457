/**
 * `npm run bench`: figures measured side by side in one run.
 * 1. Planner time per call for sets of growing size (steady state, nothing to do), and the
 *    ratio to the smallest: the planner should scale linearly with pods.
 * 2. One reconcile pass over many sets against the in-process fake apiserver: apiserver
 *    requests per pass with each kind listed once, versus listing per set (what a naive
 *    reconciler does) — the Worker's subrequest budget depends on this ratio.
 * 3. Heap used by the planner's inputs and outputs for the largest set.
 * 4. Pre-warm: a simulated 10-pod in-place release with pull delays, with and without imagePrewarm (prewarm.ts).
 */
import type { ControllerRevision, Pod } from "../../src/api/k8s.ts";
import { StatefulSetSchema, type StatefulSet } from "../../src/api/statefulset.ts";
import { newStatefulSetPod } from "../../src/objects/pod.ts";
import { plan } from "../../src/core/planner.ts";
import { newRevision } from "../../src/core/revisions.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";

const now = new Date("2026-11-21T12:00:00Z");

function steadySet(replicas: number): { set: StatefulSet; pods: Pod[]; revisions: ControllerRevision[] } {
  const set = StatefulSetSchema.parse({
    metadata: { name: "web", namespace: "ns", uid: "u", generation: 1 },
    spec: {
      replicas,
      selector: { matchLabels: { app: "web" } },
      serviceName: "web",
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "img:1", env: [{ name: "A", value: "1" }] }] } },
    },
  });
  const rev = { ...newRevision(set, 1, 0), metadata: { ...newRevision(set, 1, 0).metadata, uid: "r" } };
  const pods = Array.from({ length: replicas }, (_, i) => {
    const p = newStatefulSetPod(set, i, rev.metadata!.name!);
    p.metadata!.uid = `p${i}`;
    p.status = { phase: "Running", conditions: [{ type: "Ready", status: "True" }, { type: "InPlaceUpdateReady", status: "True" }] };
    return p;
  });
  const first = plan({ set, pods, claims: [], revisions: [rev], now });
  set.status = first.status;
  return { set, pods, revisions: [rev] };
}

function time(fn: () => void, minMs = 300): number {
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < minMs) {
    fn();
    n++;
  }
  return (performance.now() - start) / n;
}

console.log("== planner, steady state (no actions), time per plan() call");
const sizes = [10, 100, 1000];
const base: number[] = [];
for (const n of sizes) {
  const { set, pods, revisions } = steadySet(n);
  const ms = time(() => plan({ set, pods, claims: [], revisions, now }));
  base.push(ms);
  console.log(`  ${String(n).padStart(5)} pods: ${(ms * 1000).toFixed(1).padStart(9)} µs/plan   ${(ms * 1000 / n).toFixed(2)} µs/pod   ratio to 10 pods: ${(ms / base[0]).toFixed(1)}x (pods ratio ${n / 10}x)`);
}

console.log("== one pass over many sets on the fake apiserver: requests, list-once vs list-per-set");
for (const sets of [10, 50]) {
  const fake = createFakeApiServer();
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch });
  for (let i = 0; i < sets; i++) {
    await client.create(R.statefulSets, "default", {
      apiVersion: "apps.ordinal.dev/v1",
      kind: "StatefulSet",
      metadata: { name: `s${i}`, namespace: "default" },
      spec: { replicas: 2, selector: { matchLabels: { app: `s${i}` } }, template: { metadata: { labels: { app: `s${i}` } }, spec: { containers: [{ name: "c", image: "img" }] } } },
    });
  }
  // Warm up to a steady state where each set waits on pods (no writes), then measure one pass.
  for (let i = 0; i < 3; i++) await reconcilePass(client, { now: () => now, log: silentLogger });
  const before = client.requestCount;
  const t0 = performance.now();
  await reconcilePass(client, { now: () => now, log: silentLogger });
  const listOnce = client.requestCount - before;
  const ms = performance.now() - t0;
  // Naive: list pods, claims and revisions per set (3 per set + the set list).
  const naive = 1 + 3 * sets;
  console.log(`  ${String(sets).padStart(3)} sets: ${listOnce} requests/pass (list once) vs ${naive} (list per set): ${(naive / listOnce).toFixed(1)}x fewer; pass took ${ms.toFixed(1)} ms`);
}

console.log("== memory: heap retained by plans, steady 1000-pod set vs one that must create 1000 pods (Parallel)");
{
  const measure = (mk: () => unknown) => {
    globalThis.gc?.();
    const h0 = process.memoryUsage().heapUsed;
    const keep = Array.from({ length: 10 }, mk);
    globalThis.gc?.();
    const h1 = process.memoryUsage().heapUsed;
    return { perPlan: Math.max(0, h1 - h0) / keep.length };
  };
  const steady = steadySet(1000);
  const s1 = measure(() => plan({ set: steady.set, pods: steady.pods, claims: [], revisions: steady.revisions, now }));
  const fresh = StatefulSetSchema.parse({ ...steady.set, status: undefined, spec: { ...steady.set.spec, podManagementPolicy: "Parallel" } });
  const s2 = measure(() => plan({ set: fresh, pods: [], claims: [], revisions: steady.revisions, now }));
  if (!globalThis.gc) console.log("  (run through npm run bench: --expose-gc makes these figures exact)");
  console.log(`  steady: ${(s1.perPlan / 1024).toFixed(1)} KiB/plan; creating 1000 pods: ${(s2.perPlan / 1024 / 1024).toFixed(2)} MiB/plan (${(s2.perPlan / 1000 / 1024).toFixed(2)} KiB/pod); pod JSON in: ${(JSON.stringify(steady.pods).length / 1024).toFixed(0)} KiB`);
}

console.log("== Worker bundle (what wrangler uploads): minified vs not, gzip, side by side");
{
  const { build } = await import("esbuild");
  const { gzipSync } = await import("node:zlib");
  const sizes: Record<string, { raw: number; gz: number }> = {};
  for (const minify of [false, true]) {
    const r = await build({ entryPoints: ["src/worker/index.ts"], bundle: true, format: "esm", platform: "neutral", mainFields: ["module", "main"], minify, write: false, external: ["node:*"], logLevel: "silent" });
    const code = r.outputFiles[0].contents;
    sizes[minify ? "minified" : "plain"] = { raw: code.length, gz: gzipSync(code).length };
  }
  const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  console.log(`  plain: ${kib(sizes.plain.raw)} (gzip ${kib(sizes.plain.gz)}); minified: ${kib(sizes.minified.raw)} (gzip ${kib(sizes.minified.gz)}); minify saves ${(sizes.plain.raw / sizes.minified.raw).toFixed(1)}x; Workers limit 3 MiB gzip (free): ${((sizes.minified.gz / (3 * 1024 * 1024)) * 100).toFixed(1)}% used`);
}
await (await import("./prewarm.ts")).runPrewarmBench();
await (await import("./admission.ts")).runAdmissionBench();
await (await import("./pass-cost.ts")).runPassCostBench();
await (await import("./fake-apiserver.ts")).runFakeApiServerBench();
