import type { KubeClient } from "../kube/client.ts";
import { errorFields, type Logger } from "../log/log.ts";
import { DEFAULT_ELECTION, LeaderElector, type ElectionTiming } from "../lease/elector.ts";
import { fencedClient } from "../lease/fence.ts";
import { EventRecorder } from "../reconciler/events.ts";
import { reconcilePass, type PassResult } from "../reconciler/pass.ts";
import { OtherCountGuard, OtherCountLeases, shardLeaseName } from "../lease/shard-leases.ts";
import { OrphanLookups } from "./orphan-lookups.ts";
import { wakeKey, wakeOfKey, type Wake } from "../objects/wake.ts";
import { Schedule } from "./model.ts";
import { anyLanded, fullReportOf, setReportOf } from "./shells.ts";

/**
 * ReconcileScheduler is Node's reconcile loop (`ordinal serve`): event-driven passes under a held
 * Lease, a thin shell around the schedule model both runtimes share (model.ts: coalescing,
 * rechecks, awaited writes, rate limits, what follows a pass). The shell owns the timers and the
 * pass lock: it runs what the model says is due, when it is due, and tells the model what each
 * pass found. Still level-triggered and stateless (every pass lists what it plans from; a pass may
 * die anywhere). Node's own parts:
 * - the watch cache (watch-cache.ts): targeted passes read its memory (the model's higher rates),
 *   its changes are wakes `observed` already, and a webhook's wake of a write it covers is left to
 *   the watch's own wake;
 * - a set the watch sees appear has its orphan lookup sent at once, by its stored selector
 *   (orphan-lookups.ts), so its first pass, which needs it before its first write, finds it done
 *   (the pass's hints carry it);
 * - a full pass of every set when the model says (every `intervalMs`; at once after the Lease is taken);
 * - the Lease is held and renewed as client-go does (elector.ts) on its own timer, and every write
 *   is fenced by it (fence.ts); passes re-check it between sets. With `shard`, the scheduler is
 *   one shard's (shard-schedulers.ts runs one per shard): its Lease is the shard's, its full
 *   passes cover the shard's namespaces. Either way it acts only while no reconciler Lease of
 *   another shard count is live (shard-leases.ts), looking before taking its own and after.
 * - a replica that does not lead forwards its wakes to the leader's endpoint, which the leader
 *   writes on the (shard's) Lease (src/node/wake-forward.ts); without one, they wait in its model.
 * Passes never overlap within the process (`passLock` makes that so across shards).
 * Its passes share one event recorder for the scheduler's life (kube's recorder is the process's),
 * so an OrderedReady scale-up's events are combined as kube's correlator does, across the targeted
 * passes of its steps, and a set failing pass after pass patches one Event's count (events.ts).
 */

export interface SchedulerOptions {
  log: Logger;
  holder: string;
  leaseNamespace: string;
  /** Full passes this far apart while nothing is pending (ms). */
  intervalMs: number;
  /** A full pass stops between sets after this long (ms); the next resumes where it stopped. */
  budgetMs: number;
  /** What a pass may hold of one namespace (objects: src/reconciler/namespace-budget.ts); default: no bound. */
  objectBudget?: number;
  /** A set that waits (or whose pass failed) is looked at again this long after (ms): the model's waitingRecheckMs. */
  idleMs: number;
  /** Wakes that announce no write are gathered this long before their pass (ms; default: the model's COALESCE_MS). */
  coalesceMs?: number;
  election?: ElectionTiming;
  /** Local monotonic ms (default performance.now). */
  clock?: () => number;
  now?: () => Date;
  /** Before each full pass (registration repair); errors are logged. */
  beforePass?: () => Promise<void>;
  /** After each pass, with its wall seconds (metrics). */
  onPass?: (pass: PassResult, seconds: number) => void;
  /** Where this replica takes forwarded wakes: written on the Lease while it leads. */
  endpoint?: string;
  /** Forwards a wake to the leader's endpoint (a standby replica's webhooks see wakes too). */
  forward?: (endpoint: string, w: SetWake) => Promise<void>;
  /** The shard this scheduler acts for (default: every namespace, Lease `ordinal-reconciler`). */
  shard?: { index: number; count: number };
  /** Shared by the schedulers of one process so that their passes run one at a time. */
  passLock?: PassLock;
  /** Asked before taking a Lease no one holds (lease.ts); default: take it. */
  mayTakeFree?: () => boolean;
  /**
   * The watch cache (watch-cache.ts): targeted passes read through its client (no read requests),
   * and a webhook's wake whose write it covers is left to the watch's own wake (`observed`).
   * Full passes still read the apiserver: the safety net does not trust the mirror.
   */
  cache?: { client: KubeClient; freshClient: KubeClient; covers(w: SetWake): boolean; synced(): boolean };
  /**
   * Wraps what passes read through, above the watch cache (so a read the mirror answers goes
   * through it too), never the Lease's reads: the reconcile thread's namespace guard
   * (src/reconciler/namespace-guard.ts: a quarantined namespace is not read). Default: none.
   */
  passReads?: (client: KubeClient) => KubeClient;
}

