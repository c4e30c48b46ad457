import type { KubeClient } from "../kube/client.ts";
import { errorFields, type Logger } from "../log/log.ts";
import { DEFAULT_ELECTION, LeaderElector } from "../lease/elector.ts";
import { EventRecorder } from "../reconciler/events.ts";
import { DEATHS_TO_QUARANTINE, judgeDeath, NamespaceGuard, type Reading } from "../reconciler/namespace-guard.ts";
import { fencedClient } from "../lease/fence.ts";
import { OtherCountGuard, OtherCountLeases, shardLeaseName } from "../lease/shard-leases.ts";
import { reconcilePass, type PassResult } from "../reconciler/pass.ts";
import { wakeKey, wakeOfKey, type Wake } from "../objects/wake.ts";
import { Schedule, type ScheduleSnapshot } from "./model.ts";
import { anyLanded, fullReportOf, setReportOf } from "./shells.ts";
import { sleepUntil } from "./sleep-until.ts";
import { COALESCE_MS, WORKER_WAITING_RECHECK_MS } from "./tables.ts";

/**
 * ShardRunner is the single writer of one shard of namespaces (the Worker's Durable Object per
 * shard; any runtime with a store and an alarm can host it): a thin shell around the schedule model
 * both runtimes share (model.ts: coalescing, rechecks, awaited writes, rate limits, what
 * follows a pass). The shell owns the storage and the alarm: a wake is noted in the model, waits
 * its coalescing time and is served by one drain at a time (a set woken again while due is passed
 * once, so a caller cannot multiply passes); the model's snapshot (per set: when to look again;
 * the next full pass) lives in the store, and after each drain the alarm is set for the earliest. The cluster's Lease is taken before acting and held while active, as
 * `ordinal serve` holds it (elector.ts, client-go's leader election): renewed once per
 * RENEW_EVERY_MS while the shard works, never released per pass, so hinted passes write no Lease;
 * another holder's Lease is taken over only once this object has seen it unrenewed for its whole
 * duration on its own clock (renewTime is never compared with ours); and every write is fenced
 * (fence.ts): none once the last renewal is older than the renew deadline. So a Worker and an
 * in-cluster `ordinal serve` never act at once.
 */

/** What a shard keeps between invocations (a Durable Object's storage and alarm). */
export interface ShardStore {
  load(): Promise<ScheduleSnapshot | undefined>;
  /** save stores the snapshot; `early`: before a pass (a woken set), whose requests need not wait until the write is durable. */
  save(s: ScheduleSnapshot, early?: boolean): Promise<void>;
  /** setAlarm asks to be woken (`alarm()`) at epoch ms `at`; `early` as for save. */
  setAlarm(at: number, early?: boolean): Promise<void>;
  /**
   * The namespace a drain is reading (noted before its list, cleared when the drain ends): one left
   * behind names what the invocation was reading when it died (its isolate out of memory or CPU
   * time), which the next one quarantines (src/reconciler/namespace-guard.ts). Without: no quarantine.
   */
  reading?: NamespaceNote;
  /**
   * The namespace the invocation before died reading, not yet struck: one death is no proof (a
   * deploy, an eviction, a killed `wrangler dev` end an invocation anywhere), so a namespace is
   * quarantined when an invocation dies reading it while it is the suspect already (a namespace
   * that kills whoever reads it does so each time); a drain that read it and ended clears it.
   * Without: the first death quarantines.
   */
  suspect?: NamespaceNote;
}

/** One namespace name kept in a shard's store (undefined: none). */
export interface NamespaceNote {
  load(): Promise<string | undefined>;
  save(namespace: string | undefined): Promise<void>;
}

