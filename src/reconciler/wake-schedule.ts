/**
 * When a shard's reconciler (the Worker's Durable Object per shard) must look again: pure
 * bookkeeping of the times sets asked to be passed again (a plan's requeueAfter: grace periods,
 * minReadySeconds, backoff; a set still waiting on pods) and of the next full (safety) pass. The
 * object keeps one ShardSchedule in its storage, runs what `dueAt` says is due, folds each pass's
 * result back in, and sets its alarm for `nextAlarmAt`.
 */

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
 * A woken set whose pass made no write is looked at again this long after (ms), one after the
 * other: a wake comes from admission, before the write it announces is stored, so its pass may
 * have read the state before it (a pod still not Ready, the old template). As Node's scheduler.
 */
export const WOKEN_RECHECK_MS: readonly number[] = [50, 250];

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
 * nextLookMs returns after how many ms a set with this outcome is looked at again: at once after
 * writes, its requeueAfter, a recheck while it waits, or undefined (only a wake or the full pass).
 * `recheck` (a woken set's pass: how many rechecks of its wake came before) brings the look
 * forward to WOKEN_RECHECK_MS[recheck] while any are left, whether the set waits or not.
 */
export function nextLookMs(o: PassOutcome, recheck?: number): number | undefined {
  if (o.actionCount > 0) return 0;
  const later = o.requeueAfterMs !== undefined ? Math.max(0, o.requeueAfterMs) : o.pending ? WAITING_RECHECK_MS : undefined;
  const soon = recheck === undefined ? undefined : WOKEN_RECHECK_MS[recheck];
  return soon === undefined ? later : Math.min(soon, later ?? Infinity);
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
 * due again when its outcome (and, for a woken set, its `recheck`) says (nextLookMs), or no longer tracked.
 */
export function afterSetPass(s: ShardSchedule, key: string, o: PassOutcome, now: number, recheck?: number): ShardSchedule {
  const ms = nextLookMs(o, recheck);
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
