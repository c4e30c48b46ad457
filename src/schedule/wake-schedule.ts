/**
 * When a shard's reconciler (the Worker's Durable Object per shard) must look again: pure
 * bookkeeping of the times sets asked to be passed again (a plan's requeueAfter: grace periods,
 * minReadySeconds, backoff; a set still waiting on pods) and of the next full (safety) pass. The
 * object keeps one ShardSchedule in its storage, runs what `dueAt` says is due, folds each pass's
 * result back in, and sets its alarm for `nextAlarmAt`. Per woken set it also keeps (in memory) the
 * writes its wakes announced (objects/announced-write.ts): a pass that read them all is not looked
 * at again blindly, one that read too early looks again at once (`recheckAfterMs`).
 */
import type { AnnouncedWrite } from "../objects/announced-write.ts";

export interface ShardSchedule {
  /** Epoch ms at which each set (`namespace/name`; `namespace/` for a namespace's ImageLists) is due for a targeted pass. */
  due: Record<string, number>;
  /** Epoch ms of the next full pass of the shard (the safety net); 0: at once. */
  nextFullPassAt: number;
  /** Where an interrupted full pass resumes (after this `namespace/name`). */
  cursor?: string;
}

/** What one pass of a set (or a full pass) reported that matters for its next look. */
export interface PassOutcome {
  /** Writes the pass made: the next pass may have more to do at once. */
  actionCount: number;
  /** The set is still waiting on something (a pod to become Ready, an error to retry). */
  pending: boolean;
  /** The plan asked to be looked at again after this many ms. */
  requeueAfterMs?: number;
}

/** At most this many sets are tracked; beyond, the full pass is brought forward instead (work grows with what exists, the map does not). */
export const MAX_DUE_SETS = 5_000;

/**
 * A set waiting with no write to make and no time asked for is looked at again after this long,
 * in case the wake that would end its wait (a pod's status update) is lost.
 */
export const WAITING_RECHECK_MS = 10_000;

/**
 * A set woken by wakes that did not all announce their write (an ImageList's, a hostile caller's)
 * whose pass made no write is looked at again this long after (ms), one after the other: a wake
 * comes from admission, before the write it announces is stored, so its pass may have read the
 * state before it (a pod still not Ready, the old template). As Node's scheduler (50, 250 ms), and
 * after 1 s and 3 s: a loaded apiserver stored a pod's deletion more than 500 ms after admitting it
 * (bench:latency --worker-only, 2 shared cores).
 */
export const WOKEN_RECHECK_MS: readonly number[] = [50, 250, 1000, 3000];

/**
 * A pass that did not read a write its wakes announced (it read before the write was stored) looks
 * again this long after (ms), one after the other, while it still does not. Each look first reads
 * only the awaited objects by name (one GET each), and passes the set once one of them shows its
 * write: so the looks can be close together. A loaded apiserver stored a kubelet's pod deletion
 * 160 ms after admitting it (bench:latency --worker-only); after 1 s and 3 s as WOKEN_RECHECK_MS.
 */
export const UNSEEN_RECHECK_MS: readonly number[] = [10, 20, 20, 30, 50, 50, 100, 100, 250, 500, 1000, 3000];

/** Announced writes kept per woken set; beyond, its wakes count as announcing none (blind rechecks). */
export const MAX_AWAITED = 32;

/** What a shard remembers of a woken set until its rechecks end (in memory: lost with the object, only a hint). */
export interface WokenSet {
  /** How many rechecks of its wakes came before its next pass (0: a wake's own pass). */
  recheck: number;
  /** The writes its wakes announced that no pass read yet. */
  awaiting: readonly AnnouncedWrite[];
  /** False once a wake announced no write (or too many): its rechecks are blind (WOKEN_RECHECK_MS). */
  announced: boolean;
  /** Epoch ms its last pass's outcome alone asked to be looked at (requeueAfter, a waiting recheck): a look then passes the set whatever it reads. */
  passAt?: number;
}

const sameWrite = (a: AnnouncedWrite) => (b: AnnouncedWrite) => a.resource === b.resource && a.name === b.name && a.operation === b.operation && a.resourceVersion === b.resourceVersion;

/** awaitingAlso returns `w` also awaiting `writes` (bounded by MAX_AWAITED: beyond, it turns blind). */
export function awaitingAlso(w: WokenSet, writes: readonly AnnouncedWrite[]): WokenSet {
  const awaiting = [...w.awaiting];
  for (const x of writes) if (!awaiting.some(sameWrite(x))) awaiting.push(x);
  return awaiting.length > MAX_AWAITED ? { ...w, awaiting: [], announced: false } : { ...w, awaiting };
}

/**
 * wokenBy returns the woken set after a wake announcing `write` (undefined: none announced, its
 * rechecks turn blind): its rechecks start afresh, the write joins those awaited.
 */
