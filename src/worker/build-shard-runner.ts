/**
 * buildShardRunner wires a ShardReconciler Durable Object (src/worker/shard-object.ts) to the reconciler:
 * the Worker's apiserver client, its settings, and registration repair on shard 0's full passes.
 * Loaded on the object's first event.
 */
import { isAnnouncedWrite } from "../admission/wakes.ts";
import { holderIdentity, type KeptIdentity } from "../lease/identity.ts";
import { jsonLogger } from "../log/log.ts";
import type { AnnouncedWrite } from "../objects/announced-write.ts";
import { ShardRunner, type ShardStore } from "../schedule/shard-runner.ts";
import { settingsFrom } from "../runtime-config.ts";
import { setting } from "../settings.ts";
import { buildReconciler } from "../reconciler-stack.ts";
import { objectBudgetFor } from "../reconciler/namespace-budget.ts";
import { clientFor, varsOf, type Env } from "./env.ts";
import { workerReconcileSettingsFrom } from "./settings.ts";

/** A Worker isolate's memory limit (MB). */
const WORKER_ISOLATE_MB = 128;
/** What a Worker pass may hold of one namespace: the budget of a 128 MB isolate (Node's of RECONCILE_HEAP_MB=128). */
const WORKER_OBJECT_BUDGET = objectBudgetFor(WORKER_ISOLATE_MB);

/**
 * workerHolderName returns the name of shard `index`'s holder identity (src/lease/identity.ts):
 * `ordinal-worker-<index>-<8 hex digits>` on its Lease and in its User-Agent, the digits kept in
 * the object's storage. So no shard passes another's holder check, two deployments of the Worker
 * pointed at one cluster never both hold a shard, and the audit log tells their writes apart.
 */
const workerHolderName = (index: number): string => `ordinal-worker-${index}`;

/**
 * buildShardRunner returns the runner of shard `index`, its holder identity the one `identity`
 * keeps (made and kept there on its first run); "retired" when the index is no longer below
 * RECONCILE_SHARDS; undefined when no cluster is configured (KUBE_API_URL). Throws on a refused
 * setting, and what the store throws.
 */
export async function buildShardRunner(env: Env, index: number, store: ShardStore, identity: KeptIdentity): Promise<ShardRunner | "retired" | undefined> {
  const vars = varsOf(env);
  const w = workerReconcileSettingsFrom(vars);
  const s = settingsFrom(vars);
  const log = jsonLogger(undefined, { shard: index }, s.logLevel ?? "info");
  if (index >= w.shards) {
    log.warn("shard retired: RECONCILE_SHARDS is lower now", { shards: w.shards });
    return "retired";
  }
  if (!setting(vars, "KUBE_API_URL")) {
    log.warn("no cluster configured (KUBE_API_URL); nothing to reconcile");
    return undefined;
  }
  const holder = await holderIdentity(workerHolderName(index), identity);
  // Named as `ordinal serve` names its reconciler (`ordinal/<holder>`): the audit log says which
  // Lease holder wrote what (the chaos run's observer judges each write against its shard's Lease).
  const raw = clientFor(env, `ordinal/${holder}`);
  if (!raw) return undefined;
  // The stack every runtime builds: the counted client, registration repair, and each drain's
  // `reconcile invocation done` line with the counters Node serves at /metrics (at info once per
  // full-pass interval; each wake's drain at debug).
  const stack = buildReconciler(raw, { settings: s, log, invocationInfoEveryMs: w.intervalMs });
  return new ShardRunner({
    client: stack.client,
    store,
    log,
    shard: { index, count: w.shards },
    leaseNamespace: s.leaseNamespace,
    holder,
    intervalMs: w.intervalMs,
    budgetMs: w.budgetMs,
    maxRequests: w.maxSubrequests,
    objectBudget: WORKER_OBJECT_BUDGET,
    beforeFullPass: index === 0 ? stack.beforeFullPass : undefined,
    onDrain: (passes, seconds) => stack.logInvocation(passes, seconds),
  });
}

/**
 * announcedWriteOf returns a forwarded wake's announced write, copied field by field, when it is a
 * well-formed one (the object's messages come from the Worker's own webhooks, but are checked as
 * input); undefined otherwise: the wake then counts as announcing none (its rechecks are blind).
 */
export function announcedWriteOf(w: unknown): AnnouncedWrite | undefined {
  if (!isAnnouncedWrite(w)) return undefined;
  const { resource, name, operation, resourceVersion } = w;
  return resourceVersion === undefined ? { resource, name, operation } : { resource, name, operation, resourceVersion };
}
