import type { KubeClient } from "../kube/client.ts";
import { errorFields } from "../log/log.ts";
import { shardOf } from "../reconciler/pass.ts";
import { DEFAULT_ELECTION } from "../lease/elector.ts";
import { PassLock, ReconcileScheduler, type SchedulerOptions, type SetWake } from "./scheduler.ts";
import { ShardShare } from "../lease/shard-share.ts";

/**
 * ShardSchedulers is `ordinal serve`'s reconciler when the namespaces are hashed onto `count`
 * shards (RECONCILE_SHARDS): one ReconcileScheduler per shard, each electing itself for its shard's
 * Lease (`ordinal-reconciler-<i>-of-<n>`, client-go style), so every replica takes the shards whose
 * Leases it can hold: two replicas share the shards, and when one dies the others take its shards
 * over once its Leases expire. Wakes go to the scheduler of their namespace's shard; passes run one
 * at a time in the process (a pass holds one namespace's objects: the process's heap stays bounded
 * by the largest namespace, whatever number of shards it holds). Registration repair runs before
 * shard 0's full passes only. With count 1 it is one unsharded scheduler (Lease `ordinal-reconciler`).
 *
 * Sharing (count > 1), level-triggered from the Leases (shard-share.ts): a replica announces itself
 * (its replica Lease) in its first round and takes nothing until its second, a poll later, so
 * replicas started together count each other before anyone takes a shard. Every round gives it its
 * target (shareTargets: the shards split evenly over the live members). Below it, it takes free
 * Leases (never taken, or released) up to the target, the free shards of its own part of the range
 * first, and looks again every poll (a quarter of a retry period) until it holds its target: a
 * shard another member gives back is taken within a poll. Above it, it gives back the surplus at
 * once, highest index first, each after its pass in flight (fenced: the next holder never acts
 * beside it), and does not take a shard it gave back for a retry period. Leases held by a replica
 * that died (unrenewed) are taken over by the electors as soon as they expire, whatever the
 * survivor holds; the next rounds even the shares out. Lease writes: the replica Lease once per
 * retry period, each held shard's once per retry period, one per shard handed over.
 */
export class ShardSchedulers {
  private readonly shards: ReconcileScheduler[];
  private readonly share: ShardShare | undefined;
  private readonly clock: () => number;
  private readonly retryPeriodMs: number;
  /** This replica's target as the last round computed it (undefined before its second round: take nothing free yet). */
  private target: number | undefined;
  /** The free shards the last round would have this replica take, in its order of preference. */
  private wanted: number[] = [];
  /** Free shards this replica was allowed to take, and when (local ms): counted as held for a retry period. */
  private readonly granted = new Map<number, number>();
  /** Shards this replica gave back, and when: not taken again by it for a retry period. */
  private readonly gaveBack = new Map<number, number>();
  private stopped = false;
  private balancing: Promise<void> | undefined;
  private wakeBalance: (() => void) | undefined;

  constructor(
    client: KubeClient,
    private readonly o: SchedulerOptions,
    private readonly count: number,
  ) {
    const passLock = new PassLock();
    this.clock = o.clock ?? (() => performance.now());
    const timing = o.election ?? DEFAULT_ELECTION;
    this.retryPeriodMs = timing.retryPeriodMs;
    this.share = count > 1 ? new ShardShare(client, o.leaseNamespace, o.holder, count, this.clock, o.now ?? (() => new Date()), timing.durationMs, timing.retryPeriodMs) : undefined;
    this.shards = Array.from(
      { length: count },
      (_, index) =>
        new ReconcileScheduler(client, {
          ...o,
          passLock,
          mayTakeFree: count > 1 ? () => this.mayTake(index) : undefined,
          shard: count > 1 ? { index, count } : undefined,
          beforePass: index === 0 ? o.beforePass : undefined,
        }),
    );
  }

  /** held returns the indexes of the shards this process acts for now. */
  held(): number[] {
    return this.shards.flatMap((s, i) => (s.acts() ? [i] : []));
  }

  /** wake hands the wake to the scheduler of its namespace's shard (which forwards it to the shard's holder unless it acts; `forwarded`: from another replica). */
  wake(w: SetWake, forwarded = false): void {
    this.shards[shardOf(w.namespace, this.count)].wake(w, forwarded);
  }

  start(): void {
    if (this.share) this.balancing = this.balanceLoop(this.share);
    for (const s of this.shards) s.start();
  }

  /** stop stops every shard's scheduler (after its pass in flight), releases their Leases and removes this replica's. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeBalance?.();
    await this.balancing;
    await Promise.all(this.shards.map((s) => s.stop()));
    await this.share?.stop();
  }

  /** mayTake returns true when this replica may take shard `index`'s free Lease: the last round wanted it, and it holds (or was granted) fewer than its target. */
  private mayTake(index: number): boolean {
    const t = this.clock();
    if (this.target === undefined || t - (this.gaveBack.get(index) ?? -Infinity) < this.retryPeriodMs) return false;
    for (const [i, at] of this.granted) if (t - at >= this.retryPeriodMs) this.granted.delete(i);
    const mine = new Set([...this.held(), ...this.granted.keys()]);
    if (!mine.has(index) && (mine.size >= this.target || !this.wanted.includes(index))) return false;
    this.granted.set(index, t);
    return true;
  }

  /**
   * balanceLoop runs a share round every retry period (renewing the replica Lease), and every poll
   * (a quarter of one; a Lease list only) while this replica is below its target. The first round
   * only announces: the second, a poll later, is the first to take or give back.
   */
  private async balanceLoop(share: ShardShare): Promise<void> {
    const pollMs = this.retryPeriodMs / 4;
    let renewedAt: number | undefined;
    let announced = false;
    while (!this.stopped) {
      let waitMs = pollMs;
      try {
        const renew = renewedAt === undefined || this.clock() - renewedAt >= this.retryPeriodMs;
        const started = this.clock();
        const round = await share.round(renew);
        if (renew) renewedAt = started;
        // The first round announced this replica: act from the next, once replicas started with it announced themselves too.
        if (!announced) announced = true;
        else if (this.rebalance(round.target, round.free, round.replicas)) waitMs = this.retryPeriodMs;
        // The next renewal is due a retry period after this one, whatever the polls in between.
        waitMs = Math.min(waitMs, Math.max(0, renewedAt! + this.retryPeriodMs - this.clock()));
      } catch (e) {
        this.o.log.warn("shard share round failed", { holder: this.o.holder, ...errorFields(e) });
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, waitMs);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.wakeBalance = done;
      });
    }
  }

  /**
   * rebalance applies a round: gives back the held shards above `target` (highest index first), or
   * asks the free shards' schedulers it wants to try now while below it. Returns true when this
   * replica holds its target or more (no need to look again before the next renewal).
   */
  private rebalance(target: number, free: number[], replicas: number): boolean {
    if (target !== this.target) this.o.log.info("shard share", { holder: this.o.holder, replicas, share: target, holds: this.held().length });
    this.target = target;
    const held = this.held();
    if (held.length > target) {
      const t = this.clock();
      const surplus = held.slice(target).reverse();
      for (const i of surplus) {
        this.gaveBack.set(i, t);
        this.shards[i].relinquish();
      }
      this.o.log.info("shards given back to balance the replicas", { holder: this.o.holder, share: target, released: surplus });
      return true;
    }
    this.wanted = free.filter((x) => !held.includes(x)).slice(0, target - held.length);
    for (const i of this.wanted) this.shards[i].retryNow();
    return held.length >= target;
  }
}
