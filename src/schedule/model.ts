/**
 * Schedule is the one model of when a set is passed again, shared by both runtimes: Node's
 * scheduler (src/schedule/scheduler.ts: timers and the pass lock) and the Worker's shard runner
 * (src/schedule/shard-runner.ts: storage and the alarm) are shells around it. Pure: no I/O, time
 * from an injectable clock (local monotonic ms on Node, epoch ms on the Worker, whose alarm and
 * storage take epoch ms). It owns:
 * - coalescing: a wake makes its set due after COALESCE_MS (announcing its write: at once; observed
 *   by a watch: OBSERVED_COALESCE_MS); wakes of a set already due join it, never later;
 * - the writes wakes announced that no pass read yet (at most MAX_AWAITED a set), and the recheck
 *   tables: what a pass did not read is looked at again UNSEEN_RECHECK_MS later (a look reads only
 *   the awaited objects first: `start` says "probe"; so does a wake's own look when it awaits only
 *   deletions), a set some wake of which announced nothing BLIND_RECHECK_MS later;
 * - rate limits: a set's pass (or probe) takes a token of its set's, its namespace's and the global bucket
 *   (wake-limiter.ts; higher rates when the shell's reads cost no request);
 * - what follows a pass ("what is due next, and why": `finish` returns a Next): at once after
 *   writes, a recheck, its requeueAfter, a waiting set's look, or nothing; and after a full pass,
 *   every set it reported and the next full pass;
 * - the hints a targeted pass may use (pass.ts PassHints): the awaited writes, a namespace known to
 *   hold no ImageLists, a set known to exist (and whether with claim templates).
 * Where the runtimes differ on purpose, the difference is a ScheduleParams field (tables.ts).
 */
import type { AnnouncedWrite } from "../objects/announced-write.ts";
import { sameWrite, wakeKey, wakeOfKey, type Wake } from "../objects/wake.ts";
import { shardOf, type KnownSet, type PassHints } from "../reconciler/pass.ts";
import { CACHED_GLOBAL_RATE, CACHED_NAMESPACE_RATE, CACHED_SET_RATE, WakeLimiter } from "./wake-limiter.ts";
import {
  ANNOUNCED_COALESCE_MS,
  BLIND_RECHECK_MS,
  COALESCE_MS,
  MAX_AWAITED,
  MAX_DUE_SETS,
  MAX_PROBES,
  MISSING_RECHECK_MS,
  OBSERVED_COALESCE_MS,
  UNSEEN_RECHECK_MS,
  type ScheduleParams,
} from "./tables.ts";

/** What a shell keeps between invocations (the Worker's storage): when each set is due, the next full pass, where it resumes. */
export interface ScheduleSnapshot {
  /** Time each set (`namespace/name`; `namespace/` for a namespace's ImageLists) is due for a targeted pass. */
  due: Record<string, number>;
  /** Time of the next full (safety) pass; 0: at once. */
  nextFullPassAt: number;
  /** Where an interrupted full pass resumes (after this `namespace/name`). */
  cursor?: string;
}

/** One scheduled set. */
interface Entry {
  at: number;
  /** How many rechecks of its wakes came before its next pass (0: a wake's own pass). */
  recheck: number;
  /** The writes its wakes announced that no pass read yet. */
  awaiting: AnnouncedWrite[];
  /** False once a wake announced no write (or too many): its rechecks are blind (BLIND_RECHECK_MS). */
  announced: boolean;
  /** Time its last pass's outcome alone asked to be looked at (requeueAfter, waiting): a look then passes the set whatever it reads. */
  passAt?: number;
}

/** What the shell does with a due set (`start`). */
export type Start =
  /** Not now (its rate limit, or a probe that did not see the write): it is due again at `at`. */
  | { kind: "wait"; at: number }
  /** Read these awaited objects by name first (one GET each), then call `probed`. */
  | { kind: "probe"; writes: readonly AnnouncedWrite[] }
  /** Pass the set now with these hints, then call `finish`. */
  | { kind: "pass"; hints: PassHints };

