/**
 * One converged pass of namespace-heap.ts's cluster in a process of its own, run by it under a
 * capped old space (`--max-old-space-size`): `tsx capped-pass.ts <url> before|whole|shard`. Runs the pass
 * twice (the first warms up) and prints the process's peak used heap; a heap that does not fit
 * ends it with V8's out-of-memory error.
 */
import { getHeapStatistics } from "node:v8";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger } from "../../src/log/log.ts";
import { apiserverFetch } from "../../src/node/apiserver-fetch.ts";
import { reconcilePass, shardOf } from "../../src/reconciler/pass.ts";
import { fullObjectPass } from "./namespace-heap.ts";

const [url, mode] = process.argv.slice(2);
const client = createKubeClient({ baseUrl: url, fetch: apiserverFetch(), sleep: async () => {} });
const now = () => new Date("2026-11-21T12:00:00Z");
const shard = mode === "shard" ? { index: shardOf("bench", 16), count: 16 } : undefined;
for (let i = 0; i < 2; i++) await (mode === "before" ? fullObjectPass(url, async () => {}) : reconcilePass(client, { now, log: silentLogger, shard }));
console.log(`heap ${(getHeapStatistics().total_heap_size / 2 ** 20).toFixed(0)} MiB at the end`);
