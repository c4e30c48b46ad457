import type { Lease } from "../api/k8s.ts";
import { isConflict, type KubeClient } from "../kube/client.ts";
import { R } from "../kube/resources.ts";

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

/** countOfLease returns the shard count a reconciler Lease belongs to (1 for `ordinal-reconciler`), undefined for other Leases. */
function countOfLease(name: string): number | undefined {
  if (name === BASE) return 1;
  const m = /^ordinal-reconciler-(\d+)-of-(\d+)$/.exec(name);
  return m ? Number(m[2]) : undefined;
}

/** recordKey identifies one renewal of a lease: a changed key is a renewal observed. */
const recordKey = (l: Lease): string => JSON.stringify([l.spec?.holderIdentity ?? "", l.spec?.renewTime ?? "", l.spec?.acquireTime ?? "", l.spec?.leaseTransitions ?? 0]);

/**
 * OtherCountLeases watches the reconciler Leases of shard counts other than `count` in the Lease
 * namespace. A Lease is live while it has a holder and this process has not yet seen its record
 * unchanged for its duration on its own clock (the elector's rule: no clocks compared); one seen
 * expired is released here (resourceVersion-guarded), so later observers need not wait for it.
 */
export class OtherCountLeases {
  private readonly observed = new Map<string, { key: string; at: number }>();

  constructor(
    private readonly client: KubeClient,
    private readonly namespace: string,
    private readonly count: number,
    /** Local monotonic ms. */
    private readonly clock: () => number,
    private readonly defaultDurationMs = 30_000,
  ) {}

  /** live returns the names (with holders) of the other counts' Leases that are live now; one list request. */
  async live(): Promise<string[]> {
    const t = this.clock();
    const leases = await this.client.list<Lease>(R.leases, this.namespace, { limit: 500 });
    const out: string[] = [];
    const seen = new Set<string>();
    for (const l of leases) {
      const name = l.metadata?.name ?? "";
      const count = countOfLease(name);
      if (count === undefined || count === this.count || !l.spec?.holderIdentity) continue;
      seen.add(name);
      const key = recordKey(l);
      const prev = this.observed.get(name);
      const at = prev?.key === key ? prev.at : t;
      this.observed.set(name, { key, at });
      const durationMs = l.spec.leaseDurationSeconds ? l.spec.leaseDurationSeconds * 1000 : this.defaultDurationMs;
      if (t - at < durationMs) out.push(`${name} (held by ${l.spec.holderIdentity})`);
      else await this.releaseExpired(l);
    }
    for (const name of this.observed.keys()) if (!seen.has(name)) this.observed.delete(name);
    return out;
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
