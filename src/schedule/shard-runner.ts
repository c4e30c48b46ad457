import type { KubeClient } from "../kube/client.ts";
import { errorFields, type Logger } from "../log/log.ts";
import { DEFAULT_ELECTION, LeaderElector } from "../lease/elector.ts";
import { EventRecorder } from "../reconciler/events.ts";
import { fencedClient } from "../lease/fence.ts";
import { OtherCountGuard, OtherCountLeases, shardLeaseName } from "../lease/shard-leases.ts";
import { reconcilePass, shardOf, type KnownSet, type PassResult } from "../reconciler/pass.ts";
import { writeLanded, type AnnouncedResource, type AnnouncedWrite } from "../objects/announced-write.ts";
import { R } from "../kube/resources.ts";
import {
  afterFullPass,
  afterSetPass,
  awaitingAlso,
  dueAt,
  emptySchedule,
  MAX_DUE_SETS,
  nextAlarmAt,
  nextLookMs,
  probesFirst,
  recheckAfterMs,
  UNSEEN_RECHECK_MS,
  withDue,
  wokenBy,
  type ShardSchedule,
  type WokenSet,
} from "./wake-schedule.ts";

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

/** A set to pass, or a namespace's ImageLists (`name` ""); and the write its admission announces, if known. */
export interface ShardWake {
  namespace: string;
  name: string;
  write?: AnnouncedWrite;
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
  /**
   * A wake that announces no write waits this long before its pass (ms; default WAKE_COALESCE_MS):
   * the write is stored meanwhile, and wakes meanwhile join it. One that announces its write does
   * not wait: its pass tells whether it read the write, and looks again UNSEEN_RECHECK_MS[0] later if not.
   */
  coalesceMs?: number;
}

/** The Lease is renewed when the last renewal is this old: the timing `ordinal serve`'s elector uses. */
export const RENEW_EVERY_MS = DEFAULT_ELECTION.retryPeriodMs;
/** A rough ceiling of requests one pass may make, kept back from the request budget. */
const REQUESTS_PER_PASS_RESERVE = 20;
/** How long after a wake whose set was not found yet (the admitted write not stored) to look again. */
const MISSING_RECHECK_MS = 250;

/**
 * A wake comes from admission, before the write it announces is stored: the pass of one that does
 * not say which write waits this long first (as Node's scheduler, 15 ms), so it rarely reads the
 * state before the write (bench:latency --worker-only: the pass 17 ms after a kubelet's status
 * admission read the old status, and the step waited for the 50 ms recheck's pass).
 */
const WAKE_COALESCE_MS = 25;

/** A recheck reads at most this many awaited objects by name before it passes the set or waits more. */
const MAX_PROBES = 3;

