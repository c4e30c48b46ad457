import { isConflict, type KubeClient, type KubeObject } from "../kube/client.ts";
import { R } from "../kube/resources.ts";

/**
 * The quarantine record (issue 35: a reconciler restart does not replay the namespace that killed
 * it first). A namespace that was being read when the reconciler died (its runtime tells which:
 * namespace-guard.ts) is struck: it is set aside for a backoff that doubles with each
 * strike (1 min, 2, 4, … 1 h), and the record lives in the cluster, on the Lease
 * `ordinal-quarantine` in the lease namespace (annotation `ordinal.dev/quarantine`, JSON), so a
 * restarted thread, another replica and `kubectl` all see it. Entries whose backoff ended an hour
 * ago are dropped when the record is written next; it holds at most MAX_ENTRIES namespaces.
 */

export const QUARANTINE_LEASE = "ordinal-quarantine";
const ANNOTATION = "ordinal.dev/quarantine";
const FIRST_MS = 60_000;
const MAX_MS = 3_600_000;
const MAX_ENTRIES = 100;

interface Strike {
  /** When the namespace may be read again (ISO 8601). */
  until: string;
  strikes: number;
  /** What happened, as the runtime said (e.g. "the reconcile thread ran out of heap while reading it"). */
  why: string;
}

/** QuarantineRecord maps a namespace to its last strike. */
export type QuarantineRecord = Record<string, Strike>;

/** parseRecord returns the record an annotation holds; anything that is not one gives an empty record. */
export function parseRecord(text: string | undefined): QuarantineRecord {
  let value: unknown;
  try {
    value = JSON.parse(text ?? "{}");
  } catch {
    return {};
  }
  const out: QuarantineRecord = {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) return out;
  for (const [ns, s] of Object.entries(value as Record<string, unknown>)) {
    const { until, strikes, why } = (typeof s === "object" && s !== null ? s : {}) as Partial<Record<keyof Strike, unknown>>;
    if (typeof until === "string" && !Number.isNaN(Date.parse(until)) && Number.isInteger(strikes) && (strikes as number) > 0 && typeof why === "string") out[ns] = { until, strikes: strikes as number, why };
  }
  return out;
}

/** backoffMs returns how long the `strikes`th strike sets a namespace aside. */
export const backoffMs = (strikes: number): number => Math.min(MAX_MS, FIRST_MS * 2 ** Math.min(Math.max(0, strikes - 1), 20));

/** strike returns the record with `ns` struck once more at `now` (entries long over dropped, at most MAX_ENTRIES kept, the newest). */
export function strike(record: QuarantineRecord, ns: string, why: string, now: Date): QuarantineRecord {
  const strikes = (record[ns]?.strikes ?? 0) + 1;
  const kept = Object.entries(record).filter(([n, s]) => n !== ns && Date.parse(s.until) + MAX_MS > now.getTime());
  kept.sort(([, a], [, b]) => Date.parse(b.until) - Date.parse(a.until));
  return Object.fromEntries([[ns, { until: new Date(now.getTime() + backoffMs(strikes)).toISOString(), strikes, why }], ...kept.slice(0, MAX_ENTRIES - 1)]);
}

/** setAsideUntil returns when `ns` may be read again, or undefined when it may be now. */
export function setAsideUntil(record: QuarantineRecord, ns: string, now: Date): Date | undefined {
  const s = record[ns];
  const until = s ? new Date(s.until) : undefined;
  return until && until > now ? until : undefined;
}

type LeaseObject = KubeObject & { metadata: { annotations?: Record<string, string>; resourceVersion?: string } };

/** readRecord returns the record stored in the cluster (empty when there is none). */
export async function readRecord(client: KubeClient, leaseNamespace: string): Promise<QuarantineRecord> {
  const lease = await client.get<LeaseObject>(R.leases, leaseNamespace, QUARANTINE_LEASE);
  return parseRecord(lease?.metadata.annotations?.[ANNOTATION]);
}

/** strikeInCluster strikes `ns` in the stored record (created when missing; retried on a conflict) and returns the record written. */
export async function strikeInCluster(client: KubeClient, leaseNamespace: string, ns: string, why: string, now: Date): Promise<QuarantineRecord> {
  for (let attempt = 0; ; attempt++) {
    const lease = await client.get<LeaseObject>(R.leases, leaseNamespace, QUARANTINE_LEASE);
    const record = strike(parseRecord(lease?.metadata.annotations?.[ANNOTATION]), ns, why, now);
    const metadata = { name: QUARANTINE_LEASE, namespace: leaseNamespace, annotations: { ...lease?.metadata.annotations, [ANNOTATION]: JSON.stringify(record) } };
    try {
      if (!lease) await client.create(R.leases, leaseNamespace, { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata, spec: {} });
      else await client.update(R.leases, leaseNamespace, { ...lease, metadata: { ...lease.metadata, ...metadata } });
      return record;
    } catch (e) {
      if (attempt >= 3 || !isConflict(e)) throw e;
    }
  }
}
