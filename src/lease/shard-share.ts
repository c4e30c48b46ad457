import type { Lease } from "../api/k8s.ts";
import { isAlreadyExists, isConflict, type KubeClient } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import { isReplicaLease, LeaseObservations, replicaLeaseName, shardOfLease } from "./shard-leases.ts";

/**
 * ShardShare tells an `ordinal serve` replica its fair share of the shards (shard-schedulers.ts).
 * Once per retry period it lists the Leases (one request), renews its own replica Lease
 * (`ordinal-reconciler-replica-<hash>-of-<n>`: a replica that holds no shard yet still counts), and
 * counts the live replicas: the distinct holders of live replica Leases and shard Leases of this
 * count (a Worker's shards too), itself included. Its share is ceil(n / replicas). Replica Leases
 * seen unrenewed for their duration are deleted (a replica that died leaves no litter); the own one
 * is deleted at stop.
 */

/** fairShare returns how many of `count` shards one of `replicas` live replicas holds at most: ceil(count / replicas). */
const fairShare = (count: number, replicas: number): number => Math.ceil(count / Math.max(1, replicas));

/** What one round saw. */
export interface ShareRound {
  /** The most shards this replica should hold now. */
  share: number;
  /** Shards whose Lease no one holds (never created, or released). */
  free: number[];
  /** The live replicas counted (this one included). */
  replicas: number;
}

/** microTime formats a Date as metav1.MicroTime. */
const microTime = (d: Date): string => `${d.toISOString().slice(0, -1)}000Z`;

export class ShardShare {
  private readonly observations: LeaseObservations;
  private readonly name: string;

  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    private readonly holder: string,
    private readonly count: number,
    /** Local monotonic ms. */
    private readonly clock: () => number,
    private readonly wall: () => Date,
    private readonly durationMs: number,
  ) {
    this.observations = new LeaseObservations(durationMs);
    this.name = replicaLeaseName(holder, count);
  }

  /** round lists the Leases, renews this replica's own, and returns its share and the free shards. */
  async round(): Promise<ShareRound> {
    const t = this.clock();
    const leases = await this.client.list<Lease>(R.leases, this.namespace, { limit: 500 });
    const replicas = new Set([this.holder]);
    const held = new Set<number>();
    let mine: Lease | undefined;
    for (const l of leases) {
      const name = l.metadata?.name ?? "";
      const shard = shardOfLease(name, this.count);
      const replica = isReplicaLease(name, this.count);
      if (name === this.name) mine = l;
      if (name === this.name || (shard === undefined && !replica) || !l.spec?.holderIdentity) continue;
      if (shard !== undefined) held.add(shard);
      if (this.observations.live(l, t)) replicas.add(l.spec.holderIdentity);
      else if (replica) await this.removeDead(l);
    }
    this.observations.endList();
    await this.renew(mine);
    const free = Array.from({ length: this.count }, (_, i) => i).filter((i) => !held.has(i));
    return { share: fairShare(this.count, replicas.size), free, replicas: replicas.size };
  }

  /** stop deletes this replica's Lease (the others count one replica fewer at their next round); errors are ignored. */
  async stop(): Promise<void> {
    await this.client.delete(R.leases, this.namespace, this.name).catch(() => undefined);
  }

  /** renew writes this replica's Lease (created the first time; a lost race is retried next round). */
  private async renew(mine: Lease | undefined): Promise<void> {
    const now = microTime(this.wall());
    const spec = { holderIdentity: this.holder, leaseDurationSeconds: Math.ceil(this.durationMs / 1000), renewTime: now };
    try {
      if (mine) await this.client.update(R.leases, this.namespace, { ...mine, spec: { ...mine.spec, ...spec } } as never);
      else await this.client.create(R.leases, this.namespace, { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: this.name, namespace: this.namespace }, spec: { ...spec, acquireTime: now } });
    } catch (e) {
      if (!isConflict(e) && !isAlreadyExists(e)) throw e;
    }
  }

  /** removeDead deletes a replica Lease seen unrenewed for its duration (unless renewed meanwhile); failures are left to the next round. */
  private async removeDead(l: Lease): Promise<void> {
    const resourceVersion = (l.metadata as { resourceVersion?: string } | undefined)?.resourceVersion;
    await this.client.delete(R.leases, this.namespace, l.metadata?.name ?? "", { preconditions: { resourceVersion } }).catch(() => undefined);
  }
}