export interface ShardRunnerOptions {
  client: KubeClient;
  store: ShardStore;
  log: Logger;
  shard: { index: number; count: number };
  /** Namespace of the cluster's Lease (`ordinal-reconciler`, the one `ordinal serve` takes too). */
  leaseNamespace: string;
  /** Holder identity on its Lease, its own (the Worker's: one per shard object, kept in its storage; src/worker/build-shard-runner.ts). */
  holder: string;
  /** Between full (safety) passes, ms. */
  intervalMs: number;
  /** Wall-clock budget of one drain, ms: the rest is left to the next alarm. */
  budgetMs: number;
  /** Apiserver requests one drain may make (a Worker invocation's subrequest limit). */
  maxRequests: number;
  /** What a pass may hold of one namespace (objects: src/reconciler/namespace-budget.ts; the Worker's: objectBudgetFor of its isolate's 128 MB); default: no bound. */
  objectBudget?: number;
  /** Before each full pass (registration repair); errors are logged. */
  beforeFullPass?: () => Promise<void>;
  now?: () => Date;
  /** Local monotonic ms the Lease's expiry and renewals are judged by (default performance.now). */
  clock?: () => number;
  /** A wake that announces no write waits this long before its pass (ms; default: the model's COALESCE_MS). */
  coalesceMs?: number;
  /** After each drain (an invocation: a wake's, an alarm's, a tick's), with the passes it ran and its wall seconds (the Worker's counters and log line). */
  onDrain?: (passes: PassResult[], seconds: number) => void;
  /** Waits `ms` (a wake's coalescing time; default setTimeout). */
  sleep?: (ms: number) => Promise<void>;
}

/** The Lease is renewed when the last renewal is this old: the timing `ordinal serve`'s elector uses. */
export const RENEW_EVERY_MS = DEFAULT_ELECTION.retryPeriodMs;
/** Why a namespace left noted as being read is quarantined. */
const DIED_READING = "the Worker's invocation ended while reading it (its isolate out of memory or CPU time)";
/** A rough ceiling of requests one pass may make, kept back from the request budget. */
const REQUESTS_PER_PASS_RESERVE = 20;
/**
 * A woken set is stored as due before its pass, with the alarm this long after it is due: the net
 * for an object that dies during the pass (an isolate killed, a deploy), whose drain never stores
 * what follows; a drain that ends sets the alarm again first, so it seldom fires.
 */
export const WAKE_NET_MS = 10_000;

export class ShardRunner {
  /** The schedule model, built from the store's snapshot on the first event of this instance. */
  private schedule: Schedule | undefined;
  private draining: Promise<boolean> | undefined;
  /** The snapshot in the store as this instance last read or wrote it. */
  private stored: ScheduleSnapshot | undefined;
  /** The alarm as this instance last set it (after a load: the earliest time of the stored snapshot, which its drain set it for). */
  private alarmAt = Infinity;
  private readonly elector: LeaderElector;
  /** The apiserver client of passes: every write fenced by the Lease (fence.ts), every namespaced list guarded by the quarantine record (namespace-guard.ts). */
  private readonly client: KubeClient;
  private readonly guardNamespaces: NamespaceGuard;
  /** The namespace noted in the store as being read (ShardStore.reading). */
  private reading: string | undefined;
  /** A Lease renewal running beside a pass (holdLeaseSoon), awaited before its drain ends. */
  private renewing: Promise<void> | undefined;
  /** The suspect in the store (ShardStore.suspect), and whether a drain read it (cleared when the drain ends). */
  private suspect: { namespace: string; read: boolean } | undefined;
  private loading: Promise<Schedule> | undefined;
  /** Its Lease, and no other shard count's Lease live (shard-leases.ts). */
  private readonly guard: OtherCountGuard;
  private readonly now: () => Date;
  private readonly sleep: (ms: number) => Promise<void>;
  /**
   * The events of every drain (events.ts): its memory, the object's while it stays in memory,
   * combines them across drains as kube's correlator does (each drain still ends with the counts
   * it saw written: the object may be evicted before the next).
   */
  private readonly events: EventRecorder;

  constructor(private readonly o: ShardRunnerOptions) {
    this.now = o.now ?? (() => new Date());
    this.sleep = o.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    const clock = o.clock ?? (() => performance.now());
    // Lives as long as the object: expiry is judged by what this object saw across its lifetime.
    const name = shardLeaseName(o.shard.index, o.shard.count);
    this.elector = new LeaderElector(o.client, { namespace: o.leaseNamespace, holder: o.holder, name }, clock, this.now, DEFAULT_ELECTION);
    this.guardNamespaces = new NamespaceGuard(o.client, o.leaseNamespace, o.log, this.now);
    const fenced = fencedClient(o.client, () => this.acting());
    this.client = o.store.reading ? this.guardNamespaces.guardedClient(fenced, (r) => this.noteReading(r)) : fenced;
    this.events = new EventRecorder(this.client, o.log);
    const others = new OtherCountLeases(o.client, o.leaseNamespace, o.shard.count, clock, DEFAULT_ELECTION.durationMs);
    this.guard = new OtherCountGuard(others, this.elector, o.log, { shard: o.shard.index }, clock, DEFAULT_ELECTION.retryPeriodMs);
  }

