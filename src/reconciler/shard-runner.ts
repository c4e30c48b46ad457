import type { KubeClient } from "../kube/client.ts";
import { errorFields, type Logger } from "../log/log.ts";
import { DEFAULT_ELECTION, LeaderElector } from "./elector.ts";
import { EventRecorder } from "./events.ts";
import { fencedClient } from "./fence.ts";
import { OtherCountGuard, OtherCountLeases, shardLeaseName } from "./shard-leases.ts";
import { reconcilePass, shardOf, type PassResult } from "./pass.ts";
import { afterFullPass, afterSetPass, dueAt, emptySchedule, MAX_DUE_SETS, nextAlarmAt, WOKEN_RECHECK_MS, withDue, type ShardSchedule } from "./wake-schedule.ts";

/**
 * ShardRunner is the single writer of one shard of namespaces (the Worker's Durable Object per
 * shard; any runtime with a store and an alarm can host it). Wakes are queued per set and served
 * by one drain at a time: a targeted pass per woken set, at once; a set woken again while queued
 * is passed once (wakes coalesce, so a caller cannot multiply passes). Its schedule (per set: when
 * to look again; the next full pass) lives in the store, and after each drain the alarm is set for
 * the earliest of them. The cluster's Lease is taken before acting and held while active, as
 * `ordinal serve` holds it (elector.ts, client-go's leader election): renewed once per
 * RENEW_EVERY_MS while the shard works, never released per pass, so hinted passes write no Lease;
 * another holder's Lease is taken over only once this object has seen it unrenewed for its whole
 * duration on its own clock (renewTime is never compared with ours); and every write is fenced
 * (fence.ts): none once the last renewal is older than the renew deadline. So a Worker and an
 * in-cluster `ordinal serve` never act at once.
 */

/** What a shard keeps between invocations (a Durable Object's storage and alarm). */
export interface ShardStore {
  load(): Promise<ShardSchedule | undefined>;
  save(s: ShardSchedule): Promise<void>;
  /** setAlarm asks to be woken (`alarm()`) at epoch ms `at`. */
  setAlarm(at: number): Promise<void>;
}

/** A set to pass, or a namespace's ImageLists (`name` ""). */
export interface ShardWake {
  namespace: string;
  name: string;
}

export interface ShardRunnerOptions {
  client: KubeClient;
  store: ShardStore;
  log: Logger;
  shard: { index: number; count: number };
  /** Namespace of the cluster's Lease (`ordinal-reconciler`, the one `ordinal serve` takes too). */
  leaseNamespace: string;
  /** Holder identity on the Lease; the same for every shard of one Worker. */
  holder: string;
  /** Between full (safety) passes, ms. */
  intervalMs: number;
  /** Wall-clock budget of one drain, ms: the rest is left to the next alarm. */
  budgetMs: number;
  /** Apiserver requests one drain may make (a Worker invocation's subrequest limit). */
  maxRequests: number;
  /** Before each full pass (registration repair); errors are logged. */
  beforeFullPass?: () => Promise<void>;
  now?: () => Date;
  /** Local monotonic ms the Lease's expiry and renewals are judged by (default performance.now). */
  clock?: () => number;
  /** A wake's pass waits this long first (ms; default WAKE_COALESCE_MS): the write it announces is stored meanwhile, and wakes meanwhile join it. */
  coalesceMs?: number;
}

/** The Lease is renewed when the last renewal is this old: the timing `ordinal serve`'s elector uses. */
export const RENEW_EVERY_MS = DEFAULT_ELECTION.retryPeriodMs;
/** A rough ceiling of requests one pass may make, kept back from the request budget. */
const REQUESTS_PER_PASS_RESERVE = 20;
/** How long after a wake whose set was not found yet (the admitted write not stored) to look again. */
const MISSING_RECHECK_MS = 250;

/**
 * A wake comes from admission, before the write it announces is stored: its pass waits this long
 * first (as Node's scheduler, 15 ms), so it rarely reads the state before the write (bench:latency
 * --worker-only: the pass 17 ms after a kubelet's status admission read the old status, and the
 * step waited for the 50 ms recheck's pass).
 */
const WAKE_COALESCE_MS = 25;

/** At most this many distinct sets wait in the queue; more bring the full pass forward. */
const MAX_QUEUED = 1_000;