/** PassLock runs tasks one at a time, in the order they asked. */
export class PassLock {
  private tail: Promise<unknown> = Promise.resolve();

  /** run returns what `task` returns once every task asked before it has settled. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/**
 * A wake as Node's scheduler takes it (objects/wake.ts); the watch cache's sighting of a new set
 * (with `observed`) also carries its selector as stored, so the orphans it may adopt are looked for
 * before its first pass runs (OrphanLookups). Ignored on any other wake (a webhook's or a
 * forwarded one carries names only: src/admission/wakes.ts); the schedule model never reads it.
 */
export type SetWake = Wake & { selector?: string };

export class ReconcileScheduler {
  /** When each set and the next full pass are due (model.ts). */
  private readonly schedule: Schedule;
  private readonly elector: LeaderElector;
  /** Its Lease, and no other shard count's Lease live (shard-leases.ts). */
  private readonly guard: OtherCountGuard;
  private readonly client: KubeClient;
  /** What targeted passes read through: the watch cache's client when there is one. */
  private readonly targetClient: KubeClient;
  private readonly clock: () => number;
  private readonly now: () => Date;
  private stopped = false;
  private kick: (() => void) | undefined;
  private loops: Promise<unknown> | undefined;
  private readonly stopping: Promise<void>;
  private stopNow: () => void = () => {};
  /** Cuts the election loop's wait short (retryNow, relinquish). */
  private wakeElect: (() => void) | undefined;
  /** Set by retryNow: the next attempt is made at once. */
  private retryRequested = false;
  /** Set by relinquish: the election loop gives the Lease back. */
  private releaseRequested = false;
  /** The pass of this scheduler in flight, if any (relinquish waits for it). */
  private inFlight: Promise<unknown> | undefined;
  /** Orphan lookups of sets being created, started by their CREATE's wake (orphan-lookups.ts). */
  private readonly orphans: OrphanLookups;
  /** The events of every pass (events.ts): its memory is what combines them across passes. */
  private readonly events: EventRecorder;

  constructor(
    client: KubeClient,
    private readonly o: SchedulerOptions,
  ) {
    this.clock = o.clock ?? (() => performance.now());
    this.now = o.now ?? (() => new Date());
    const count = o.shard?.count ?? 1;
    const timing = o.election ?? DEFAULT_ELECTION;
    this.elector = new LeaderElector(client, { namespace: o.leaseNamespace, holder: o.holder, name: shardLeaseName(o.shard?.index ?? 0, count), mayTakeFree: o.mayTakeFree, endpoint: o.endpoint, holderEndpoint: {} }, this.clock, this.now, timing);
    const others = new OtherCountLeases(client, o.leaseNamespace, count, this.clock, timing.durationMs);
    this.guard = new OtherCountGuard(others, this.elector, o.log, this.shardFields(), this.clock, timing.retryPeriodMs);
    this.schedule = new Schedule({ shard: o.shard, intervalMs: o.intervalMs, waitingRecheckMs: o.idleMs, coalesceMs: o.coalesceMs }, this.clock);
    // Full passes read the apiserver (through the cache's fresh client: what they read and write is handed to the mirror).
    const reads = o.passReads ?? ((c: KubeClient) => c);
    this.client = fencedClient(reads(o.cache?.freshClient ?? client), () => this.acting());
    this.targetClient = o.cache ? fencedClient(reads(o.cache.client), () => this.acting()) : this.client;
    // Within the rate limits of the passes (the set's namespace's and the global bucket).
    this.orphans = new OrphanLookups(this.targetClient, this.clock, this.schedule.limiter);
    this.events = new EventRecorder(this.client, o.log);
    this.stopping = new Promise<void>((resolve) => (this.stopNow = resolve));
  }

