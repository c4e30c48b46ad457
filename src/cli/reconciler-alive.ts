/**
 * Is a reconciler running? `ordinal rollout status` cannot move a rollout; a reconciler (`ordinal
 * serve`, deploy/, or the Worker's cron) must. Every reconciler renews a coordination.k8s.io Lease
 * named ordinal-reconciler… in LEASE_NAMESPACE at least once a minute while it runs (and leaves
 * renewTime when it releases it), so a renewTime older than that says nobody is reconciling.
 */
import type { Lease } from "../api/k8s.ts";
import { ApiError, type KubeClient } from "../kube/client.ts";
import { R } from "../kube/resources.ts";

/** How old the newest renewal may be before we say no reconciler runs (a cron tick is a minute; one missed tick is forgiven). */
const RECONCILER_SILENT_AFTER_MS = 150_000;

const LEASE_PREFIX = "ordinal-reconciler";

/** ago returns a duration in kubectl's short form: 45s, 3m20s, 2h5m. */
function ago(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60 ? `${s % 60}s` : ""}`;
  return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}

/**
 * reconcilerSilence returns a sentence saying that no reconciler has renewed its Lease recently
 * (or ever), or undefined when one has — or when the Leases cannot be read (a user without the
 * right to list them learns nothing either way).
 */
export async function reconcilerSilence(client: KubeClient, leaseNamespace: string, now: Date): Promise<string | undefined> {
  let leases: Lease[];
  try {
    leases = await client.list<Lease>(R.leases, leaseNamespace);
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return `no reconciler has run: the Lease namespace "${leaseNamespace}" does not exist (install deploy/, or run \`ordinal serve\`; set LEASE_NAMESPACE if the reconciler uses another)`;
    return undefined;
  }
  const renewals = leases
    .filter((l) => l.metadata?.name?.startsWith(LEASE_PREFIX))
    .map((l) => ({ name: l.metadata!.name!, at: Date.parse(String(l.spec?.renewTime ?? "")) }))
    .filter((r) => Number.isFinite(r.at))
    .sort((a, b) => b.at - a.at);
  const hint = "is `ordinal serve` (deploy/server.yaml) or the Worker's cron running against this cluster? (docs/operations.md: troubleshooting)";
  if (!renewals.length) return `no reconciler has renewed a Lease in namespace ${leaseNamespace}: ${hint}`;
  const silent = now.getTime() - renewals[0].at;
  if (silent <= RECONCILER_SILENT_AFTER_MS) return undefined;
  return `no reconciler has renewed its Lease for ${ago(silent)} (${leaseNamespace}/${renewals[0].name}): ${hint}`;
}
