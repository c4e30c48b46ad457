import type { KubeClient } from "../kube/client.ts";
import { shardOf } from "./pass.ts";
import { DEFAULT_ELECTION } from "./elector.ts";
import { PassLock, ReconcileScheduler, type SchedulerOptions, type SetWake } from "./scheduler.ts";

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
 * Sharing: a Lease someone holds is taken over only once expired (the elector's rule), but a free
 * one (never taken, or released) would go to whichever replica asks first, and a replica that
 * starts first would take them all. So a replica takes one free Lease at a time (half a retry
 * period apart), and while holding k shards only k retry periods after it last took one: replicas that start together alternate (each holds some within
 * one retry period, about n/replicas each after a few), and the Leases of a replica that died (held,
 * unrenewed) are taken over as soon as they expire, whatever the survivor holds.
 */
export class ShardSchedulers {
  private readonly shards: ReconcileScheduler[];

  constructor(
    client: KubeClient,
    o: SchedulerOptions,
    private readonly count: number,
  ) {
    const passLock = new PassLock();
    const clock = o.clock ?? (() => performance.now());
    const retryPeriodMs = (o.election ?? DEFAULT_ELECTION).retryPeriodMs;
    let lastTakeAt = -Infinity;
    const mayTakeFree = () => {
      const t = clock();
      if (t - lastTakeAt < Math.max(0.5, this.held().length) * retryPeriodMs) return false;
      lastTakeAt = t;
      return true;
    };
    this.shards = Array.from(
      { length: count },
      (_, index) =>
        new ReconcileScheduler(client, {
          ...o,
          passLock,
          mayTakeFree: count > 1 ? mayTakeFree : undefined,
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
    for (const s of this.shards) s.start();
  }

  /** stop stops every shard's scheduler (after its pass in flight) and releases their Leases. */
  async stop(): Promise<void> {
    await Promise.all(this.shards.map((s) => s.stop()));
  }
}