/** What a targeted pass reported that the model reads (from pass.ts PassResult). */
export interface SetReport {
  actionCount: number;
  /** The set still waits on something (a pod to become Ready, an error to retry). */
  pending: boolean;
  requeueAfterMs?: number;
  /** Of the awaited writes, those its reads did not include yet. */
  unseenWrites?: readonly AnnouncedWrite[];
  /** The set was found (always true for a namespace's ImageLists). */
  found: boolean;
  /** The shell stopped the pass before it finished (its budget): due again at once. */
  stopped?: boolean;
  /** How many ImageLists the namespace holds after the pass (undefined: not read). */
  imageListCount?: number;
  /** The set it found: whether it has claim templates, and the label keys it reads. */
  seenSet?: KnownSet;
}

/** Why a set is due when it is (logged by the shells; the parity test reads it). */
export type Why = "woken" | "another shard" | "acted" | "stopped" | "woken meanwhile" | "write not seen" | "blind recheck" | "not found yet" | "requeueAfter" | "waiting" | "failed" | "done";

/** What follows a pass of a set: due at `at` (undefined: only a wake or the full pass looks again), and why. */
export interface Next {
  at?: number;
  why: Why;
}

/** What a full pass reported, per set. */
export interface FullReport {
  sets: { key: string; actionCount: number; pending: boolean; requeueAfterMs?: number }[];
  /** Set when it stopped before its last set (budget): the next full pass resumes after it, at once. */
  cursor?: string;
}

const fresh = (at: number): Entry => ({ at, recheck: 0, awaiting: [], announced: true });

export class Schedule {
  private readonly sets = new Map<string, Entry>();
  /** The entries of the sets whose pass is in flight (taken from `sets` by `start`). */
  private readonly running = new Map<string, Entry>();
  private nextFull: number;
  private cursor: string | undefined;
  /** Namespaces whose last targeted pass read no ImageList, with no ImageList wake and no full pass since (bounded). */
  private readonly noImageLists = new Set<string>();
  /** Sets the last targeted pass found, and whether with claim templates (bounded). */
  private readonly knownSets = new Map<string, KnownSet>();
  /** The rate limits of looks whose reads cost requests; a shell's other reads for a set (Node's early orphan lookup) take their tokens here too. */
  readonly limiter: WakeLimiter;
  private readonly cheapLimiter: WakeLimiter;

  constructor(
    private readonly p: ScheduleParams,
    private readonly clock: () => number,
    snapshot?: ScheduleSnapshot,
  ) {
    this.limiter = new WakeLimiter(clock);
    this.cheapLimiter = new WakeLimiter(clock, CACHED_SET_RATE, CACHED_GLOBAL_RATE, undefined, CACHED_NAMESPACE_RATE);
    this.nextFull = snapshot?.nextFullPassAt ?? 0;
    this.cursor = snapshot?.cursor;
    for (const [key, at] of Object.entries(snapshot?.due ?? {})) if (this.sets.size < MAX_DUE_SETS) this.sets.set(key, fresh(at));
  }

  /**
   * wake notes a wake: its set is due after its coalescing time (never later than it already was),
   * its rechecks start afresh, and the write it announces joins those awaited. Returns when the set
   * is due; beyond MAX_DUE_SETS a new set brings the full pass forward instead ("done": not tracked).
   * A wake of another shard's namespace is dropped (its shard's scheduler passes it).
   */
  wake(w: Wake): Next {
    const { shard } = this.p;
    if (shard && shardOf(w.namespace, shard.count) !== shard.index) return { why: "another shard" };
    const key = wakeKey(w);
    if (w.name === "") this.noImageLists.delete(w.namespace);
    const at = this.clock() + (w.observed ? OBSERVED_COALESCE_MS : w.write ? ANNOUNCED_COALESCE_MS : (this.p.coalesceMs ?? COALESCE_MS));
    let e = this.sets.get(key);
    if (!e) {
      if (this.sets.size >= MAX_DUE_SETS) {
        this.nextFull = Math.min(this.nextFull, at);
        return { why: "done" };
      }
      e = fresh(at);
      this.sets.set(key, e);
    }
    // An observed wake's pass reads the change already: it announces nothing to wait for. A wake
    // that adds nothing to a scheduled set (its write awaited already, or none announced on a set
    // whose rechecks are blind already: a burst, a flood of forged reviews) changes nothing: the
    // set's looks stay those of its tables, whatever the number of wakes.
    if (!w.observed) {
      if (!noteWrite(e, w.write)) return { at: e.at, why: "woken" };
      e.recheck = 0;
    }
    e.at = Math.min(e.at, at);
    return { at: e.at, why: "woken" };
  }

