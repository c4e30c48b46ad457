import type { KubeClient } from "../kube/client.ts";
import type { Logger } from "../log/log.ts";
import { DEFAULT_ELECTION } from "./elector.ts";
import { EventRecorder } from "./events.ts";
import { acquireLease, releaseLease, type LeaseOptions } from "./lease.ts";
import { OtherCountLeases, shardLeaseName } from "./shard-leases.ts";
import { reconcilePass, shardOf, type PassResult } from "./pass.ts";
import { afterFullPass, afterSetPass, dueAt, emptySchedule, MAX_DUE_SETS, nextAlarmAt, WOKEN_RECHECK_MS, withDue, type ShardSchedule } from "./wake-schedule.ts";

/**
 * ShardRunner is the single writer of one shard of namespaces (the Worker's Durable Object per
 * shard; any runtime with a store and an alarm can host it). Wakes are queued per set and served
 * by one drain at a time: a targeted pass per woken set, at once; a set woken again while queued
 * is passed once (wakes coalesce, so a caller cannot multiply passes). Its schedule (per set: when
 * to look again; the next full pass) lives in the store, and after each drain the alarm is set for
 * the earliest of them. The cluster's Lease is taken before acting and held while active: renewed
 * at most once per RENEW_EVERY_MS, never released per pass, so a Worker and an in-cluster
 * `ordinal serve` never act at once and hinted passes write no Lease.
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
}

/** The Lease is renewed when the last renewal is this old: the timing `ordinal serve`'s elector uses. */
export const RENEW_EVERY_MS = DEFAULT_ELECTION.retryPeriodMs;
const LEASE_SECONDS = DEFAULT_ELECTION.durationMs / 1000;
/** A rough ceiling of requests one pass may make, kept back from the request budget. */
const REQUESTS_PER_PASS_RESERVE = 20;
/** How long after a wake whose set was not found yet (the admitted write not stored) to look again. */
const MISSING_RECHECK_MS = 250;

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
  private renewedAt = -Infinity;
  private readonly others: OtherCountLeases;
  private readonly now: () => Date;

  constructor(private readonly o: ShardRunnerOptions) {
    this.now = o.now ?? (() => new Date());
    this.others = new OtherCountLeases(o.client, o.leaseNamespace, o.shard.count, () => this.now().getTime(), LEASE_SECONDS * 1000);
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
    this.markWoken(key);
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
    const { client, log } = this.o;
    const startedAt = this.now().getTime();
    const startRequests = client.requestCount;
    const requestsSpent = () => client.requestCount - startRequests + REQUESTS_PER_PASS_RESERVE >= this.o.maxRequests;
    const spent = () => requestsSpent() || this.now().getTime() - startedAt >= this.o.budgetMs;
    const events = new EventRecorder(client, log);
    try {
      while (this.fullPassQueued || this.queued.size > 0) {
        if (spent()) break;
        if (!(await this.holdLease())) {
          log.info("lease held elsewhere; this shard waits", { shard: this.o.shard.index, holder: this.o.holder });
          // The holder does the work meanwhile; this shard looks again after RENEW_EVERY_MS (the
          // Lease may expire), with its queue due then.
          const retry = this.now().getTime() + RENEW_EVERY_MS;
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
      r = await reconcilePass(this.o.client, { now: this.now, log: this.o.log, namespace: w.namespace, setName: w.name || undefined, events, shouldStop });
    } catch (e) {
      this.o.log.warn("targeted pass failed", { set: key, error: e instanceof Error ? e.message : String(e) });
      return afterSetPass(s, key, { actionCount: 0, pending: true }, this.now().getTime());
    }
    const outcome = { actionCount: r.actionCount, pending: r.pending, requeueAfterMs: r.requeueAfterMs };
    // Writes made, or the budget ran out before the set: again at once (in this drain, or the alarm's).
    if (outcome.actionCount > 0 || (r.pending && shouldStop())) {
      // Its own writes wake nothing: what they lead to is rechecked as a wake's would be.
      if (outcome.actionCount > 0) this.markWoken(key);
      else if (recheck !== undefined) this.woken.set(key, recheck);
      this.queued.add(key);
      return withDue(s, key, undefined);
    }
    // A wake comes from admission, before the write it announces is stored: a set not found yet is
    // looked at once more, MISSING_RECHECK_MS later (a set that is really gone costs one more read).
    if (w.name && r.sets.length === 0) {
      if (recheck !== 0) return withDue(s, key, undefined);
      this.woken.set(key, WOKEN_RECHECK_MS.length);
      return withDue(s, key, this.now().getTime() + MISSING_RECHECK_MS);
    }
    // A woken set is looked at again soon (WOKEN_RECHECK_MS), whether it waits or not: its pass
    // may have read the pod status, the template or the deletion before the wake's write was stored.
    if (recheck !== undefined && recheck < WOKEN_RECHECK_MS.length) this.woken.set(key, recheck + 1);
    return afterSetPass(s, key, outcome, this.now().getTime(), recheck);
  }

  /** fullPass passes every set of the shard (from the cursor on) and returns the schedule after it. */
  private async fullPass(s: ShardSchedule, events: EventRecorder, shouldStop: () => boolean): Promise<ShardSchedule> {
    const { client, log } = this.o;
    if (this.o.beforeFullPass) await this.o.beforeFullPass().catch((e) => log.warn("before the full pass", { error: String(e) }));
    let r: PassResult;
    try {
      r = await reconcilePass(client, { now: this.now, log, shard: this.o.shard, startAfter: s.cursor, events, shouldStop });
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
   * holdLease returns true while this shard may act: its own Lease (`ordinal-reconciler-<i>-of-<n>`;
   * n = 1: the cluster's `ordinal-reconciler`) is held by this Worker (renewed when RENEW_EVERY_MS
   * old) and no reconciler Lease of another shard count is live (shard-leases.ts: a count being
   * changed, or an `ordinal serve` with another count), looked at before taking it and after (its
   * Lease is given back then); false when another holder has a live one.
   */
  private async holdLease(): Promise<boolean> {
    const t = this.now();
    if (t.getTime() - this.renewedAt < RENEW_EVERY_MS) return true;
    const { index, count } = this.o.shard;
    const lease = { namespace: this.o.leaseNamespace, holder: this.o.holder, durationSeconds: LEASE_SECONDS, name: shardLeaseName(index, count) };
    const held = this.renewedAt > -Infinity;
    this.renewedAt = -Infinity;
    if (await this.yieldsToOtherCounts(lease)) return false;
    if (!(await acquireLease(this.o.client, lease, t))) return false;
    if (!held && (await this.yieldsToOtherCounts(lease))) return false;
    this.renewedAt = t.getTime();
    return true;
  }

  /** yieldsToOtherCounts returns true (giving this shard's Lease back) while another shard count's Lease is live. */
  private async yieldsToOtherCounts(lease: LeaseOptions): Promise<boolean> {
    const live = await this.others.live();
    if (!live.length) return false;
    this.o.log.warn("reconciler Leases of another shard count are live: this shard waits until they are released or expire", { shard: this.o.shard.index, leases: live });
    await releaseLease(this.o.client, lease);
    return true;
  }
}
