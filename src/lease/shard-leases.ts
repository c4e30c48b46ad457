import type { Lease } from "../api/k8s.ts";
import { isConflict, type KubeClient } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import type { Logger } from "../log/log.ts";

/**
 * The Leases of sharded reconcilers. Shard i of n holds Lease `ordinal-reconciler-<i>-of-<n>`
 * (n = 1: the cluster's Lease `ordinal-reconciler`, as an unsharded reconciler always took), so two
 * reconcilers with the same shard count (a Worker's Durable Objects, `ordinal serve` replicas)
 * contend for the same names and one holder acts per shard.
 *
 * Two reconcilers with different counts (a count being changed: old and new replicas or Worker
 * versions side by side; a Worker and a Node process configured differently) would split the
 * namespaces differently, so a set could belong to a shard of each. The Leases say who owns what:
 * a shard acts only while no Lease of another count is live. A candidate looks before taking its
 * own Lease and again after (whoever came second sees the first, and gives its Lease back); so the
 * reconcilers of the count already acting keep acting, the new count's wait, and they take over
 * once the old ones are gone (their Leases released at shutdown, or unrenewed for their duration).
 */

const BASE = "ordinal-reconciler";

/** shardLeaseName returns the Lease of shard `index` of `count`. */
export const shardLeaseName = (index: number, count: number): string => (count === 1 ? BASE : `${BASE}-${index}-of-${count}`);

/**
 * replicaLeaseName returns the Lease that says replica `holder` runs shards of `count` (ShardShare:
 * a replica that holds no shard yet still counts when the others work out their shares). The
 * holder is hashed (FNV-1a) so any identity makes a valid name; it never matches a shard's Lease.
 */
export function replicaLeaseName(holder: string, count: number): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < holder.length; i++) h = Math.imul(h ^ holder.charCodeAt(i), 0x01000193) >>> 0;
  return `${BASE}-replica-${h.toString(16).padStart(8, "0")}-of-${count}`;
}

/** isReplicaLease is true for a replica Lease (replicaLeaseName) of `count`. */
export const isReplicaLease = (name: string, count: number): boolean => new RegExp(`^${BASE}-replica-[0-9a-f]{8}-of-${count}$`).test(name);

/** shardOfLease returns the shard index a Lease of `count` is for, undefined for any other Lease. */
export function shardOfLease(name: string, count: number): number | undefined {
  if (count === 1) return name === BASE ? 0 : undefined;
  const m = /^ordinal-reconciler-(\d+)-of-(\d+)$/.exec(name);
  return m && Number(m[2]) === count && Number(m[1]) < count ? Number(m[1]) : undefined;
}

/** countOfLease returns the shard count a reconciler Lease belongs to (1 for `ordinal-reconciler`), undefined for other Leases. */
function countOfLease(name: string): number | undefined {
  if (name === BASE) return 1;
  const m = /^ordinal-reconciler-(\d+)-of-(\d+)$/.exec(name);
  return m ? Number(m[2]) : undefined;
}

/** recordKey identifies one renewal of a lease: a changed key is a renewal observed. */
const recordKey = (l: Lease): string => JSON.stringify([l.spec?.holderIdentity ?? "", l.spec?.renewTime ?? "", l.spec?.acquireTime ?? "", l.spec?.leaseTransitions ?? 0]);

/**
 * LeaseObservations judges other holders' Leases by this process's own observations (the
 * elector's rule, no clocks compared): a Lease is live while it has a holder and its record has
 * not been seen unchanged for its duration on this process's clock, counted from the first sighting.
 */
export class LeaseObservations {
  private readonly observed = new Map<string, { key: string; at: number }>();
  private seen = new Set<string>();
  /** Names whose record was seen to change (a renewal, a new holder) since they were first seen. */
  readonly renewed = new Set<string>();

  constructor(private readonly defaultDurationMs: number) {}

  /** live returns whether `l` (seen at local ms `t`) is live: held, and renewed within its duration as far as this process saw. */
  live(l: Lease, t: number): boolean {
    const name = l.metadata?.name ?? "";
    if (!l.spec?.holderIdentity) return false;
    this.seen.add(name);
    const key = recordKey(l);
    const prev = this.observed.get(name);
    if (prev && prev.key !== key) this.renewed.add(name);
    const at = prev?.key === key ? prev.at : t;
    this.observed.set(name, { key, at });
    const durationMs = l.spec.leaseDurationSeconds ? l.spec.leaseDurationSeconds * 1000 : this.defaultDurationMs;
    return t - at < durationMs;
  }

  /** unchangedMs returns how long (local ms, at `t`) the Lease `name` was last judged by live() has been seen unchanged (Infinity: not judged). */
  unchangedMs(name: string, t: number): number {
    const o = this.observed.get(name);
    return o ? t - o.at : Infinity;
  }

