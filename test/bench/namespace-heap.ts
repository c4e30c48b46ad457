/**
 * Issue 35's bench (run by pass-cost.ts inside `npm run bench`): the peak heap of one converged
 * pass over one namespace of 10,000 sets × 10 pods (target ≤ 64 MiB), on Node (the whole pass)
 * and in a Worker shard (the pass of the shard that owns the namespace, RECONCILE_SHARDS 16, as
 * the Durable Object runs it), side by side with the full-object path: every managed object of
 * the namespace listed whole (a page parsed at once, nothing projected) and indexed, then each
 * set planned, as the pass did before (issue 35: +153 MiB here, +281 MiB with the apiserver in
 * the same process). The apiserver runs in a child process (fake-process.ts). The heap is sampled
 * as each body chunk arrives and before each set is planned (the pass's beforeSet), after a
 * forced GC; figures are the pass's growth over that baseline. Warm-up, then the median of 3.
 */
import { getHeapStatistics } from "node:v8";
import type { ControllerRevision, PersistentVolumeClaim, Pod } from "../../src/api/k8s.ts";
import { StatefulSetSchema } from "../../src/api/statefulset.ts";
import { plan } from "../../src/core/planner.ts";
import type { KubeClient, KubeObject } from "../../src/kube/client.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R, resourcePath } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { SET_NAME_LABEL } from "../../src/objects/constants.ts";
import { apiserverFetch } from "../../src/node/apiserver-fetch.ts";
import { indexObjects } from "../../src/reconciler/pass-index.ts";
import { reconcilePass, shardOf } from "../../src/reconciler/pass.ts";
import { compileSelector } from "../../src/validation/labels.ts";
import { spawnConvergedCluster } from "./remote-fake.ts";

const NOW = new Date("2026-11-21T12:00:00Z");
const now = () => NOW;
const NS = "bench";
const MiB = 2 ** 20;

/** A heap sampler: the peak used heap seen since reset. */
const sampler = {
  peak: 0,
  sample() {
    this.peak = Math.max(this.peak, getHeapStatistics().used_heap_size);
  },
};

/** sampledFetch is the shipped Node transport, sampling the heap as each chunk of a body arrives. */
function sampledFetch(): typeof fetch {
  const send = apiserverFetch();
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const res = await send(input, init);
    sampler.sample();
    if (!res.body) return res;
    const body = res.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ transform: (chunk, c) => (sampler.sample(), c.enqueue(chunk)) }));
    return new Response(body, { status: res.status, headers: res.headers });
  }) as typeof fetch;
}

/** listWhole lists a namespace's objects as the pass did before issue 35: each page parsed whole (res.json()), every field kept. */
async function listWhole<T>(url: string, path: string, selector: string): Promise<T[]> {
  const fetch = sampledFetch();
  const items: T[] = [];
  let cont = "";
  do {
    const res = await fetch(`${url}${path}?labelSelector=${encodeURIComponent(selector)}&limit=5000${cont ? `&continue=${encodeURIComponent(cont)}` : ""}`);
    const page = (await res.json()) as { items: T[]; metadata?: { continue?: string } };
    sampler.sample();
    items.push(...page.items);
    cont = page.metadata?.continue ?? "";
  } while (cont);
  return items;
}

/** fullObjectPass is the read path before issue 35: the namespace's sets and managed objects whole, indexed, then each set planned. */
export async function fullObjectPass(url: string, beforeSet: () => Promise<void>): Promise<void> {
  const sets = await listWhole<KubeObject>(url, resourcePath(R.statefulSets, NS), "");
  const [pods, claims, revisions] = await Promise.all([
    listWhole<Pod>(url, resourcePath(R.pods, NS), SET_NAME_LABEL),
    listWhole<PersistentVolumeClaim>(url, resourcePath(R.pvcs, NS), SET_NAME_LABEL),
    listWhole<ControllerRevision>(url, resourcePath(R.controllerRevisions, NS), SET_NAME_LABEL),
  ]);
  const index = indexObjects(pods, claims, revisions, []);
  for (const raw of sets) {
    await beforeSet();
    const set = StatefulSetSchema.parse(raw);
    plan({ set, ...index.objectsFor(set), now: NOW, matches: compileSelector(set.spec.selector) });
  }
}