/** shardKey returns the schedule key of a wake: `namespace/name`. */
const shardKey = (w: ShardWake): string => `${w.namespace}/${w.name}`;

const fromKey = (key: string): ShardWake => {
  const i = key.indexOf("/");
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
};

export class ShardRunner {
  private readonly queued = new Set<string>();
  private fullPassQueued = false;
  /**
   * Woken sets (and sets whose pass wrote) and how many rechecks of that wake were passed since
   * (WOKEN_RECHECK_MS: the wake may have come before the write it announces was stored).
   */
  private readonly woken = new Map<string, number>();
  private draining: Promise<void> | undefined;
  private schedule: ShardSchedule | undefined;
  private readonly elector: LeaderElector;
  /** The apiserver client of passes: every write fenced by the Lease (fence.ts). */
  private readonly client: KubeClient;
  /** Its Lease, and no other shard count's Lease live (shard-leases.ts). */
  private readonly guard: OtherCountGuard;
  private readonly now: () => Date;

  constructor(private readonly o: ShardRunnerOptions) {
    this.now = o.now ?? (() => new Date());
    const clock = o.clock ?? (() => performance.now());
    // Lives as long as the object: expiry is judged by what this object saw across its lifetime.
    const name = shardLeaseName(o.shard.index, o.shard.count);
    this.elector = new LeaderElector(o.client, { namespace: o.leaseNamespace, holder: o.holder, name }, clock, this.now, DEFAULT_ELECTION);
    this.client = fencedClient(o.client, () => this.acting());
    const others = new OtherCountLeases(o.client, o.leaseNamespace, o.shard.count, clock, DEFAULT_ELECTION.durationMs);
    this.guard = new OtherCountGuard(others, this.elector, o.log, { shard: o.shard.index }, clock, DEFAULT_ELECTION.retryPeriodMs);
  }

  /** inShard is true when the namespace belongs to this runner's shard. */
  inShard(namespace: string): boolean {
    return shardOf(namespace, this.o.shard.count) === this.o.shard.index;
  }

  /**
   * wake queues a targeted pass of the wake's set and resolves once the queue was drained (that
   * pass and any queued meanwhile), or at once for a namespace of another shard.
   */
  async wake(w: ShardWake): Promise<void> {
    if (!this.inShard(w.namespace)) {
      this.o.log.warn("wake for another shard ignored", { namespace: w.namespace, shard: this.o.shard.index });
      return;
    }
    const key = shardKey(w);
    this.o.log.debug?.("wake", { set: key, queued: this.queued.has(key) });
    this.markWoken(key);
    const coalesceMs = this.o.coalesceMs ?? WAKE_COALESCE_MS;
    if (coalesceMs > 0 && !this.queued.has(key)) await new Promise((resolve) => setTimeout(resolve, coalesceMs));
    if (this.queued.size >= MAX_QUEUED && !this.queued.has(key)) this.fullPassQueued = true;
    else this.queued.add(key);
    await this.drainUntil(() => !this.queued.has(key) && !this.fullPassQueued);
  }

  /**
   * poke (each cron tick) runs the full (safety) pass now, whatever the alarm says, with whatever
   * else is due: the cron is the safety net for a lost wake and a lost or far alarm, so a set no
   * wake announced waits at most one tick.
   */
  async poke(): Promise<void> {
    this.fullPassQueued = true;
    await this.alarm();
  }

  /** alarm runs what the schedule says is due (sets, the full pass) and sets the next alarm. */
  async alarm(): Promise<void> {
    const s = await this.loaded();
    const due = dueAt(s, this.now().getTime());
    for (const key of due.sets) {
      if (this.queued.size < MAX_QUEUED) this.queued.add(key);
      else this.fullPassQueued = true;
    }
    if (due.fullPass) this.fullPassQueued = true;
    await this.drainUntil(() => this.queued.size === 0 && !this.fullPassQueued);
    // Nothing was due (an early or repeated alarm): the alarm a handler ran is gone, set it again.
    await this.o.store.setAlarm(Math.max(nextAlarmAt(await this.loaded()), this.now().getTime()));
  }

  /** drainUntil runs drains until `done` (a wake may come in while a drain finishes). */
  private async drainUntil(done: () => boolean): Promise<void> {
    while (!done()) {
      this.draining ??= this.drain().finally(() => (this.draining = undefined));
      await this.draining;
    }
  }