  /** endList forgets the Leases not judged since the last endList (gone, or released). */
  endList(): void {
    for (const name of this.observed.keys()) {
      if (this.seen.has(name)) continue;
      this.observed.delete(name);
      this.renewed.delete(name);
    }
    this.seen = new Set();
  }
}

/**
 * OtherCountLeases watches the reconciler Leases of shard counts other than `count` in the Lease
 * namespace. A Lease is live while it has a holder and this process has not yet seen its record
 * unchanged for its duration on its own clock (LeaseObservations); one seen expired is released
 * here (resourceVersion-guarded), so later observers need not wait for it.
 */
export class OtherCountLeases {
  private readonly observations: LeaseObservations;

  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    private readonly count: number,
    /** Local monotonic ms. */
    private readonly clock: () => number,
    defaultDurationMs = 30_000,
  ) {
    this.observations = new LeaseObservations(defaultDurationMs);
  }

  /** live returns the names (with holders) of the other counts' Leases that are live now; one list request. */
  async live(): Promise<string[]> {
    const t = this.clock();
    const leases = await this.client.list<Lease>(R.leases, this.namespace, { limit: 500 });
    const out: string[] = [];
    for (const l of leases) {
      const name = l.metadata?.name ?? "";
      const count = countOfLease(name);
      if (count === undefined || count === this.count || !l.spec?.holderIdentity) continue;
      if (this.observations.live(l, t)) out.push(`${name} (held by ${l.spec.holderIdentity})`);
      else await this.releaseExpired(l);
    }
    this.observations.endList();
    return out;
  }

  /** renewedSinceFirstLook is true once a live Lease of another count was seen renewed (or taken over) since this object first saw it: its holder is alive. */
  renewedSinceFirstLook(): boolean {
    return this.observations.renewed.size > 0;
  }

  /** releaseExpired clears the holder of a lease seen unrenewed for its duration (lost to a newer write: nothing to do). */
  private async releaseExpired(l: Lease): Promise<void> {
    try {
      await this.client.update(R.leases, this.namespace, { ...l, spec: { ...l.spec, holderIdentity: undefined } } as never);
    } catch (e) {
      if (!isConflict(e)) throw e;
    }
  }
}

/** What OtherCountGuard needs of a shard's elector (elector.ts). */
interface Elector {
  isLeader(): boolean;
  release(): Promise<void>;
}

/**
 * OtherCountGuard is the rule a shard's holder follows (scheduler.ts for `ordinal serve`,
 * shard-runner.ts for the Worker's Durable Objects): it acts only while it holds its own Lease and
 * no reconciler Lease of another shard count was live, looked at before each attempt to take or
 * renew it (`yields`) and once after taking it (`confirm`); seeing one, it gives its Lease back.
 * While yielding it lists the Leases at most once per retry period (a caller asking more often,
 * such as a Worker's drain per wake, is answered from the last look).
 */
export class OtherCountGuard {
  /** True once no other count's Lease was live before and after the Lease was taken; false after yielding. */
  private clear = false;
  /** The other counts' Leases last yielded to (logged when they change). */
  private yieldedTo = "";
  /** When (local ms) the last look found another count's Lease live. */
  private yieldedAt: number | undefined;

  constructor(
    private readonly others: OtherCountLeases,
    private readonly elector: Elector,
    private readonly log: Logger,
    private readonly fields: Record<string, unknown>,
    /** Local monotonic ms. */
    private readonly clock: () => number,
    private readonly retryPeriodMs: number,
  ) {}

  /** acting is true while the shard may act: it holds its Lease and no other count's Lease was live when it took it. */
  acting(): boolean {
    return this.clear && this.elector.isLeader();
  }

  /** msUntilLook returns how long until the next look at the other counts' Leases while yielding (0: now). */
  msUntilLook(): number {
    return this.yieldedAt === undefined ? 0 : Math.max(0, this.yieldedAt + this.retryPeriodMs - this.clock());
  }

  /** yields returns true (and gives the shard's Lease back) while another count's Lease is live: one list per retry period at most. */
  async yields(): Promise<boolean> {
    if (this.msUntilLook() > 0) return true;
    const live = await this.others.live();
    const names = live.join(", ");
    if (names !== this.yieldedTo) {
      this.yieldedTo = names;
      if (names) this.log.warn("reconciler Leases of another shard count are live: this shard waits until they are released or expire", { ...this.fields, leases: live });
    }
    if (!live.length) {
      this.yieldedAt = undefined;
      return false;
    }
    this.yieldedAt = this.clock();
    this.clear = false;
    if (this.elector.isLeader()) await this.elector.release();
    return true;
  }

  /** confirm looks once more right after the Lease was taken (whoever came second sees the first); returns true when the shard yields. */
  async confirm(): Promise<boolean> {
    if (!this.elector.isLeader() || this.clear) return false;
    if (await this.yields()) return true;
    this.clear = true;
    return false;
  }

  /** standDown stops acting at once (the Lease is about to be given back). */
  standDown(): void {
    this.clear = false;
  }
}
