import type { KubeClient } from "../kube/client.ts";
import { acquireLease, releaseLease, type LeaseOptions, type LeaseRecord } from "./lease.ts";

/**
 * Leader election as client-go does it (k8s.io/client-go/tools/leaderelection), for a process that
 * keeps running (`ordinal serve`): the Lease is held while the process is active and renewed every
 * `retryPeriodMs`, not taken and released per pass. Two rules make "two reconcilers act at once"
 * impossible without trusting clocks to agree:
 * - another holder's lease has expired only when this process has seen its record (holder,
 *   renewTime, …) unchanged for `durationMs` of its OWN clock, counted from when it first saw that
 *   record; renewTime is never compared with the local clock;
 * - the holder acts only while its last successful renewal was SENT less than `renewDeadlineMs`
 *   ago (isLeader, the fence every write checks): renewDeadlineMs < durationMs, so it stops before
 *   any other process can judge the lease expired, with durationMs - renewDeadlineMs to spare for
 *   a write already in flight.
 * Lease writes: one per retryPeriodMs while leading, none per pass.
 */

export interface ElectionTiming {
  /** How long others wait, by their own observation, before taking an unrenewed lease over (client-go LeaseDuration). */
  durationMs: number;
  /** The holder stops acting once its last renewal was sent this long ago (client-go RenewDeadline). */
  renewDeadlineMs: number;
  /** How often the holder renews and a candidate retries (client-go RetryPeriod). */
  retryPeriodMs: number;
}

export const DEFAULT_ELECTION: ElectionTiming = { durationMs: 30_000, renewDeadlineMs: 20_000, retryPeriodMs: 10_000 };

/** electionFor returns the timing of a `seconds` long lease in DEFAULT_ELECTION's proportions: renew deadline 2/3 of it, retry period 1/3. */
export const electionFor = (seconds: number): ElectionTiming => ({ durationMs: seconds * 1000, renewDeadlineMs: Math.round((seconds * 2000) / 3), retryPeriodMs: Math.round((seconds * 1000) / 3) });

/** recordKey is what identifies one renewal of a lease: a changed key is a renewal observed. */
const recordKey = (r: LeaseRecord): string => JSON.stringify([r.holderIdentity ?? "", r.renewTime ?? "", r.acquireTime ?? "", r.leaseDurationSeconds ?? 0, r.leaseTransitions ?? 0]);

export class LeaderElector {
  /** The other holder's record as last seen, and when (local ms) it was first seen so. */
  private observed: { key: string; at: number; durationMs: number } | undefined;
  /** Local time (ms) at which the last successful acquire or renew was sent. */
  private renewedAt: number | undefined;

  constructor(
    private readonly client: KubeClient,
    private readonly lease: LeaseOptions,
    /** Local monotonic milliseconds (performance.now in production; a fake in tests). */
    private readonly clock: () => number,
    /** Wall time written into renewTime/acquireTime (for people; never judged by others). */
    private readonly wall: () => Date = () => new Date(),
    readonly timing: ElectionTiming = DEFAULT_ELECTION,
  ) {
    if (!(timing.renewDeadlineMs < timing.durationMs && timing.retryPeriodMs < timing.renewDeadlineMs)) {
      throw new Error(`leader election needs retryPeriod < renewDeadline < leaseDuration (got ${timing.retryPeriodMs}, ${timing.renewDeadlineMs}, ${timing.durationMs} ms)`);
    }
  }

  /** isLeader returns true while this process may act: its last renewal was sent less than renewDeadlineMs ago. */
  isLeader(): boolean {
    return this.renewedAt !== undefined && this.clock() - this.renewedAt < this.timing.renewDeadlineMs;
  }

  /** leaderEndpoint returns where the Lease's other holder takes forwarded wakes, as last read (undefined while this process leads). */
  leaderEndpoint(): string | undefined {
    return this.isLeader() ? undefined : this.lease.holderEndpoint?.value;
  }

  /**
   * msUntilRenew returns how long until the next renewal (or retry) is due; 0 when due now. A
   * candidate retries every retry period, and also just when another holder's record it saw would
   * expire (a dead holder's Lease is taken as soon as it may be, not up to a retry period later).
   */
  msUntilRenew(): number {
    if (this.renewedAt === undefined || !this.isLeader()) {
      if (this.lastTry === undefined) return 0;
      const retryAt = this.lastTry + this.timing.retryPeriodMs;
      // Only an expiry after the last attempt: one already tried is not tried again at once.
      const expiresAt = this.observed && this.observed.at + this.observed.durationMs > this.lastTry ? this.observed.at + this.observed.durationMs : Infinity;
      return Math.max(0, Math.min(retryAt, expiresAt) - this.clock());
    }
    return Math.max(0, this.renewedAt + this.timing.retryPeriodMs - this.clock());
  }
  private lastTry: number | undefined;

  /**
   * tryAcquireOrRenew makes one attempt (a GET and at most one write) and returns isLeader()
   * after it. Errors are thrown; leadership then lapses by itself at the renew deadline.
   */
  async tryAcquireOrRenew(): Promise<boolean> {
    const sent = this.clock();
    this.lastTry = sent;
    const expired = (cur: LeaseRecord): boolean => {
      if (!cur.holderIdentity) return true; // released
      const key = recordKey(cur);
      const durationMs = cur.leaseDurationSeconds ? cur.leaseDurationSeconds * 1000 : this.timing.durationMs;
      if (this.observed?.key !== key) this.observed = { key, at: sent, durationMs };
      return sent - this.observed.at >= durationMs;
    };
    const ok = await acquireLease(this.client, { ...this.lease, durationSeconds: Math.ceil(this.timing.durationMs / 1000) }, this.wall(), expired);
    if (ok) {
      this.renewedAt = sent;
      this.observed = undefined;
    }
    return this.isLeader();
  }

  /** release gives the lease up (so a successor need not wait) and stops acting at once. */
  async release(): Promise<void> {
    const held = this.renewedAt !== undefined;
    this.renewedAt = undefined;
    if (held) await releaseLease(this.client, this.lease);
  }
}
