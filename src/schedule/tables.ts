/**
 * The numbers of the schedule model (model.ts), one table for both runtimes, and the parameters
 * in which the runtimes differ on purpose (ScheduleParams): each says why.
 */

/**
 * A wake comes from admission, before the write it announces is stored: one that does not say
 * which write (an ImageList's, a hostile caller's) waits this long before its pass (ms), so its
 * pass rarely reads the state before the write; wakes meanwhile join it (bench:latency
 * --worker-only: a pass 17 ms after a kubelet's status admission read the old status).
 */
export const COALESCE_MS = 25;

/**
 * A wake that announces its write waits this long (ms): its admission answers before the write is
 * stored, so a pass at once mostly reads before it (and looks again UNSEEN_RECHECK_MS[0] later,
 * reading only the awaited objects first: two more round trips); a burst of such wakes (a kubelet's
 * status writes, forged reviews) joins one pass. Node's scheduler waited 15 ms for every wake.
 */
export const ANNOUNCED_COALESCE_MS = 15;

/** A wake a watch observed (Node's cache) is gathered this long (ms): its pass reads memory, so only bursts wait. */
export const OBSERVED_COALESCE_MS = 2;

/**
 * A pass that did not read a write its wakes announced (it read before the write was stored) looks
 * again this long after (ms), one after the other, while it still does not. Each look first reads
 * only the awaited objects by name (one GET each: probesFirst), and passes the set once one of them
 * shows its write: so the looks can be close together. A loaded apiserver stored a kubelet's pod
 * deletion 160 ms after admitting it (bench:latency --worker-only); after 1 s and 3 s as BLIND_RECHECK_MS.
 */
export const UNSEEN_RECHECK_MS: readonly number[] = [10, 20, 20, 30, 50, 50, 100, 100, 250, 500, 1000, 3000];

/**
 * A set woken by wakes that did not all announce their write, whose pass made no write, is looked at
 * again this long after (ms), one after the other, whether it waits or is converged: its pass may
 * have read the state before the write (a pod still not Ready, the old template). A loaded
 * apiserver stored a pod's deletion more than 500 ms after admitting it (2 shared cores).
 */
export const BLIND_RECHECK_MS: readonly number[] = [50, 250, 1000, 3000];

/** How long after a wake whose set was not found (its CREATE not stored yet; no write announced) to look once more (ms). */
export const MISSING_RECHECK_MS = 250;

/** A recheck reads at most this many awaited objects by name before it passes the set or waits more. */
export const MAX_PROBES = 3;

/** Announced writes kept per set; beyond, its wakes count as announcing none (blind rechecks). */
export const MAX_AWAITED = 32;

/** At most this many sets are scheduled; beyond, a new one brings the full pass forward instead (memory follows what exists, not what callers name). */
export const MAX_DUE_SETS = 5_000;

/**
 * Where the runtimes differ, on purpose. Everything else (coalescing, the recheck tables, awaited
 * writes, rate limits, what follows a pass) is the same code with the same numbers.
 */
export interface ScheduleParams {
  /** Wakes that announce no write wait this long (ms; default COALESCE_MS). Tests whose clock is their own set 0. */
  coalesceMs?: number;
  /** The shard whose namespaces this model schedules (default: every namespace); a wake of another shard's namespace is dropped. */
  shard?: { index: number; count: number };
  /** Full (safety) passes this far apart (ms): RECONCILE_INTERVAL_MS on both. */
  intervalMs: number;
  /**
   * A set that waits (on a pod, an error to retry) with no time asked for and no recheck left, or
   * whose pass failed, is looked at again after this long (ms), in case the wake that ends its wait
   * is lost. Node: its idle time (1 s): a look reads the watch cache's memory and costs no
   * invocation. Worker: WORKER_WAITING_RECHECK_MS (10 s): each look is an alarm, an invocation and
   * its reads, and the cron tick's full pass is the net below it.
   */
  waitingRecheckMs: number;
}

/** The Worker's waitingRecheckMs (see ScheduleParams). */
export const WORKER_WAITING_RECHECK_MS = 10_000;