  /** dueSets returns the sets due now, earliest first. */
  dueSets(): string[] {
    const now = this.clock();
    return [...this.sets.entries()]
      .filter(([, e]) => e.at <= now)
      .sort((a, b) => a[1].at - b[1].at || (a[0] < b[0] ? -1 : 1))
      .map(([k]) => k);
  }

  /** isDue is true while `key` is due now or its pass is in flight. */
  isDue(key: string): boolean {
    return this.running.has(key) || (this.sets.get(key)?.at ?? Infinity) <= this.clock();
  }

  /** fullPassDue is true when the full pass is due now. */
  fullPassDue(): boolean {
    return this.nextFull <= this.clock();
  }

  /** nextAt returns the time something is due next: the earliest set or the next full pass. */
  nextAt(): number {
    let next = this.nextFull;
    for (const e of this.sets.values()) next = Math.min(next, e.at);
    return next;
  }

  /** requestFullPass makes the full pass due now (the Worker's cron tick; Node's Lease just taken). */
  requestFullPass(): void {
    this.nextFull = Math.min(this.nextFull, this.clock());
  }

  /** deferAll moves everything due before `at` to `at` (the Worker waits for its Lease). */
  deferAll(at: number): void {
    for (const e of this.sets.values()) e.at = Math.max(e.at, at);
    this.nextFull = Math.max(this.nextFull, at);
  }

  /**
   * start begins the look at a due set: "wait" when its rate limit says so (due again then), "probe"
   * when it should read only its awaited objects first (a recheck of wakes that all announced their
   * write, some still unseen, before its outcome's own time), else "pass" (the set's entry is taken
   * until `finish`). `cheap`: the shell's reads cost no request (Node's synced watch cache): higher rates.
   */
  start(key: string, cheap = false): Start | undefined {
    const e = this.sets.get(key);
    if (!e) return undefined;
    const now = this.clock();
    const wait = (cheap ? this.cheapLimiter : this.limiter).take(key, wakeOfKey(key).namespace);
    if (wait > 0) {
      e.at = now + wait;
      return { kind: "wait", at: e.at };
    }
    if (this.probesFirst(key, e, now)) return { kind: "probe", writes: e.awaiting.slice(0, MAX_PROBES) };
    return this.take(key, e);
  }

  /**
   * probesFirst is true for a look at a set whose wakes all announced their write, some unseen, with
   * a look left in the table, before its outcome's own time: a recheck, or a wake's own look when
   * every awaited write is a deletion (slow to land: the apiserver validates a DELETE, finishes a
   * graceful one and, on 1.20, runs its validating webhooks twice; bench:latency --worker saw a
   * kubelet's pod deletion stored 48 ms (median) after its admission, so the wake's pass read the
   * pod still there: a whole pass for nothing, then a probe).
   */
  private probesFirst(key: string, e: Entry, now: number): boolean {
    const deletions = e.awaiting.every((w) => w.operation === "DELETE");
    return !!wakeOfKey(key).name && (e.recheck > 0 || deletions) && e.announced && e.awaiting.length > 0 && UNSEEN_RECHECK_MS[e.recheck] !== undefined && (e.passAt === undefined || now < e.passAt);
  }