  /**
   * wake schedules a targeted pass of the wake's set (coalesced; never later than one already
   * due), notes the write it announces, and cuts an idle wait short. A replica that does not lead
   * forwards it to the leader's endpoint instead (once: a forwarded wake is never forwarded again).
   */
  wake(w: SetWake, forwarded = false): void {
    if (this.stopped) return;
    // The watch brings this change to the replica that acts (its own mirror).
    if (w.observed && !this.acting()) return;
    const leader = !forwarded && this.o.forward ? this.elector.leaderEndpoint() : undefined;
    if (leader && leader !== this.o.endpoint) {
      this.o.forward!(leader, w).catch((e: unknown) => this.o.log.warn("wake not forwarded to the leader", { endpoint: leader, namespace: w.namespace, set: w.name, ...errorFields(e) }));
      return;
    }
    // A new set's orphan lookup starts now, while its first pass is coalesced and scheduled: the pass finds it done.
    // Only the watch's sighting (the set as stored) starts one: nothing a request carried is acted on.
    if (w.observed && w.selector && this.acting()) this.orphans.start(w.namespace, w.name, w.selector);
    // A webhook's wake of a write this replica's mirror covers comes again from its watch (the holder decides: forwarded above).
    if (!w.observed && this.o.cache?.covers(w)) return;
    const next = this.schedule.wake(w);
    this.o.log.debug?.("wake", { set: wakeKey(w), dueInMs: next.at === undefined ? undefined : next.at - this.clock() });
    this.kick?.();
  }

  start(): void {
    this.loops = Promise.all([this.electLoop(), this.passLoop()]);
  }

  /** acts is true while this scheduler holds its Lease and may act. */
  acts(): boolean {
    return this.acting();
  }

  /** retryNow makes a candidate (not holding its Lease) try to take it at once, not at its next retry. */
  retryNow(): void {
    if (this.elector.isLeader()) return;
    this.retryRequested = true;
    this.wakeElect?.();
  }

  /**
   * relinquish gives this shard's Lease back for another replica to take (shard-schedulers.ts:
   * balancing): it stops acting at once (writes are fenced from now on), and the election loop
   * releases the Lease once the pass in flight has ended, so the next holder never acts beside it.
   */
  relinquish(): void {
    if (!this.acting()) return;
    this.guard.standDown();
    this.releaseRequested = true;
    this.wakeElect?.();
  }