export function wokenBy(w: WokenSet | undefined, write: AnnouncedWrite | undefined): WokenSet {
  const cur: WokenSet = { recheck: 0, awaiting: w?.awaiting ?? [], announced: w?.announced ?? true, passAt: w?.passAt };
  return write ? awaitingAlso(cur, [write]) : { ...cur, announced: false };
}

/**
 * recheckAfterMs returns after how many ms a woken set whose pass made no write is looked at again
 * soon (or undefined: only when its outcome says, nextLookMs): UNSEEN_RECHECK_MS while the pass
 * did not read a write its wakes announced (`unseen`), WOKEN_RECHECK_MS while a wake announced
 * none; never when the pass read every announced write (it saw what its wakes announced).
 */
export function recheckAfterMs(w: WokenSet, unseen: readonly AnnouncedWrite[]): number | undefined {
  const soon = Math.min(unseen.length ? (UNSEEN_RECHECK_MS[w.recheck] ?? Infinity) : Infinity, w.announced ? Infinity : (WOKEN_RECHECK_MS[w.recheck] ?? Infinity));
  return soon === Infinity ? undefined : soon;
}

/** emptySchedule returns the schedule of a shard never passed: a full pass is due at once. */
export const emptySchedule = (): ShardSchedule => ({ due: {}, nextFullPassAt: 0 });

/** dueAt returns the sets due at `now` (earliest first) and whether the full pass is due. */
export function dueAt(s: ShardSchedule, now: number): { sets: string[]; fullPass: boolean } {
  const sets = Object.entries(s.due)
    .filter(([, t]) => t <= now)
    .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
    .map(([k]) => k);
  return { sets, fullPass: s.nextFullPassAt <= now };
}

/**
 * probesFirst is true when a woken set's look at `now` may read only its awaited objects first:
 * a recheck (not a wake's own pass) of wakes that all announced their write, some still awaited,
 * before the time its last outcome asked for.
 */
export const probesFirst = (w: WokenSet, now: number): boolean => w.recheck > 0 && w.announced && w.awaiting.length > 0 && (w.passAt === undefined || now < w.passAt);

/**
 * nextLookMs returns after how many ms a set with this outcome is looked at again: at once after
 * writes, its requeueAfter, a recheck while it waits, or undefined (only a wake or the full pass).
 * `soonMs` (a woken set's recheck, recheckAfterMs) brings the look forward, whether the set waits or not.
 */
export function nextLookMs(o: PassOutcome, soonMs?: number): number | undefined {
  if (o.actionCount > 0) return 0;
  const later = o.requeueAfterMs !== undefined ? Math.max(0, o.requeueAfterMs) : o.pending ? WAITING_RECHECK_MS : undefined;
  return soonMs === undefined ? later : Math.min(soonMs, later ?? Infinity);
}

/**
 * withDue returns the schedule with `key` due at `at` (the earlier of its current time and `at`
 * when `keepEarlier`), or without it when `at` is undefined. When MAX_DUE_SETS are tracked already,
 * a new key brings the full pass forward to `at` instead.
 */
export function withDue(s: ShardSchedule, key: string, at: number | undefined, keepEarlier = false): ShardSchedule {
  const due = { ...s.due };
  if (at === undefined) {
    delete due[key];
    return { ...s, due };
  }
  if (!(key in due) && Object.keys(due).length >= MAX_DUE_SETS) return { ...s, nextFullPassAt: Math.min(s.nextFullPassAt, at) };
  due[key] = keepEarlier && key in due ? Math.min(due[key], at) : at;
  return { ...s, due };
}

/**
 * afterSetPass returns the schedule after a targeted pass of `key` finished at `now`: the set is
 * due again when its outcome (and, for a woken set, its recheck `soonMs`) says (nextLookMs), or no longer tracked.
 */
export function afterSetPass(s: ShardSchedule, key: string, o: PassOutcome, now: number, soonMs?: number): ShardSchedule {
  const ms = nextLookMs(o, soonMs);
  return withDue(s, key, ms === undefined ? undefined : now + ms);
}

/**
 * afterFullPass returns the schedule after a full pass finished at `now`: each set it reported is
 * due per its outcome (sets it did not report keep their times), and the next full pass is
 * `intervalMs` away, or at once when the pass stopped early (`cursor`: budget spent).
 */
export function afterFullPass(
  s: ShardSchedule,
  sets: { set: string; outcome: PassOutcome }[],
  cursor: string | undefined,
  now: number,
  intervalMs: number,
): ShardSchedule {
  let next: ShardSchedule = { ...s, cursor, nextFullPassAt: cursor ? now : now + intervalMs };
  for (const { set, outcome } of sets) next = afterSetPass(next, set, outcome, now);
  return next;
}

/** nextAlarmAt returns the epoch ms the shard must wake at: its earliest due set or its next full pass. */
export function nextAlarmAt(s: ShardSchedule): number {
  return Math.min(s.nextFullPassAt, ...Object.values(s.due));
}
