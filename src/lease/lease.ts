import type { Lease } from "../api/k8s.ts";
import { isAlreadyExists, isConflict, isNotFound, type KubeClient } from "../kube/client.ts";
import { R } from "../kube/resources.ts";

/**
 * A coordination.k8s.io Lease makes sure two passes (overlapping cron ticks, a Worker and a Node
 * process) never act at once. Taking it is a create or a resourceVersion-guarded update, so
 * of two racing holders exactly one wins; an expired lease may be taken over.
 */

export interface LeaseOptions {
  namespace: string;
  name?: string;
  holder: string;
  durationSeconds?: number;
  /**
   * Asked before taking a lease that no one holds (never created, or released): false leaves it
   * (a replica holding shards already lets one holding fewer take it first). Default: take it.
   */
  mayTakeFree?: () => boolean;
  /** Filled by acquireLease with the lease's cursor annotation; written back by releaseLease. */
  cursor?: { value?: string };
  /** Where this holder takes forwarded wakes (`ordinal serve`'s replicas): written on the Lease while it holds it. */
  endpoint?: string;
  /** Filled by acquireLease with the endpoint another holder wrote, if any (a standby forwards its wakes there). */
  holderEndpoint?: { value?: string };
}

/** The annotation on the Lease that says where its holder takes forwarded wakes (src/node/wake-forward.ts). */
export const WAKE_ENDPOINT_ANNOTATION = "ordinal.dev/wake-endpoint";

/** withEndpoint returns the annotations with this holder's wake endpoint (none: a previous holder's is removed). */
function withEndpoint(annotations: Record<string, string> | undefined, endpoint: string | undefined): Record<string, string> | undefined {
  const out = { ...(annotations ?? {}) };
  if (endpoint) out[WAKE_ENDPOINT_ANNOTATION] = endpoint;
  else delete out[WAKE_ENDPOINT_ANNOTATION];
  return Object.keys(out).length ? out : undefined;
}

/** The annotation on the Lease that says after which set (`namespace/name`) the next invocation resumes. */
export const CURSOR_ANNOTATION = "ordinal.dev/cursor";

/** microTime formats a Date as metav1.MicroTime (six fractional digits). */
const microTime = (d: Date): string => `${d.toISOString().slice(0, -1)}000Z`;

/** What acquireLease knows of another holder's lease when it judges whether it expired. */
export interface LeaseRecord {
  holderIdentity?: string;
  renewTime?: string;
  acquireTime?: string;
  leaseDurationSeconds?: number;
  leaseTransitions?: number;
}

/**
 * expiredByClock is the judgement of a one-shot invocation that has never seen the lease before:
 * expired when renewTime + leaseDurationSeconds is not after `now`. It compares the holder's clock
 * with ours; a process that keeps running judges by its own observations instead (LeaderElector).
 */
const expiredByClock =
  (now: Date, defaultSeconds: number) =>
  (cur: LeaseRecord): boolean => {
    const renew = cur.renewTime ? new Date(cur.renewTime).getTime() : 0;
    return !cur.holderIdentity || renew + (cur.leaseDurationSeconds ?? defaultSeconds) * 1000 <= now.getTime();
  };

/**
 * acquireLease returns true when `holder` now holds the lease (taken, renewed or taken over after
 * expiry), false when someone else holds a live one or won a race for it. `expired` judges another
 * holder's lease (default: expiredByClock).
 */
export async function acquireLease(client: KubeClient, o: LeaseOptions, now: Date, expired?: (cur: LeaseRecord) => boolean): Promise<boolean> {
  const name = o.name ?? "ordinal-reconciler";
  const duration = o.durationSeconds ?? 30;
  const spec = { holderIdentity: o.holder, leaseDurationSeconds: duration, renewTime: microTime(now) };
  const existing = await client.get<Lease & { metadata: { resourceVersion?: string } }>(R.leases, o.namespace, name);
  if (o.cursor) o.cursor.value = existing?.metadata.annotations?.[CURSOR_ANNOTATION] || undefined;
  if (o.holderEndpoint) o.holderEndpoint.value = (existing?.spec?.holderIdentity !== o.holder && existing?.metadata.annotations?.[WAKE_ENDPOINT_ANNOTATION]) || undefined;
  if (o.mayTakeFree && !existing?.spec?.holderIdentity && !o.mayTakeFree()) return false;
  try {
    if (!existing) {
      await client.create(R.leases, o.namespace, {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name, namespace: o.namespace, ...(o.endpoint ? { annotations: { [WAKE_ENDPOINT_ANNOTATION]: o.endpoint } } : {}) },
        spec: { ...spec, acquireTime: microTime(now), leaseTransitions: 0 },
      });
      return true;
    }
    const cur = existing.spec ?? {};
    const mine = cur.holderIdentity === o.holder;
    if (!mine && !(expired ?? expiredByClock(now, duration))(cur as LeaseRecord)) return false;
    await client.update(R.leases, o.namespace, {
      ...existing,
      metadata: { ...existing.metadata, annotations: withEndpoint(existing.metadata.annotations, o.endpoint) },
      spec: {
        ...cur,
        ...spec,
        acquireTime: mine ? cur.acquireTime : microTime(now),
        leaseTransitions: (cur.leaseTransitions ?? 0) + (mine ? 0 : 1),
      },
    } as never);
    return true;
  } catch (e) {
    if (isConflict(e) || isAlreadyExists(e)) return false;
    if (isNotFound(e)) {
      throw new Error(`lease namespace "${o.namespace}" not found: apply deploy/namespace.yaml or set LEASE_NAMESPACE (${(e as Error).message})`, { cause: e });
    }
    throw e;
  }
}

/**
 * releaseLease gives the lease up (no holder; renewTime left as the last renewal) if `holder` still holds it, so the next tick need not wait for
 * expiry, and stores `o.cursor` (where the next invocation resumes) in the same write.
 */
export async function releaseLease(client: KubeClient, o: LeaseOptions): Promise<void> {
  const name = o.name ?? "ordinal-reconciler";
  const existing = await client.get<Lease>(R.leases, o.namespace, name);
  if (existing?.spec?.holderIdentity !== o.holder) return;
  const annotations = { ...(existing.metadata?.annotations ?? {}) };
  if (o.cursor?.value) annotations[CURSOR_ANNOTATION] = o.cursor.value;
  else delete annotations[CURSOR_ANNOTATION];
  delete annotations[WAKE_ENDPOINT_ANNOTATION];
  try {
    await client.update(R.leases, o.namespace, {
      ...existing,
      metadata: { ...existing.metadata, annotations },
      // renewTime stays: when a reconciler last held it (`ordinal rollout status` reads it to tell a
      // reconciler that runs from none at all).
      spec: { ...existing.spec, holderIdentity: undefined },
    } as never);
  } catch (e) {
    if (!isConflict(e)) throw e;
  }
}