  /** loaded returns the schedule, read from the store once per instance. */
  private async loaded(): Promise<ShardSchedule> {
    this.schedule ??= (await this.o.store.load()) ?? emptySchedule();
    return this.schedule;
  }

  /**
   * drain passes the queued sets (and the full pass when queued) until the queue is empty or the
   * budget is spent; what is left is due at once (the alarm takes it up), then the schedule is
   * saved and the alarm set. The queue is always empty afterwards.
   */
  private async drain(): Promise<void> {
    let s = await this.loaded();
    const { client } = this;
    const { log } = this.o;
    const startedAt = this.now().getTime();
    const startRequests = client.requestCount;
    const requestsSpent = () => client.requestCount - startRequests + REQUESTS_PER_PASS_RESERVE >= this.o.maxRequests;
    const budgetSpent = () => requestsSpent() || this.now().getTime() - startedAt >= this.o.budgetMs;
    // A pass also stops between sets once the Lease may have lapsed (its writes would be refused).
    const spent = () => budgetSpent() || !this.acting();
    const events = new EventRecorder(client, log);
    try {
      while (this.fullPassQueued || this.queued.size > 0) {
        if (budgetSpent()) break;
        if (!(await this.holdLease())) {
          log.info("lease held elsewhere; this shard waits", { shard: this.o.shard.index, holder: this.o.holder });
          // The holder does the work meanwhile; this shard looks again when its elector may try
          // again (RENEW_EVERY_MS: the Lease may have expired by then), with its queue due then.
          const retry = this.now().getTime() + Math.max(1, this.elector.msUntilRenew(), this.guard.msUntilLook());
          s = { ...s, due: Object.fromEntries(Object.entries(s.due).map(([k, t]) => [k, Math.max(t, retry)])), nextFullPassAt: Math.max(s.nextFullPassAt, retry) };
          for (const key of this.queued) s = withDue(s, key, retry, true);
          this.queued.clear();
          this.fullPassQueued = false;
          break;
        }
        // Woken sets first: a full pass over a large shard may spend the whole budget, and one
        // left unfinished is due again at once, so a wake queued behind it would wait for the
        // whole sweep (a watch-driven controller serves its queue, not its resync, first).
        if (this.queued.size > 0) {
          const [key] = this.queued;
          this.queued.delete(key);
          s = await this.setPass(s, key, events, spent);
          continue;
        }
        this.fullPassQueued = false;
        s = await this.fullPass(s, events, spent);
      }
    } finally {
      // Whatever is still queued (budget spent) is due at once: the alarm goes on with it.
      const t = this.now().getTime();
      for (const key of this.queued) s = withDue(s, key, t, true);
      if (this.fullPassQueued) s = { ...s, nextFullPassAt: t };
      this.queued.clear();
      this.fullPassQueued = false;
      this.schedule = s;
      await events.close(this.now()).catch((e) => log.warn("events not recorded", { error: String(e) }));
      await this.o.store.save(s);
      await this.o.store.setAlarm(Math.max(nextAlarmAt(s), t));
    }
  }

  /** markWoken starts the rechecks of a wake of `key` (bounded: beyond MAX_DUE_SETS woken sets, a new one gets none). */
  private markWoken(key: string): void {
    if (this.woken.size < MAX_DUE_SETS || this.woken.has(key)) this.woken.set(key, 0);
  }

