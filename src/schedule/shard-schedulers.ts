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
 * Sharing (count > 1): once per retry period a round (shard-share.ts: one Lease list, one write)
 * counts the live replicas and gives this one its fair share, ceil(n / replicas). A free Lease
 * (never taken, or released) is taken only while this replica holds fewer than its share, and the
 * round asks the free shards' schedulers to try at once: a lone replica holds all n after its
 * first round. A replica above its share for two rounds in a row (hysteresis: a replica that
 * starts or dies moves shards once, not back and forth) gives back the excess, highest index
 * first, after each one's pass in flight; it does not take a shard it gave back for a lease
 * duration. Leases held by a replica that died (unrenewed) are taken over by the electors as soon
 * as they expire, whatever the survivor holds.
 */
export class ShardSchedulers {
  private readonly shards: ReconcileScheduler[];
  private readonly share: ShardShare | undefined;
  private readonly clock: () => number;
  private readonly retryPeriodMs: number;
  private readonly durationMs: number;
  /** This replica's share as the last round computed it (undefined before the first round: take nothing free yet). */
  private fair: number | undefined;
  /** Free shards this replica was allowed to take, and when (local ms): counted as held for a retry period. */
  private readonly granted = new Map<number, number>();
  /** Shards this replica gave back, and when: not taken again by it for a lease duration. */
  private readonly gaveBack = new Map<number, number>();
  /** Consecutive rounds this replica held more than its share. */
  private roundsAbove = 0;
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
    this.durationMs = timing.durationMs;
    this.share = count > 1 ? new ShardShare(client, o.leaseNamespace, o.holder, count, this.clock, o.now ?? (() => new Date()), timing.durationMs) : undefined;
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

  /** mayTake returns true when this replica may take shard `index`'s free Lease: it holds (or was granted) fewer than its share. */
  private mayTake(index: number): boolean {
    const t = this.clock();
    if (this.fair === undefined || t - (this.gaveBack.get(index) ?? -Infinity) < this.durationMs) return false;
    for (const [i, at] of this.granted) if (t - at >= this.retryPeriodMs) this.granted.delete(i);
    const mine = new Set([...this.held(), ...this.granted.keys()]);
    if (!mine.has(index) && mine.size >= this.fair) return false;
    this.granted.set(index, t);
    return true;
  }

  /** balanceLoop runs a share round every retry period: takes free shards up to the share at once, gives back what is above it. */
  private async balanceLoop(share: ShardShare): Promise<void> {
    while (!this.stopped) {
      try {
        const round = await share.round();
        this.fair = round.share;
        this.rebalance(round.share, round.free);
      } catch (e) {
        this.o.log.warn("shard share round failed", { holder: this.o.holder, ...errorFields(e) });
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.retryPeriodMs);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.wakeBalance = done;
      });
    }
  }

  /** rebalance asks free shards' schedulers to try now while below `fair`, and gives back the highest held shards after two rounds above it. */
  private rebalance(fair: number, free: number[]): void {
    const held = this.held();
    this.roundsAbove = held.length > fair ? this.roundsAbove + 1 : 0;
    if (this.roundsAbove >= 2) {
      this.roundsAbove = 0;
      const t = this.clock();
      for (const i of held.slice(fair).reverse()) {
        this.gaveBack.set(i, t);
        this.shards[i].relinquish();
      }
      this.o.log.info("shards given back to balance the replicas", { holder: this.o.holder, share: fair, released: held.slice(fair) });
      return;
    }
    if (held.length >= fair) return;
    for (const i of free.filter((x) => !held.includes(x)).slice(0, fair - held.length)) this.shards[i].retryNow();
  }
}