  /**
   * wake notes the wake in the model, waits its coalescing time and resolves once its set was
   * passed (with whatever else was due), or at once for a namespace of another shard.
   */
  async wake(w: Wake): Promise<void> {
    const schedule = await this.loaded();
    const key = wakeKey(w);
    const next = schedule.wake(w);
    if (next.why === "another shard") {
      this.o.log.warn("wake for another shard ignored", { namespace: w.namespace, shard: this.o.shard.index });
      return;
    }
    await this.storeWake(schedule, key, next.at ?? schedule.nextAt());
    const waitMs = (next.at ?? 0) - this.now().getTime();
    this.o.log.debug?.("wake", { set: key, dueInMs: waitMs, write: w.write ? `${w.write.operation} ${w.write.resource}/${w.write.name}` : undefined });
    // Its coalescing time, at most, until the clock shows it (sleep-until.ts); a set due later (a recheck, a Lease held elsewhere) is the alarm's.
    if (waitMs > COALESCE_MS) return;
    await sleepUntil(next.at ?? 0, () => this.now().getTime(), this.sleep);
    await this.drainUntil(() => !schedule.isDue(key));
  }

  /**
   * poke (each cron tick) runs the full (safety) pass now, whatever the alarm says, with whatever
   * else is due: the cron is the safety net for a lost wake and a lost or far alarm, so a set no
   * wake announced waits at most one tick.
   */
  async poke(): Promise<void> {
    (await this.loaded()).requestFullPass();
    await this.alarm();
  }

  /** alarm runs what the model says is due (sets, the full pass) and sets the next alarm. */
  async alarm(): Promise<void> {
    const schedule = await this.loaded();
    await this.drainUntil(() => schedule.dueSets().length === 0 && !schedule.fullPassDue());
    // Nothing was due (an early or repeated alarm): the alarm a handler ran is gone, set it again.
    await this.setAlarm(schedule.nextAt());
  }

  /**
   * storeWake stores a woken set as due at `at` before its pass (the wake's answer waits for it),
   * with the alarm WAKE_NET_MS after it (never later than the alarm set already): an accepted
   * wake survives the object's death. Nothing is written when the stored snapshot already has
   * the set, or the full pass, due by then.
   */
  private async storeWake(schedule: Schedule, key: string, at: number): Promise<void> {
    const stored = this.stored;
    if (stored && Math.min(stored.due[key] ?? Infinity, stored.nextFullPassAt) <= at) return;
    await this.save(schedule, true);
    await this.setAlarm(Math.min(this.alarmAt, at + WAKE_NET_MS), true);
  }

  /** save stores the model's snapshot (noted first: a wake that comes meanwhile finds its set stored). */
  private async save(schedule: Schedule, early?: boolean): Promise<void> {
    this.stored = schedule.snapshot();
    await this.o.store.save(this.stored, early);
  }

  /** setAlarm sets the alarm for `at`, never in the past. */
  private async setAlarm(at: number, early?: boolean): Promise<void> {
    this.alarmAt = Math.max(at, this.now().getTime());
    await this.o.store.setAlarm(this.alarmAt, early);
  }

  /** drainUntil runs drains until `done` (a wake may come in while a drain finishes), at most while a drain makes progress. */
  private async drainUntil(done: () => boolean): Promise<void> {
    while (!done()) {
      this.draining ??= this.drain().finally(() => (this.draining = undefined));
      if (!(await this.draining)) return;
    }
  }

  /**
   * loaded returns the model, built from the store's snapshot once per instance; first, the
   * namespace an invocation before this one died reading is struck in the quarantine record.
   */
  private loaded(): Promise<Schedule> {
    if (this.schedule) return Promise.resolve(this.schedule);
    this.loading ??= this.load().catch((e: unknown) => {
      this.loading = undefined;
      throw e;
    });
    return this.loading;
  }

