import type { KubeClient } from "../kube/client.ts";
import { EventRecorder } from "../reconciler/events.ts";
import { acquireLease, releaseLease } from "../lease/lease.ts";
import { DEFAULT_ELECTION } from "../lease/elector.ts";
import { fencedClient } from "../lease/fence.ts";
import type { Logger } from "../log/log.ts";
import { reconcilePass, type PassResult } from "../reconciler/pass.ts";
import { OtherCountLeases } from "../lease/shard-leases.ts";

/**
 * runReconcile is one invocation (a cron tick, `ordinal reconcile --once`, one turn of the Node
 * loop): take the lease, then keep passing while work is pending, bounded by a time budget and a
 * request budget (the Worker's subrequest limit), renewing the lease before each pass.
 */

export interface RunOptions {
  now?: () => Date;
  log: Logger;
  holder: string;
  leaseNamespace: string;
  /** Wall-clock budget for the whole invocation (ms). */
  budgetMs: number;
  /** Stop before this many apiserver requests have been made by `client` (default: unlimited). */
  maxRequests?: number;
  /** Pause between passes while waiting on pods (ms, default 1000). */
  idleMs?: number;
  /** At most this many passes (default: unlimited; `--once` passes 1). */
  maxPasses?: number;
  namespace?: string;
  setName?: string;
  /** Only this shard of namespaces (its own Lease: `ordinal-reconciler-<index>-of-<count>`). */
  shard?: { index: number; count: number };
  sleep?: (ms: number) => Promise<void>;
  /** Aborting ends the invocation after the current pass (the lease is still released). */
  signal?: AbortSignal;
  /** Called before each pass (registration repair etc.); errors are logged. */
  beforePass?: () => Promise<void>;
}

export interface RunResult {
  acquired: boolean;
  passes: PassResult[];
  /** Live reconciler Leases of another shard count (an `ordinal serve` with RECONCILE_SHARDS=8, say) that kept this invocation from acting. */
  yieldedTo?: string[];
}

/** A rough ceiling of requests one pass may make, used to stop before the request budget. */
const REQUESTS_PER_PASS_RESERVE = 20;

/**
 * runReconcile returns what the invocation did. Its writes are fenced (fence.ts): they stop once
 * the lease's last renewal was sent DEFAULT_ELECTION.renewDeadlineMs ago; it renews between sets
 * every retryPeriodMs, so a long pass (a slow apiserver) keeps its lease or stops acting before
 * another reconciler can take it.
 */
export async function runReconcile(raw: KubeClient, o: RunOptions): Promise<RunResult> {
  const now = o.now ?? (() => new Date());
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const started = now().getTime();
  const passes: PassResult[] = [];
  const lease = {
    namespace: o.leaseNamespace,
    holder: o.holder,
    name: o.shard ? `ordinal-reconciler-${o.shard.index}-of-${o.shard.count}` : undefined,
    cursor: {} as { value?: string },
  };
  // A pass stops between sets once the request budget (and, after the first pass, the time
  // budget) is spent; the cursor on the Lease says where the next invocation resumes.
  const requestsSpent = () => raw.requestCount + REQUESTS_PER_PASS_RESERVE >= (o.maxRequests ?? Infinity);
  const timeSpent = () => now().getTime() - started >= o.budgetMs;
  const others = new OtherCountLeases(raw, o.leaseNamespace, o.shard?.count ?? 1, () => now().getTime());
  const yieldedTo = await otherCountsLive(others, sleep, timeSpent);
  if (yieldedTo.length) return yielded(o, passes, yieldedTo);
  let renewedAt = now().getTime();
  if (!(await acquireLease(raw, lease, now()))) {
    o.log.debug?.("lease held elsewhere; skipping", { holder: o.holder });
    return { acquired: false, passes };
  }
  // Looked at once more with the Lease taken: whoever came second sees the first (shard-leases.ts).
  const cameFirst = await others.live().catch(async (e: unknown) => {
    await releaseLease(raw, lease).catch(() => {});
    throw e;
  });
  if (cameFirst.length) {
    await releaseLease(raw, lease).catch((e) => o.log.warn("lease release failed", { error: String(e) }));
    return yielded(o, passes, cameFirst);
  }
  const holds = () => now().getTime() - renewedAt < DEFAULT_ELECTION.renewDeadlineMs;
  /** renew takes the lease again (a write), recording when it was sent; false when lost. */
  const renew = async (): Promise<boolean> => {
    const sent = now().getTime();
    const ok = await acquireLease(raw, lease, now());
    if (ok) renewedAt = sent;
    return ok;
  };
  const renewIfDue = async () => {
    if (holds() && now().getTime() - renewedAt >= DEFAULT_ELECTION.retryPeriodMs) await renew().catch((e) => o.log.warn("lease renewal failed", { error: String(e) }));
  };
  const client = fencedClient(raw, holds);
  const events = new EventRecorder(client, o.log);
  try {
    for (;;) {
      if (o.beforePass) await o.beforePass().catch((e) => o.log.warn("beforePass failed", { error: String(e) }));
      const hinted = o.setName !== undefined;
      const pass = await reconcilePass(client, {
        now,
        log: o.log,
        namespace: o.namespace,
        setName: o.setName,
        events,
        shard: o.shard,
        startAfter: hinted ? undefined : lease.cursor.value,
        beforeSet: renewIfDue,
        shouldStop: passes.length === 0 ? () => requestsSpent() || !holds() : () => requestsSpent() || timeSpent() || !holds(),
      });
      passes.push(pass);
      if (!hinted) lease.cursor.value = pass.cursor;
      if (!pass.pending || o.signal?.aborted) break;
      if (passes.length >= (o.maxPasses ?? Infinity)) break;
      // Idle passes poll every idleMs, but never later than a set asked to be looked at again.
      const pause = pass.actionCount > 0 ? 0 : Math.min(o.idleMs ?? 1000, pass.requeueAfterMs ?? Infinity);
      if (now().getTime() - started + pause >= o.budgetMs) break;
      if (raw.requestCount + REQUESTS_PER_PASS_RESERVE * 2 >= (o.maxRequests ?? Infinity)) break;
      if (pause) await sleep(pause);
      if (!(await renew())) break;
    }
  } finally {
    await events.close(now()).catch((e) => o.log.warn("events not recorded", { error: String(e) }));
    await releaseLease(raw, lease).catch((e) => o.log.warn("lease release failed", { error: String(e) }));
  }
  return { acquired: true, passes };
}

/**
 * otherCountsLive returns the reconciler Leases of other shard counts that are live (empty: this
 * invocation may act). A Lease first seen held counts as live until it is seen renewed (its holder
 * is alive: returned at once) or seen unchanged for its duration (released, shard-leases.ts): so
 * it looks every retry period, at most for one Lease duration, or until `outOfTime`.
 */
async function otherCountsLive(others: OtherCountLeases, sleep: (ms: number) => Promise<void>, outOfTime: () => boolean): Promise<string[]> {
  for (;;) {
    const live = await others.live();
    if (!live.length || others.renewedSinceFirstLook() || outOfTime()) return live;
    await sleep(DEFAULT_ELECTION.retryPeriodMs);
  }
}

/** yielded logs why the invocation did not act and returns its result. */
function yielded(o: RunOptions, passes: PassResult[], leases: string[]): RunResult {
  o.log.warn("reconciler Leases of another shard count are live: this invocation does not act", { holder: o.holder, leases });
  return { acquired: false, passes, yieldedTo: leases };
}