  /** stop ends both loops after the pass in flight, writes the repeats of events it counted, and releases the lease. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopNow();
    this.kick?.();
    await this.loops;
    await this.events.close(this.now()).catch((e: unknown) => this.o.log.warn("events not recorded", errorFields(e)));
    await this.elector.release().catch((e: unknown) => this.o.log.warn("lease release failed", errorFields(e)));
  }

  /** idle waits `ms` (capped) or until kicked. */
  private idle(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.max(0, Math.min(ms, 60_000)));
      const prev = this.kick;
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.kick = () => {
        prev?.();
        done();
      };
    });
  }

  /** acting is true while this scheduler may act: it holds its Lease and no other count's Lease was live. */
  private acting(): boolean {
    return this.guard.acting();
  }

  /**
   * electLoop acquires, then renews the lease every retry period (retrying sooner after a failure).
   * Before each attempt, and after the attempt that took the lease, it looks at the other shard
   * counts' Leases: while one is live it does not act and gives its own lease back.
   */
  private async electLoop(): Promise<void> {
    const { retryPeriodMs } = this.elector.timing;
    while (!this.stopped) {
      if (this.releaseRequested) {
        await this.giveBack();
        continue;
      }
      const wait = this.retryRequested ? 0 : this.elector.msUntilRenew();
      this.retryRequested = false;
      if (wait > 0) {
        // A candidate's retries are jittered, as client-go's: candidates started together do not meet at every retry.
        await this.sleep(wait + (this.elector.isLeader() ? 0 : Math.random() * 0.2 * retryPeriodMs), true);
        continue;
      }
      const was = this.acting();
      try {
        if (await this.guard.yields()) {
          // Jittered, as client-go's retry: two candidates that yielded to each other do not meet again.
          await this.sleep(retryPeriodMs * (1 + Math.random() * 0.2));
          continue;
        }
        const leading = await this.elector.tryAcquireOrRenew();
        if (leading && !this.releaseRequested && (await this.guard.confirm())) continue;
        if (this.acting() && !was) {
          this.o.log.info("lease acquired", { holder: this.o.holder, ...this.shardFields() });
          this.schedule.requestFullPass();
          this.kick?.();
        }
      } catch (e) {
        this.o.log.warn("lease renewal failed", { holder: this.o.holder, ...this.shardFields(), ...errorFields(e) });
        await this.sleep(Math.min(2_000, retryPeriodMs));
      }
    }
  }

  /** giveBack releases the Lease relinquish asked for, after the pass in flight (which stops at its next write, fenced). */
  private async giveBack(): Promise<void> {
    this.guard.standDown();
    await this.inFlight?.catch(() => undefined);
    try {
      await this.elector.release();
      this.o.log.info("lease released for another replica to take (balancing)", { holder: this.o.holder, ...this.shardFields() });
    } catch (e) {
      // Not released: it lapses at the renew deadline (nothing acts meanwhile: the guard stood down).
      this.o.log.warn("lease release failed", { holder: this.o.holder, ...this.shardFields(), ...errorFields(e) });
    }
    this.releaseRequested = false;
  }

  private shardFields(): Record<string, string> {
    return this.o.shard ? { shard: `${this.o.shard.index}-of-${this.o.shard.count}` } : {};
  }

  /** sleep waits `ms`, or less when stopping (or, `wakeable`, when retryNow or relinquish asks). */
  private async sleep(ms: number, wakeable = false): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const woken = wakeable ? new Promise<void>((resolve) => (this.wakeElect = resolve)) : undefined;
    await Promise.race([new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))), this.stopping, ...(woken ? [woken] : [])]);
    if (wakeable) this.wakeElect = undefined;
    clearTimeout(timer);
  }

  /** passLoop runs what the model says is due (the full pass first, then the sets, earliest first) and idles until the next. */
  private async passLoop(): Promise<void> {
    while (!this.stopped) {
      const leading = this.acting();
      if (leading && this.schedule.fullPassDue()) {
        await this.fullPass();
        continue;
      }
      const ready = leading ? this.schedule.dueSets() : [];
      for (const key of ready) {
        if (this.stopped || !this.acting()) break;
        await this.targetedPass(key);
      }
      if (ready.length) continue;
      const t = this.clock();
      await this.idle((leading ? this.schedule.nextAt() : t + 1_000) - t);
    }
  }

  /** fullPass passes over every set (resuming where the last stopped) and tells the model. */
  private async fullPass(): Promise<void> {
    if (this.o.beforePass) await this.o.beforePass().catch((e: unknown) => this.o.log.warn("beforePass failed", errorFields(e)));
    const { startAfter } = this.schedule.startFull();
    let started = this.clock();
    // The budget counts from when the pass starts, not from when it waited for another shard's.
    const pass = await this.run(() => {
      started = this.clock();
      return reconcilePass(this.client, {
        now: this.now,
        log: this.o.log,
        startAfter,
        shard: this.o.shard,
        objectBudget: this.o.objectBudget,
        events: this.events,
        shouldStop: () => this.stopped || !this.acting() || this.clock() - started >= this.o.budgetMs,
      });
    });
    this.schedule.finishFull(pass && fullReportOf(pass));
  }

  /** targetedPass looks at a due set as the model says (wait for its rate, probe its awaited writes, or pass it) and tells the model what the pass found. */
  private async targetedPass(key: string): Promise<void> {
    const { namespace, name } = wakeOfKey(key);
    let start = this.schedule.start(key, this.o.cache?.synced() ?? false);
    if (start?.kind === "probe") start = this.schedule.probed(key, await anyLanded(this.targetClient, namespace, start.writes));
    if (start?.kind !== "pass") return;
    const orphans = name ? this.orphans.take(namespace, name) : undefined;
    const hints = orphans ? { ...start.hints, orphans } : start.hints;
    const pass = await this.run(() => reconcilePass(this.targetClient, { now: this.now, log: this.o.log, namespace, setName: name || undefined, hints, events: this.events, shouldStop: () => !this.acting(), objectBudget: this.o.objectBudget }));
    const next = this.schedule.finish(key, pass && setReportOf(pass, name, !this.acting()));
    this.o.log.debug?.("set passed", { set: key, actions: pass?.actionCount, next: next.why, inMs: next.at === undefined ? undefined : next.at - this.clock() });
  }

  /** run runs a pass and reports it; a failed pass is logged and returns undefined. */
  private async run(pass: () => Promise<PassResult>): Promise<PassResult | undefined> {
    const lock = this.o.passLock;
    const running = lock ? lock.run(() => this.runNow(pass)) : this.runNow(pass);
    this.inFlight = running;
    return running;
  }

  private async runNow(pass: () => Promise<PassResult>): Promise<PassResult | undefined> {
    const started = this.clock();
    try {
      const r = await pass();
      this.o.onPass?.(r, (this.clock() - started) / 1000);
      return r;
    } catch (e) {
      this.o.log.error("reconcile pass failed", errorFields(e));
      return undefined;
    }
  }
}
