import type { KubeClient } from "../kube/client.ts";
import { errorFields, type Logger } from "../log/log.ts";
import { earlierMs } from "../core/requeue.ts";
import { DEFAULT_ELECTION, LeaderElector, type ElectionTiming } from "../lease/elector.ts";
import { fencedClient } from "../lease/fence.ts";
import { EventRecorder } from "../reconciler/events.ts";
import { reconcilePass, type PassResult } from "../reconciler/pass.ts";
import { OtherCountGuard, OtherCountLeases, shardLeaseName } from "../lease/shard-leases.ts";
import { CACHED_GLOBAL_RATE, CACHED_NAMESPACE_RATE, CACHED_SET_RATE, WakeLimiter } from "./wake-limiter.ts";
import { OrphanLookups } from "./orphan-lookups.ts";
import type { AnnouncedWrite } from "../objects/announced-write.ts";

/**
 * ReconcileScheduler is Node's reconcile loop (`ordinal serve`): event-driven passes under a held
 * Lease. Still level-triggered and stateless (every pass lists what it plans from; a pass may die
 * anywhere), but it acts as soon as something happens:
 * - a wake (an admission the webhooks saw: src/admission/wakes.ts) schedules a targeted pass of
 *   its set after `coalesceMs` (15 ms; wakes meanwhile join it) and cuts any idle wait short; the pass reads
 *   only that set's objects (a set that does not exist: one read); per-set and global token buckets
 *   bound how often (wake-limiter.ts);
 * - a set the watch sees appear has its orphan lookup sent at once, by its stored selector
 *   (orphan-lookups.ts), so its first pass, which needs it before its first write, finds it done;
 * - a set's pass that acted is followed at once by another of that set; one that read before a
 *   write its wakes announced was stored (a wake comes from admission, before the write) is looked
 *   at again after 10, 50 and 250 ms (UNSEEN_MS) while it still does not see it; one that waits
 *   with nothing to do after wakes that announced no write (ImageLists) is looked at again after
 *   50 and 250 ms (RECHECK_MS); and each at its earliest requeueAfter (grace periods, minReadySeconds);
 * - a full pass of every set runs every `intervalMs` (the safety net for lost wakes), every
 *   `idleMs` while one is pending, at once while one acts;
 * - the Lease is held and renewed as client-go does (elector.ts) on its own timer, and every write
 *   is fenced by it (fence.ts); passes re-check it between sets. With `shard`, the scheduler is
 *   one shard's (shard-schedulers.ts runs one per shard): its Lease is the shard's, its full
 *   passes cover the shard's namespaces. Either way it acts only while no reconciler Lease of
 *   another shard count is live (shard-leases.ts), looking before taking its own and after.
 * - a replica that does not lead forwards its wakes to the leader's endpoint, which the leader
 *   writes on the (shard's) Lease (src/node/wake-forward.ts); without one, they wait in its queue.
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
  /** Full passes this far apart while one is pending (ms). */
  idleMs: number;
  /** Wakes are gathered this long before their pass (ms). */
  coalesceMs?: number;
  /** A woken set that waits is looked at again after these delays (ms), one after the other. */
  recheckMs?: readonly number[];
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

/** What a wake names (src/admission/wakes.ts): a set, or ("" name) the namespace's ImageLists; and the write it announces, if known. */
export interface SetWake {
  namespace: string;
  name: string;
  write?: AnnouncedWrite;
  /** From the watch cache: the change is held already, so the woken pass sees it (no look again, no forwarding: every replica watches). */
  observed?: boolean;
  /**
   * A set the watch cache saw appear (with `observed`): its selector as stored, so the orphans it
   * may adopt are looked for before its first pass runs (OrphanLookups). Ignored on any other
   * wake: a webhook's wake or a forwarded one carries names only (src/admission/wakes.ts).
   */
  selector?: string;
}

const wakeKey = (w: SetWake): string => `${w.namespace}/${w.name}`;

/**
 * A wake comes from admission, before the write it announces is stored: a pass that finds nothing
 * to do may have read too early, so a waiting set is looked at again after 50 ms, then 250 ms.
 */
const RECHECK_MS = [50, 250] as const;

/** A pass that did not see a write its wakes announced looks again after these delays (ms), one after the other. */
const UNSEEN_MS = [10, 50, 250] as const;

/** A wake the watch observed is gathered this long (ms) before its pass: the pass reads memory, so only bursts wait. */
const OBSERVED_COALESCE_MS = 2;

/** Announced writes kept per due set; beyond, its wakes count as announcing none (blind rechecks). */
const MAX_AWAITED = 32;

interface Due {
  wake: SetWake;
  at: number;
  /** How many rechecks of a woken set's pass came before this one (0: the wake itself). */
  recheck: number;
  /** The writes its wakes announced that no pass has seen yet. */
  awaiting: AnnouncedWrite[];
  /** False when a wake announced no write (or too many): then a waiting pass is rechecked blindly. */
  announced: boolean;
}