/** Heap figures of a pass (MiB over the collected baseline): peak used (sampled per body chunk and per set, V8 collecting at its own pace) and peak live (after a forced GC every 250 sets). */
interface HeapFigures {
  used: number;
  live: number;
}

/** heapOf runs `pass` once to warm up, then `runs` times after a forced GC, and returns the median figures; `pass` gets the beforeSet hook that samples. */
async function heapOf(pass: (beforeSet: () => Promise<void>) => Promise<unknown>, runs = 3): Promise<HeapFigures> {
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  await pass(async () => {});
  const used: number[] = [];
  const live: number[] = [];
  for (let i = 0; i < runs; i++) {
    globalThis.gc?.();
    const base = getHeapStatistics().used_heap_size;
    sampler.peak = base;
    await pass(async () => sampler.sample());
    used.push((sampler.peak - base) / MiB);
    let sets = 0;
    let peakLive = base;
    globalThis.gc?.();
    await pass(async () => {
      if (sets++ % 250 !== 0) return;
      globalThis.gc?.();
      peakLive = Math.max(peakLive, getHeapStatistics().used_heap_size);
    });
    live.push((peakLive - base) / MiB);
  }
  return { used: median(used), live: median(live) };
}

/** cappedRun runs a pass (`mode`: the full-object path, the whole pass, a Worker shard's) in a child process whose old space is capped at `mb` MiB; returns "completed" or why not. */
async function cappedRun(url: string, mode: "before" | "whole" | "shard", mb: number): Promise<string> {
  const { spawnSync } = await import("node:child_process");
  const { fileURLToPath } = await import("node:url");
  const script = fileURLToPath(new URL("./capped-pass.ts", import.meta.url));
  const r = spawnSync(process.execPath, [`--max-old-space-size=${mb}`, "--import", "tsx", script, url, mode], { encoding: "utf8" });
  return r.status === 0 ? `completed (${r.stdout.trim()})` : `failed (exit ${r.status}${/heap out of memory/i.test(r.stderr) ? ": heap out of memory" : ""})`;
}

const fmtHeap = (f: HeapFigures) => `peak heap +${f.used.toFixed(0)} MiB as V8 collects at its own pace, +${f.live.toFixed(0)} MiB live (target ≤ 64)`;

export async function runNamespaceHeapBench(): Promise<void> {
  console.log("== issue 35: one namespace of 10,000 sets × 10 pods, heap of its converged pass (apiserver in its own process; heap sampled per body chunk and per set, live after a forced GC every 250 sets; warm-up, then median of 3)");
  if (!globalThis.gc) console.log("  (run through npm run bench: --expose-gc makes these figures exact)");
  const server = await spawnConvergedCluster(10_000, 10, 0);
  try {
    const client: KubeClient = createKubeClient({ baseUrl: server.url, fetch: sampledFetch(), sleep: async () => {} });
    const shard = { index: shardOf(NS, 16), count: 16 };
    const before = await heapOf((beforeSet) => fullObjectPass(server.url, beforeSet));
    const node = await heapOf((beforeSet) => reconcilePass(client, { now, log: silentLogger, beforeSet }));
    const worker = await heapOf((beforeSet) => reconcilePass(client, { now, log: silentLogger, beforeSet, shard }));
    console.log(`  before (full objects, pages parsed whole, the namespace at once): ${fmtHeap(before)}`);
    console.log(`  after, Node (the whole pass): ${fmtHeap(node)}`);
    console.log(`  after, Worker shard ${shard.index} of ${shard.count} (the shard that owns the namespace): ${fmtHeap(worker)}`);
    // A process's own heap (modules, settings) is ~20 MiB: the cap leaves the pass 64.
    const cap = 84;
    console.log(`  under a hard cap (--max-old-space-size=${cap}: a process's ~20 MiB plus 64): before: ${await cappedRun(server.url, "before", cap)}; after, Node: ${await cappedRun(server.url, "whole", cap)}; Worker shard: ${await cappedRun(server.url, "shard", cap)}`);
  } finally {
    server.stop();
  }
}