  /** setPass runs a targeted pass of one set (or a namespace's ImageLists) and returns the schedule after it. */
  private async setPass(s: ShardSchedule, key: string, events: EventRecorder, shouldStop: () => boolean): Promise<ShardSchedule> {
    const w = fromKey(key);
    const recheck = this.woken.get(key);
    this.woken.delete(key);
    let r: PassResult;
    try {
      r = await reconcilePass(this.client, { now: this.now, log: this.o.log, namespace: w.namespace, setName: w.name || undefined, events, shouldStop, beforeSet: () => this.renewIfDue() });
    } catch (e) {
      this.o.log.warn("targeted pass failed", { set: key, error: e instanceof Error ? e.message : String(e) });
      return afterSetPass(s, key, { actionCount: 0, pending: true }, this.now().getTime());
    }
    const outcome = { actionCount: r.actionCount, pending: r.pending, requeueAfterMs: r.requeueAfterMs };
    this.o.log.debug?.("set passed", { set: key, recheck, ...outcome });
    // A wake that came during this pass (it is queued) starts its rechecks afresh: this pass's count must not override it.
    const wokenMeanwhile = this.woken.has(key);
    // Writes made, or the budget ran out before the set: again at once (in this drain, or the alarm's).
    if (outcome.actionCount > 0 || (r.pending && shouldStop())) {
      // Its own writes wake nothing: what they lead to is rechecked as a wake's would be.
      if (outcome.actionCount > 0) this.markWoken(key);
      else if (recheck !== undefined && !wokenMeanwhile) this.woken.set(key, recheck);
      this.queued.add(key);
      return withDue(s, key, undefined);
    }
    // A wake comes from admission, before the write it announces is stored: a set not found yet is
    // looked at once more, MISSING_RECHECK_MS later (a set that is really gone costs one more read).
    if (w.name && r.sets.length === 0) {
      if (recheck !== 0 || wokenMeanwhile) return withDue(s, key, undefined);
      this.woken.set(key, WOKEN_RECHECK_MS.length);
      return withDue(s, key, this.now().getTime() + MISSING_RECHECK_MS);
    }
    // A woken set is looked at again soon (WOKEN_RECHECK_MS), whether it waits or not: its pass
    // may have read the pod status, the template or the deletion before the wake's write was stored.
    if (recheck !== undefined && recheck < WOKEN_RECHECK_MS.length && !wokenMeanwhile) this.woken.set(key, recheck + 1);
    return afterSetPass(s, key, outcome, this.now().getTime(), recheck);
  }

  /** fullPass passes every set of the shard (from the cursor on) and returns the schedule after it. */
  private async fullPass(s: ShardSchedule, events: EventRecorder, shouldStop: () => boolean): Promise<ShardSchedule> {
    const { client } = this;
    const { log } = this.o;
    if (this.o.beforeFullPass) await this.o.beforeFullPass().catch((e) => log.warn("before the full pass", { error: String(e) }));
    let r: PassResult;
    try {
      r = await reconcilePass(client, { now: this.now, log, shard: this.o.shard, startAfter: s.cursor, events, shouldStop, beforeSet: () => this.renewIfDue() });
    } catch (e) {
      log.warn("full pass failed", { shard: this.o.shard.index, error: e instanceof Error ? e.message : String(e) });
      return { ...s, nextFullPassAt: this.now().getTime() + this.o.intervalMs };
    }
    const sets = r.sets.map((x) => ({ set: x.set, outcome: { actionCount: x.actions.length, pending: x.waiting || x.error !== undefined, requeueAfterMs: x.requeueAfterMs } }));
    const after = afterFullPass(s, sets, r.cursor, this.now().getTime(), this.o.intervalMs);
    // Sets that made writes are passed again at once, as targeted passes.
    for (const x of sets) if (x.outcome.actionCount > 0) this.queued.add(x.set);
    return after;
  }

  /**
   * holdLease returns true while this shard may act: it holds its own Lease
   * (`ordinal-reconciler-<i>-of-<n>`; n = 1: the cluster's `ordinal-reconciler`) through the elector
   * (renewing or trying to take it first when its retry period came; a lost race between two shards
   * of the same holder is tried once more at once) and no reconciler Lease of another shard count is
   * live (shard-leases.ts: a count being changed, or an `ordinal serve` with another count), looked
   * at before each attempt and once after taking it (its Lease is given back then).
   */
  private async holdLease(): Promise<boolean> {
    if (this.elector.msUntilRenew() > 0) return this.acting();
    if (await this.guard.yields()) return false;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        if (await this.elector.tryAcquireOrRenew()) break;
      } catch (e) {
        this.o.log.warn("lease renewal failed", { holder: this.o.holder, ...errorFields(e) });
        break;
      }
    }
    if (await this.guard.confirm()) return false;
    return this.acting();
  }

  /** acting is true while this shard holds its Lease and no other shard count's Lease was live when it took it. */
  private acting(): boolean {
    return this.guard.acting();
  }

  /** renewIfDue renews the Lease between sets when its period came (a long pass keeps it; a lost one stops at its next write). */
  private async renewIfDue(): Promise<void> {
    if (this.elector.isLeader()) await this.holdLease();
  }
}
