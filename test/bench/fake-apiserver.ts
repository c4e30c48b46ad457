/**
 * The fake apiserver's speed (hooked into `npm run bench`; it was a timed unit test): requests
 * per second for pod create, status patch and get over 3,000 pods, and the latency of a paged
 * list of 500, each the median of three rounds after a warm-up round.
 */
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";

const BASE = "https://fake.local";
const PODS = "/api/v1/namespaces/default/pods";
const N = 3000;

const podBody = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers: [{ name: "c", image: "i" }] } });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** oneRound returns the requests/s of each phase and the ms of one paged list, on a fresh fake. */
async function oneRound(): Promise<{ create: number; patch: number; get: number; listMs: number }> {
  const server = createFakeApiServer();
  const rate = (ms: number) => Math.round((N / ms) * 1000);
  const t0 = performance.now();
  for (let i = 0; i < N; i++) await server.fetch(`${BASE}${PODS}`, { method: "POST", headers: { "content-type": "application/json" }, body: podBody(`p-${i}`) });
  const t1 = performance.now();
  for (let i = 0; i < N; i++) {
    await server.fetch(`${BASE}${PODS}/p-${i}/status`, { method: "PATCH", headers: { "content-type": "application/merge-patch+json" }, body: '{"status":{"phase":"Running"}}' });
  }
  const t2 = performance.now();
  for (let i = 0; i < N; i++) await server.fetch(`${BASE}${PODS}/p-${i}`);
  const t3 = performance.now();
  await server.fetch(`${BASE}${PODS}?limit=500`);
  const t4 = performance.now();
  return { create: rate(t1 - t0), patch: rate(t2 - t1), get: rate(t3 - t2), listMs: t4 - t3 };
}

/** runFakeApiServerBench prints the fake apiserver's throughput (target: > 1,000 gets/s, a 500-item page < 500 ms). */
export async function runFakeApiServerBench(): Promise<void> {
  console.log(`== fake apiserver: requests/s over ${N} pods (median of 3 after a warm-up)`);
  await oneRound();
  const rounds = [await oneRound(), await oneRound(), await oneRound()];
  const m = (k: "create" | "patch" | "get" | "listMs") => median(rounds.map((r) => r[k]));
  const get = m("get");
  const listMs = m("listMs");
  console.log(`  create ${m("create")}/s, patch status ${m("patch")}/s, get ${get}/s (target > 1000: ${get > 1000 ? "ok" : "MISSED"}); list limit=500: ${listMs.toFixed(1)} ms (target < 500: ${listMs < 500 ? "ok" : "MISSED"})`);
}