export class ReconcileScheduler {
  private readonly due = new Map<string, Due>();
  private readonly elector: LeaderElector;
  /** Its Lease, and no other shard count's Lease live (shard-leases.ts). */
  private readonly guard: OtherCountGuard;
  private readonly limiter: WakeLimiter;
  /** The limiter of passes that read the synced watch cache (no read requests): higher rates. */
  private readonly cachedLimiter: WakeLimiter;
  private readonly client: KubeClient;
  /** What targeted passes read through: the watch cache's client when there is one. */
  private readonly targetClient: KubeClient;
  private readonly clock: () => number;
  private readonly now: () => Date;
  private nextFull = 0;
  private cursor: string | undefined;
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
    this.limiter = new WakeLimiter(this.clock);
    this.cachedLimiter = new WakeLimiter(this.clock, CACHED_SET_RATE, CACHED_GLOBAL_RATE, undefined, CACHED_NAMESPACE_RATE);
    // Full passes read the apiserver (through the cache's fresh client: what they read and write is handed to the mirror).
    this.client = fencedClient(o.cache?.freshClient ?? client, () => this.acting());
    this.targetClient = o.cache ? fencedClient(o.cache.client, () => this.acting()) : this.client;
    this.orphans = new OrphanLookups(this.targetClient, this.clock, this.limiter);
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
    const key = wakeKey(w);
    const at = this.clock() + (w.observed ? OBSERVED_COALESCE_MS : (this.o.coalesceMs ?? 15));
    const cur = this.due.get(key);
    if (cur) {
      noteWake(cur, w);
      if (cur.at <= at) return;
      cur.at = at;
      cur.recheck = 0;
    } else {
      // Bounded: beyond this many distinct sets waiting for their pass, the full pass covers the rest.
      if (this.due.size >= 10_000) return;
      const d: Due = { wake: { namespace: w.namespace, name: w.name }, at, recheck: 0, awaiting: [], announced: true };
      noteWake(d, w);
      this.due.set(key, d);
    }
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
          this.nextFull = 0;
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

  private async passLoop(): Promise<void> {
    while (!this.stopped) {
      const leading = this.acting();
      const t = this.clock();
      if (leading && t >= this.nextFull) {
        await this.fullPass();
        continue;
      }
      if (leading) {
        const ready = [...this.due.values()].filter((d) => d.at <= t).sort((a, b) => a.at - b.at);
        if (ready.length > 0) {
          for (const d of ready) {
            if (this.stopped || !this.acting()) break;
            await this.targetedPass(d);
          }
          continue;
        }
      }
      let next = leading ? this.nextFull : t + 1_000;
      if (leading) for (const d of this.due.values()) next = Math.min(next, d.at);
      await this.idle(next - t);
    }
  }

  /** fullPass passes over every set (resuming at the cursor) and sets when the next one is due. */
  private async fullPass(): Promise<void> {
    if (this.o.beforePass) await this.o.beforePass().catch((e: unknown) => this.o.log.warn("beforePass failed", errorFields(e)));
    let started = this.clock();
    // The budget counts from when the pass starts, not from when it waited for another shard's.
    const pass = await this.run(() => {
      started = this.clock();
      return reconcilePass(this.client, {
        now: this.now,
        log: this.o.log,
        startAfter: this.cursor,
        shard: this.o.shard,
        objectBudget: this.o.objectBudget,
        events: this.events,
        shouldStop: () => this.stopped || !this.acting() || this.clock() - started >= this.o.budgetMs,
      });
    });
    const t = this.clock();
    if (!pass) {
      this.nextFull = t + this.o.idleMs;
      return;
    }
    this.cursor = pass.cursor;
    const pause = pass.cursor !== undefined || pass.actionCount > 0 ? 0 : pass.pending ? Math.min(this.o.idleMs, pass.requeueAfterMs ?? Infinity) : this.o.intervalMs;
    this.nextFull = t + pause;
  }

  /** targetedPass passes over the due set (when its buckets allow) and schedules what follows it. */
  private async targetedPass(d: Due): Promise<void> {
    const key = wakeKey(d.wake);
    const wait = (this.o.cache?.synced() ? this.cachedLimiter : this.limiter).take(key, d.wake.namespace);
    if (wait > 0) {
      d.at = this.clock() + wait;
      return;
    }
    this.due.delete(key);
    const { namespace, name } = d.wake;
    const awaiting = d.announced && d.awaiting.length ? d.awaiting : undefined;
    const orphans = name ? this.orphans.take(namespace, name) : undefined;
    const pass = await this.run(() =>
      reconcilePass(this.targetClient, { now: this.now, log: this.o.log, namespace, setName: name || undefined, awaiting, events: this.events, shouldStop: () => !this.acting(), objectBudget: this.o.objectBudget, ...(orphans ? { orphans } : {}) }),
    );
    const again = this.due.get(key);
    if (again) {
      // Woken again meanwhile: that pass also looks for what this one did not see.
      for (const w of pass?.unseenWrites ?? []) noteWrite(again, w);
      if (!d.announced) again.announced = false;
      return;
    }
    if (!pass) return; // failed (logged; the full pass retries)
    const t = this.clock();
    const unseen = pass.unseenWrites ?? [];
    let after: number | undefined;
    let recheck = d.recheck + 1;
    if (pass.actionCount > 0) {
      after = 0;
      recheck = 0;
    } else if (unseen.length) after = UNSEEN_MS[d.recheck];
    else if (pass.pending && !d.announced) after = (this.o.recheckMs ?? RECHECK_MS)[d.recheck];
    after = earlierMs(after, pass.requeueAfterMs);
    if (after !== undefined) this.due.set(key, { wake: d.wake, at: t + after, recheck, awaiting: unseen, announced: d.announced });
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

/** noteWake notes what a wake announces; one the watch observed announces nothing to wait for (its pass reads it already). */
function noteWake(d: Due, w: SetWake): void {
  if (!w.observed) noteWrite(d, w.write);
}

/** noteWrite adds a wake's announced write to what its due pass looks for; a wake that announced none (or one too many) makes the set's rechecks blind. */
function noteWrite(d: Due, w: AnnouncedWrite | undefined): void {
  if (!w || d.awaiting.length >= MAX_AWAITED) d.announced = false;
  else if (!d.awaiting.some((a) => a.resource === w.resource && a.name === w.name && a.operation === w.operation && a.resourceVersion === w.resourceVersion)) d.awaiting.push(w);
}