  /** probed goes on after a probe: a pass when a write showed (or the table is spent), else the set waits for its next look. */
  probed(key: string, landed: boolean): Start | undefined {
    const e = this.sets.get(key);
    if (!e) return undefined;
    const soon = UNSEEN_RECHECK_MS[e.recheck];
    if (landed || soon === undefined) return this.take(key, e);
    e.recheck++;
    e.at = Math.min(this.clock() + soon, e.passAt ?? Infinity);
    return { kind: "wait", at: e.at };
  }

  /** take starts the set's pass: its entry is held until `finish`, and the hints its pass may use are returned. */
  private take(key: string, e: Entry): Start {
    this.sets.delete(key);
    this.running.set(key, e);
    const { namespace } = wakeOfKey(key);
    const hints: PassHints = {};
    if (e.awaiting.length) hints.awaiting = e.awaiting;
    if (this.noImageLists.has(namespace)) hints.imageListsKnownNone = true;
    const known = this.knownSets.get(key);
    if (known) hints.knownSet = known;
    return { kind: "pass", hints };
  }

  /**
   * finish folds a targeted pass's report (undefined: the pass failed) into the schedule and returns
   * what follows it. A wake that came during the pass stands (its pass also looks for what this one
   * did not read); otherwise, in order: writes made or stopped early, at once; a set not found after
   * an unannounced wake, once MISSING_RECHECK_MS later (while an announced create is unseen, as
   * below); the earlier of its recheck (UNSEEN or BLIND) and its outcome's own time (requeueAfter;
   * waitingRecheckMs while it waits); else nothing.
   */
  finish(key: string, r: SetReport | undefined): Next {
    const e = this.running.get(key) ?? fresh(0);
    this.running.delete(key);
    const now = this.clock();
    if (r) this.noteHints(key, r);
    const unseen = r?.unseenWrites ?? [];
    const again = this.sets.get(key);
    if (again) {
      for (const w of unseen) noteWrite(again, w);
      if (!e.announced) again.announced = false;
      return { at: again.at, why: "woken meanwhile" };
    }
    if (!r) return this.put(key, { ...fresh(now + this.p.waitingRecheckMs) }, "failed");
    if (r.actionCount > 0) return this.put(key, { at: now, recheck: 0, awaiting: [...unseen], announced: e.announced }, "acted");
    if (r.pending && r.stopped) return this.put(key, { ...e, at: now }, "stopped");
    const soon = recheckAfterMs(e, unseen);
    if (!r.found && wakeOfKey(key).name) {
      const missing = unseen.length ? soon : !e.announced && e.recheck === 0 ? MISSING_RECHECK_MS : undefined;
      if (missing === undefined) return this.forget(key);
      return this.put(key, { at: now + missing, recheck: unseen.length ? e.recheck + 1 : Infinity, awaiting: [...unseen], announced: e.announced }, "not found yet");
    }
    const later = r.requeueAfterMs !== undefined ? Math.max(0, r.requeueAfterMs) : r.pending ? this.p.waitingRecheckMs : undefined;
    const why: Why = r.requeueAfterMs !== undefined ? "requeueAfter" : "waiting";
    if (soon !== undefined) {
      // The rechecks go on after an earlier look its outcome asked for (it passes whatever it reads).
      const passAt = later === undefined ? undefined : now + later;
      const recheck: Why = unseen.length ? "write not seen" : "blind recheck";
      return this.put(key, { at: now + Math.min(soon, later ?? Infinity), recheck: e.recheck + 1, awaiting: [...unseen], announced: e.announced, passAt }, soon <= (later ?? Infinity) ? recheck : why);
    }
    if (later !== undefined) return this.put(key, fresh(now + later), why);
    return this.forget(key);
  }

  /** startFull begins the full pass: returns where it resumes. Its reads are the net for a lost ImageList wake too: no namespace is known to hold none after it. */
  startFull(): { startAfter?: string } {
    this.noImageLists.clear();
    return this.cursor === undefined ? {} : { startAfter: this.cursor };
  }