  private async load(): Promise<Schedule> {
    const snapshot = await this.o.store.load();
    if (snapshot && !this.stored) {
      this.stored = snapshot;
      this.alarmAt = Math.min(snapshot.nextFullPassAt, ...Object.values(snapshot.due));
    }
    if (this.o.store.reading) await this.judgeLastDeath(this.o.store.reading, this.o.store.suspect);
    this.schedule ??= new Schedule({ shard: this.o.shard, intervalMs: this.o.intervalMs, waitingRecheckMs: WORKER_WAITING_RECHECK_MS, coalesceMs: this.o.coalesceMs }, () => this.now().getTime(), snapshot);
    return this.schedule;
  }

  /**
   * drain runs what is due (woken sets first, then the full pass) until nothing is or the budget is
   * spent; what is left stays due (the alarm takes it up), then the snapshot is saved and the alarm
   * set. Returns false when it stopped with work left (budget spent, Lease held elsewhere).
   */
  private async drain(): Promise<boolean> {
    const s = await this.loaded();
    const { client } = this;
    const { log } = this.o;
    const startedAt = this.now().getTime();
    const startRequests = client.requestCount;
    const requestsSpent = () => client.requestCount - startRequests + REQUESTS_PER_PASS_RESERVE >= this.o.maxRequests;
    const budgetSpent = () => requestsSpent() || this.now().getTime() - startedAt >= this.o.budgetMs;
    // A pass also stops between sets once the Lease may have lapsed (its writes would be refused).
    const spent = () => budgetSpent() || !this.acting();
    let finished = true;
    const passes: PassResult[] = [];
    try {
      for (;;) {
        const [key] = s.dueSets();
        if (key === undefined && !s.fullPassDue()) break;
        if (budgetSpent()) return (finished = false);
        if (!(await this.holdLeaseSoon())) {
          log.info("lease held elsewhere; this shard waits", { shard: this.o.shard.index, holder: this.o.holder });
          // The holder does the work meanwhile; this shard looks again when its elector may try
          // again (RENEW_EVERY_MS: the Lease may have expired by then), with what is due then.
          s.deferAll(this.now().getTime() + Math.max(1, this.elector.msUntilRenew(), this.guard.msUntilLook()));
          return (finished = false);
        }
        // Woken sets first: a full pass over a large shard may spend the whole budget, and one
        // left unfinished is due again at once, so a wake behind it would wait for the whole
        // sweep (a watch-driven controller serves its queue, not its resync, first).
        const r = key !== undefined ? await this.setPass(s, key, spent) : await this.fullPass(s, spent);
        if (r) passes.push(r);
      }
      return true;
    } finally {
      await this.renewing;
      await this.events.close(this.now()).catch((e) => log.warn("events not recorded", { error: String(e) }));
      if (this.reading !== undefined) await this.noteReading(undefined);
      if (this.suspect?.read) {
        this.suspect = undefined;
        await this.o.store.suspect?.save(undefined);
      }
      await this.save(s);
      await this.setAlarm(s.nextAt());
      if (!finished) log.debug?.("drain stopped with work left", { shard: this.o.shard.index });
      this.o.onDrain?.(passes, (this.now().getTime() - startedAt) / 1000);
    }
  }

  /** setPass looks at one due set (or a namespace's ImageLists) as the model says and tells it what the pass found. */
  private async setPass(s: Schedule, key: string, shouldStop: () => boolean): Promise<PassResult | undefined> {
    const { namespace, name } = wakeOfKey(key);
    let start = s.start(key);
    // Not stored yet? One GET per awaited object instead of a pass; looked at again soon if not.
    if (start?.kind === "probe") start = s.probed(key, await anyLanded(this.client, namespace, start.writes));
    if (start?.kind !== "pass") return undefined;
    let r: PassResult | undefined;
    try {
      r = await reconcilePass(this.client, { now: this.now, log: this.o.log, namespace, setName: name || undefined, hints: start.hints, events: this.events, shouldStop, beforeSet: () => this.renewIfDue(), objectBudget: this.o.objectBudget });
    } catch (e) {
      this.o.log.warn("targeted pass failed", { set: key, error: e instanceof Error ? e.message : String(e) });
    }
    const next = s.finish(key, r && setReportOf(r, name, shouldStop()));
    this.o.log.debug?.("set passed", { set: key, actions: r?.actionCount, next: next.why, inMs: next.at === undefined ? undefined : next.at - this.now().getTime() });
    return r;
  }

