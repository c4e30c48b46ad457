import type { Lease } from "../api/k8s.ts";
import { isAlreadyExists, isConflict, type KubeClient } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import { isReplicaLease, LeaseObservations, replicaLeaseName, shardOfLease } from "./shard-leases.ts";

/**
 * ShardShare tells an `ordinal serve` replica its share of the shards (shard-schedulers.ts), from
 * the Leases alone (level-triggered: every round starts from what the apiserver shows). A round
 * lists the Leases (one request) and, once per retry period, renews this replica's own replica
 * Lease (`ordinal-reconciler-replica-<hash>-of-<n>`: its announcement; a replica that holds no shard
 * yet still counts). The members are the replicas whose replica Lease was seen renewed within two
 * retry periods (they renew every one: a replica that stopped renewing stops counting a retry
 * period before its shard Leases expire, so no one gives shards away to a dead replica), plus the
 * holders of live shard Leases that announce nothing (a Worker's shards). shareTargets gives each
 * member its target; the round returns this replica's and the free shards in its order of
 * preference. Replica Leases seen
 * unrenewed for their duration are deleted (a replica that died leaves no litter); the own one is
 * deleted at stop.
 */

/** A member as the Leases show it: its identity and how many shard Leases name it as holder. */
export interface Member {
  id: string;
  held: number;
}

/**
 * shareTargets returns how many of `count` shards each member should hold: floor(count / members),
 * and one more for the (count mod members) members holding the most (ties: the lower identity), so
 * the targets add up to `count`, no two differ by more than one, and a member keeps what it holds
 * whenever that is already even (4 shards, 3 members holding 2, 2, 0: targets 2, 1, 1). Every member
 * computes the same targets from the same Leases.
 */
export function shareTargets(members: readonly Member[], count: number): Map<string, number> {
  const ranked = [...members].sort((a, b) => b.held - a.held || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const base = Math.floor(count / Math.max(1, ranked.length));
  const extra = count % Math.max(1, ranked.length);
  return new Map(ranked.map((m, i) => [m.id, base + (i < extra ? 1 : 0)]));
}

/**
 * preferredOrder returns the shards `free` in the order member `id` tries them: starting at its
 * place among the members' identities (sorted), spread over the shards, so members that take at
 * once (started together) reach for different shards instead of racing for the same ones.
 */
export function preferredOrder(free: readonly number[], id: string, ids: readonly string[], count: number): number[] {
  const sorted = [...ids].sort();
  const start = Math.floor((Math.max(0, sorted.indexOf(id)) * count) / Math.max(1, sorted.length));
  return [...free].sort((a, b) => ((a - start + count) % count) - ((b - start + count) % count));
}

/** What one round saw. */
export interface ShareRound {
  /** How many shards this replica should hold now (shareTargets). */
  target: number;
  /** Shards whose Lease no one holds (never created, or released), in this replica's order of preference. */
  free: number[];
  /** The members counted (this replica included). */
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
    /** How often members renew their replica Lease: one seen unrenewed for two of these stops counting. */
    private readonly retryPeriodMs: number,
  ) {
    this.observations = new LeaseObservations(durationMs);
    this.name = replicaLeaseName(holder, count);
  }

  /** round lists the Leases, renews this replica's own when `renew`, and returns its target and the free shards. */
  async round(renew = true): Promise<ShareRound> {
    const t = this.clock();
    const leases = await this.client.list<Lease>(R.leases, this.namespace, { limit: 500 });
    const names = new Set(leases.map((l) => l.metadata?.name ?? ""));
    const members = new Set([this.holder]);
    const held = new Map<string, number>();
    const taken = new Set<number>();
    let mine: Lease | undefined;
    for (const l of leases) {
      const name = l.metadata?.name ?? "";
      const shard = shardOfLease(name, this.count);
      const holder = l.spec?.holderIdentity;
      if (name === this.name) mine = l;
      if (name === this.name || !holder || (shard === undefined && !isReplicaLease(name, this.count))) continue;
      const live = this.observations.live(l, t);
      if (shard !== undefined) {
        taken.add(shard);
        held.set(holder, (held.get(holder) ?? 0) + 1);
        // A holder that announces itself counts by its replica Lease; one that does not (a Worker's shard) by this one.
        if (live && !names.has(replicaLeaseName(holder, this.count))) members.add(holder);
      } else if (!live) await this.removeDead(l);
      else if (this.observations.unchangedMs(name, t) < 2 * this.retryPeriodMs) members.add(holder);
    }
    this.observations.endList();
    if (renew) await this.renew(mine);
    const all = [...members].map((id) => ({ id, held: held.get(id) ?? 0 }));
    const targets = shareTargets(all, this.count);
    const free = Array.from({ length: this.count }, (_, i) => i).filter((i) => !taken.has(i));
    return {
      target: targets.get(this.holder) ?? 0,
      free: preferredOrder(free, this.holder, [...members], this.count),
      replicas: members.size,
    };
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