  /**
   * finishFull folds a full pass's report (undefined: failed, tried again waitingRecheckMs later):
   * each set it reported is due per its outcome (writes: at once, as a targeted pass), never later
   * than a recheck it has; the next full pass is intervalMs away, or at once when it stopped early.
   */
  finishFull(r: FullReport | undefined): Next {
    const now = this.clock();
    if (!r) {
      this.nextFull = now + this.p.waitingRecheckMs;
      return { at: this.nextFull, why: "failed" };
    }
    this.cursor = r.cursor;
    this.nextFull = r.cursor !== undefined ? now : now + this.p.intervalMs;
    for (const s of r.sets) {
      const ms = s.actionCount > 0 ? 0 : s.requeueAfterMs !== undefined ? Math.max(0, s.requeueAfterMs) : s.pending ? this.p.waitingRecheckMs : undefined;
      if (ms === undefined || this.running.has(s.key)) continue;
      const e = this.sets.get(s.key);
      if (e) e.at = Math.min(e.at, now + ms);
      else this.put(s.key, fresh(now + ms), "waiting");
    }
    return { at: this.nextFull, why: r.cursor !== undefined ? "stopped" : "done" };
  }

  /**
   * snapshot returns what a shell stores between invocations (the rechecks' bookkeeping and the
   * hints stay in memory: only hints). A set whose pass is in flight is stored as due when it
   * started: a shell that dies before the pass ends passes it again from the stored snapshot.
   */
  snapshot(): ScheduleSnapshot {
    const due: Record<string, number> = {};
    for (const [key, e] of this.running) due[key] = e.at;
    for (const [key, e] of this.sets) due[key] = Math.min(e.at, due[key] ?? Infinity);
    return { due, nextFullPassAt: this.nextFull, ...(this.cursor !== undefined ? { cursor: this.cursor } : {}) };
  }

  /** put schedules `key` by `e`; beyond MAX_DUE_SETS a new set brings the full pass forward instead. */
  private put(key: string, e: Entry, why: Why): Next {
    if (!this.sets.has(key) && this.sets.size >= MAX_DUE_SETS) {
      this.nextFull = Math.min(this.nextFull, e.at);
      return { at: this.nextFull, why };
    }
    this.sets.set(key, e);
    return { at: e.at, why };
  }

  private forget(key: string): Next {
    this.sets.delete(key);
    return { why: "done" };
  }

  /** noteHints keeps what the pass learnt for the next one's hints: a namespace without ImageLists, a set found. */
  private noteHints(key: string, r: SetReport): void {
    const { namespace, name } = wakeOfKey(key);
    if (r.imageListCount === 0 && this.noImageLists.size < MAX_DUE_SETS) this.noImageLists.add(namespace);
    else if (r.imageListCount) this.noImageLists.delete(namespace);
    if (!name) return;
    if (!r.seenSet) this.knownSets.delete(key);
    else if (this.knownSets.size < MAX_DUE_SETS || this.knownSets.has(key)) this.knownSets.set(key, r.seenSet);
  }
}

/**
 * noteWrite adds an announced write to those awaited; a wake that announced none (or one too many)
 * makes the set's rechecks blind. Returns false when the wake added nothing (its write awaited
 * already, or none announced on a set already blind).
 */
function noteWrite(e: Entry, w: AnnouncedWrite | undefined): boolean {
  if (w && e.awaiting.some((a) => sameWrite(a, w))) return false;
  if (w && e.awaiting.length < MAX_AWAITED) {
    e.awaiting.push(w);
    return true;
  }
  const added = e.announced || !!w;
  e.announced = false;
  if (w) e.awaiting = [];
  return added;
}

/**
 * recheckAfterMs returns after how many ms a set whose pass made no write is looked at again soon:
 * UNSEEN_RECHECK_MS while the pass did not read a write its wakes announced, BLIND_RECHECK_MS while
 * a wake announced none; undefined when the pass read every announced write.
 */
function recheckAfterMs(e: Entry, unseen: readonly AnnouncedWrite[]): number | undefined {
  const soon = Math.min(unseen.length ? (UNSEEN_RECHECK_MS[e.recheck] ?? Infinity) : Infinity, e.announced ? Infinity : (BLIND_RECHECK_MS[e.recheck] ?? Infinity));
  return soon === Infinity ? undefined : soon;
}