/** The resource each kind of announced write is read from. */
const PROBED: Record<AnnouncedResource, (typeof R)[keyof typeof R]> = { pods: R.pods, persistentvolumeclaims: R.pvcs, statefulsets: R.statefulSets };

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
   * Woken sets (and sets whose pass wrote): how many rechecks of their wakes were passed since, and
   * the writes those wakes announced that no pass read yet (wake-schedule.ts: recheckAfterMs).
   */
  private readonly woken = new Map<string, WokenSet>();
  /**
   * Namespaces whose last targeted pass read no ImageList, with no ImageList wake and no full pass
   * since: a targeted pass there skips their list for a set that does not pre-warm (pass.ts).
   * In memory, bounded; only a hint (a lost ImageList wake delays its actuation to the full pass).
   */
  private readonly noImageLists = new Set<string>();
  /** Sets its last targeted pass found, and whether with claim templates: the next reads its namespace beside the set (pass.ts knownSet). In memory, bounded. */
  private readonly knownSets = new Map<string, KnownSet>();
  private draining: Promise<void> | undefined;
  private schedule: ShardSchedule | undefined;
  private readonly elector: LeaderElector;
  /** The apiserver client of passes: every write fenced by the Lease (fence.ts). */
  private readonly client: KubeClient;
  /** Its Lease, and no other shard count's Lease live (shard-leases.ts). */
  private readonly guard: OtherCountGuard;
  private readonly now: () => Date;
  /**
   * The events of every drain (events.ts): its memory, the object's while it stays in memory,
   * combines them across drains as kube's correlator does (each drain still ends with the counts
   * it saw written: the object may be evicted before the next).
   */
  private readonly events: EventRecorder;

  constructor(private readonly o: ShardRunnerOptions) {
    this.now = o.now ?? (() => new Date());
    const clock = o.clock ?? (() => performance.now());
    // Lives as long as the object: expiry is judged by what this object saw across its lifetime.
    const name = shardLeaseName(o.shard.index, o.shard.count);
    this.elector = new LeaderElector(o.client, { namespace: o.leaseNamespace, holder: o.holder, name }, clock, this.now, DEFAULT_ELECTION);
    this.client = fencedClient(o.client, () => this.acting());
    this.events = new EventRecorder(this.client, o.log);
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
    this.o.log.debug?.("wake", { set: key, queued: this.queued.has(key), write: w.write ? `${w.write.operation} ${w.write.resource}/${w.write.name}` : undefined });
    this.markWoken(key, w.write);
    if (w.name === "") this.noImageLists.delete(w.namespace);
    const coalesceMs = w.write ? 0 : (this.o.coalesceMs ?? WAKE_COALESCE_MS);
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
          s = await this.setPass(s, key, spent);
          continue;
        }
        this.fullPassQueued = false;
        s = await this.fullPass(s, spent);
      }
    } finally {
      // Whatever is still queued (budget spent) is due at once: the alarm goes on with it.
      const t = this.now().getTime();
      for (const key of this.queued) s = withDue(s, key, t, true);
      if (this.fullPassQueued) s = { ...s, nextFullPassAt: t };
      this.queued.clear();
      this.fullPassQueued = false;
      this.schedule = s;
      await this.events.close(this.now()).catch((e) => log.warn("events not recorded", { error: String(e) }));
      await this.o.store.save(s);
      await this.o.store.setAlarm(Math.max(nextAlarmAt(s), t));
    }
  }

  /** markWoken starts the rechecks of a wake of `key` announcing `write` (bounded: beyond MAX_DUE_SETS woken sets, a new one gets none). */
  private markWoken(key: string, write: AnnouncedWrite | undefined): void {
    if (this.woken.size < MAX_DUE_SETS || this.woken.has(key)) this.woken.set(key, wokenBy(this.woken.get(key), write));
  }

  /** setPass runs a targeted pass of one set (or a namespace's ImageLists) and returns the schedule after it. */
  private async setPass(s: ShardSchedule, key: string, shouldStop: () => boolean): Promise<ShardSchedule> {
    const w = fromKey(key);
    const woken = this.woken.get(key);
    if (woken && w.name && probesFirst(woken, this.now().getTime()) && !(await this.anyLanded(w.namespace, woken.awaiting))) {
      // Not stored yet: one GET per awaited object instead of a pass; looked at again soon.
      const soon = UNSEEN_RECHECK_MS[woken.recheck];
      if (soon !== undefined) {
        this.woken.set(key, { ...woken, recheck: woken.recheck + 1 });
        const at = Math.min(this.now().getTime() + soon, woken.passAt ?? Infinity);
        return withDue(s, key, at);
      }
    }
    this.woken.delete(key);
    const awaiting = woken?.awaiting.length ? woken.awaiting : undefined;
    let r: PassResult;
    try {
      const imageListsKnownNone = this.noImageLists.has(w.namespace);
      const knownSet = this.knownSets.get(key);
      r = await reconcilePass(this.client, { now: this.now, log: this.o.log, namespace: w.namespace, setName: w.name || undefined, awaiting, imageListsKnownNone, knownSet, events: this.events, shouldStop, beforeSet: () => this.renewIfDue() });
    } catch (e) {
      this.o.log.warn("targeted pass failed", { set: key, error: e instanceof Error ? e.message : String(e) });
      return afterSetPass(s, key, { actionCount: 0, pending: true }, this.now().getTime());
    }
    if (!r.seenSet) this.knownSets.delete(key);
    else if (this.knownSets.size < MAX_DUE_SETS || this.knownSets.has(key)) this.knownSets.set(key, r.seenSet);
    if (r.imageListCount === 0 && this.noImageLists.size < MAX_DUE_SETS) this.noImageLists.add(w.namespace);
    else if (r.imageListCount) this.noImageLists.delete(w.namespace);
    const outcome = { actionCount: r.actionCount, pending: r.pending, requeueAfterMs: r.requeueAfterMs };
    const unseen = r.unseenWrites ?? [];
    this.o.log.debug?.("set passed", { set: key, recheck: woken?.recheck, unseen: unseen.length || undefined, ...outcome });
    // A wake that came during this pass (it is queued) starts its rechecks afresh, and its pass also
    // looks for what this one did not read: this pass's state must not override it.
    const meanwhile = this.woken.get(key);
    if (meanwhile) this.woken.set(key, awaitingAlso(meanwhile, unseen));
    // Writes made, or the budget ran out before the set: again at once (in this drain, or the alarm's).
    if (outcome.actionCount > 0 || (r.pending && shouldStop())) {
      // Its own writes wake nothing: the pass after them reads them (and what this one did not read yet).
      if (!meanwhile && outcome.actionCount > 0) this.woken.set(key, { recheck: 0, awaiting: unseen, announced: woken?.announced ?? true });
      else if (!meanwhile && woken) this.woken.set(key, woken);
      this.queued.add(key);
      return withDue(s, key, undefined);
    }
    const soon = woken && !meanwhile ? recheckAfterMs(woken, unseen) : undefined;
    // A wake comes from admission, before the write it announces is stored: a set not found yet is
    // looked at again while its announced create (or update) is not read, or once, MISSING_RECHECK_MS
    // later, after a wake that did not say (a set that is really gone costs one more read).
    if (w.name && r.sets.length === 0) {
      if (!woken || meanwhile) return withDue(s, key, undefined);
      const missingMs = unseen.length ? soon : !woken.announced && woken.recheck === 0 ? MISSING_RECHECK_MS : undefined;
      if (missingMs === undefined) return withDue(s, key, undefined);
      this.woken.set(key, { recheck: unseen.length ? woken.recheck + 1 : Infinity, awaiting: unseen, announced: woken.announced });
      return withDue(s, key, this.now().getTime() + missingMs);
    }
    // A woken set is looked at again soon (recheckAfterMs), whether it waits or not: its pass may
    // have read the pod status, the template or the deletion before the wake's write was stored.
    if (soon !== undefined && woken) {
      const later = nextLookMs(outcome);
      this.woken.set(key, { recheck: woken.recheck + 1, awaiting: unseen, announced: woken.announced, passAt: later === undefined ? undefined : this.now().getTime() + later });
    }
    return afterSetPass(s, key, outcome, this.now().getTime(), soon);
  }

  /** anyLanded returns true when one of the awaited writes (the first few) shows on its object, read by name; a failed read counts as landed (the pass then looks). */
  private async anyLanded(namespace: string, awaiting: readonly AnnouncedWrite[]): Promise<boolean> {
    for (const write of awaiting.slice(0, MAX_PROBES)) {
      try {
        if (writeLanded(write, await this.client.get(PROBED[write.resource], namespace, write.name))) return true;
      } catch {
        return true;
      }
    }
    return false;
  }

  /** fullPass passes every set of the shard (from the cursor on) and returns the schedule after it. */
  private async fullPass(s: ShardSchedule, shouldStop: () => boolean): Promise<ShardSchedule> {
    const { client } = this;
    const { log } = this.o;
    if (this.o.beforeFullPass) await this.o.beforeFullPass().catch((e) => log.warn("before the full pass", { error: String(e) }));
    // The safety net for a lost ImageList wake too: targeted passes read the ImageLists again after it.
    this.noImageLists.clear();
    let r: PassResult;
    try {
      r = await reconcilePass(client, { now: this.now, log, shard: this.o.shard, startAfter: s.cursor, events: this.events, shouldStop, beforeSet: () => this.renewIfDue() });
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