  /** fullPass passes every set of the shard (from the cursor on) and tells the model. */
  private async fullPass(s: Schedule, shouldStop: () => boolean): Promise<PassResult | undefined> {
    const { log } = this.o;
    if (this.o.beforeFullPass) await this.o.beforeFullPass().catch((e) => log.warn("before the full pass", { error: String(e) }));
    const { startAfter } = s.startFull();
    let r: PassResult | undefined;
    try {
      r = await reconcilePass(this.client, { now: this.now, log, shard: this.o.shard, startAfter, events: this.events, shouldStop, beforeSet: () => this.renewIfDue(), objectBudget: this.o.objectBudget });
    } catch (e) {
      log.warn("full pass failed", { shard: this.o.shard.index, error: e instanceof Error ? e.message : String(e) });
    }
    s.finishFull(r && fullReportOf(r));
    return r;
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

  /**
   * judgeLastDeath judges the death of the invocation before (judgeDeath with the Worker's
   * DEATHS_TO_QUARANTINE; at once when the store keeps no suspect), then reads the quarantine record.
   */
  private async judgeLastDeath(reading: NamespaceNote, suspects: NamespaceNote | undefined): Promise<void> {
    const died = await reading.load();
    const suspect = await suspects?.load();
    const verdict = judgeDeath(died, suspect, suspects ? DEATHS_TO_QUARANTINE.worker : 1);
    await this.guardNamespaces.start(verdict.strike !== undefined ? { namespace: verdict.strike, why: DIED_READING } : undefined);
    if (died !== undefined && verdict.strike === undefined) this.o.log.warn("the last invocation died reading a namespace: suspected, quarantined if it happens again", { namespace: died, shard: this.o.shard.index });
    if (verdict.suspect !== suspect) await suspects?.save(verdict.suspect);
    this.suspect = verdict.suspect === undefined ? undefined : { namespace: verdict.suspect, read: false };
    if (died !== undefined) await reading.save(undefined);
  }

  /** noteReading notes in the store the namespace a list is about to read (once per namespace a drain reads), or clears it (undefined). */
  private async noteReading(r: Reading | undefined): Promise<void> {
    if (r && r.namespace === this.suspect?.namespace) this.suspect.read = true;
    if (!this.o.store.reading || r?.done || r?.namespace === this.reading) return;
    this.reading = r?.namespace;
    await this.o.store.reading.save(this.reading);
  }

  /** acting is true while this shard holds its Lease and no other shard count's Lease was live when it took it. */
  private acting(): boolean {
    return this.guard.acting();
  }

  /**
   * holdLeaseSoon returns holdLease(), except while this shard acts and only its renewal is due: the
   * renewal (a Lease list, a GET and a write) then runs beside the pass, not before it, as Node's
   * elector renews on its own timer. Safe: writes stay fenced by the last renewal (fence.ts), which
   * holds until the renew deadline (twice the renewal period); a renewal that fails or finds another
   * count's Lease stops them as before. The drain awaits it before it ends.
   */
  private async holdLeaseSoon(): Promise<boolean> {
    if (this.renewing) return this.acting();
    if (!this.acting() || this.elector.msUntilRenew() > 0) return this.holdLease();
    this.renewing = this.holdLease().then(
      () => undefined,
      (e: unknown) => this.o.log.warn("lease renewal failed", { holder: this.o.holder, ...errorFields(e) }),
    ).finally(() => (this.renewing = undefined));
    return true;
  }

  /** renewIfDue renews the Lease between sets when its period came, beside the pass (a long pass keeps it; a lost one stops at its next write). */
  private async renewIfDue(): Promise<void> {
    if (this.elector.isLeader()) await this.holdLeaseSoon();
  }
}
