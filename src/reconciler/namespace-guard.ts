import type { KubeClient } from "../kube/client.ts";
import type { Logger } from "../log/log.ts";
import { errorFields } from "../log/log.ts";
import { R, type ResourceRef } from "../kube/resources.ts";
import { NamespaceSetAside } from "./namespace-budget.ts";
import { readRecord, setAsideUntil, strikeInCluster, type QuarantineRecord } from "./quarantine.ts";

/**
 * The namespace guard of a runtime's passes (issue 35: a reconciler restart does not replay the
 * namespace that killed it first), one for both runtimes. guardedClient wraps the client the passes
 * read through: each namespaced list says which namespace it reads (`onReading`: Node's reconcile
 * thread posts it to the main thread, src/node/reading-tracker.ts; the Worker's shard notes it in
 * its Durable Object's storage, src/schedule/shard-runner.ts), and a list of a namespace the
 * quarantine record sets aside throws NamespaceSetAside (the pass reports it on that namespace's
 * sets and goes on with the others), except a list of its Ordinal StatefulSets: the pass reports on
 * them (a set is held whole by every pass, ≤ the apiserver's 1.5 MiB; what a tenant grows without
 * bound is its pods, claims, revisions and ImageLists, and those are refused). `start` strikes the suspect its runtime names (what it was
 * reading when the reconciler before it died) in the cluster's record (quarantine.ts) first.
 */

/**
 * How many reconcilers in a row must die reading the same namespace before it is struck, per
 * runtime (the one named difference of their quarantines; judgeDeath applies it):
 * - node: 1. The reconcile thread ends only when it runs out of heap or throws out of its loop (a
 *   deploy or a kill ends the whole process, and with it anything that would strike), so one death
 *   while reading a namespace is that namespace's doing.
 * - worker: 2. An invocation also ends for reasons that are no namespace's (a deploy, an eviction,
 *   a killed `wrangler dev`), so one death is no verdict: the namespace is the suspect, struck when
 *   the next invocation dies reading it too (a namespace that kills whoever reads it does so each time).
 */
export const DEATHS_TO_QUARANTINE = { node: 1, worker: 2 } as const;

/** What judgeDeath decides: the namespace to strike now, and the suspect to keep (undefined: none). */
export interface DeathVerdict {
  strike?: string;
  suspect?: string;
}

/**
 * judgeDeath returns what follows a reconciler's death while reading `died` (undefined: it was
 * reading nothing), given the suspect kept from the death before: `died` is struck when this makes
 * `deaths` deaths in a row reading it (1: at once; 2: it was the suspect already), else it becomes
 * the suspect (nothing read at death: the suspect is kept).
 */
export function judgeDeath(died: string | undefined, suspect: string | undefined, deaths: 1 | 2): DeathVerdict {
  if (died === undefined) return suspect === undefined ? {} : { suspect };
  return deaths === 1 || suspect === died ? { strike: died } : { suspect: died };
}

/** What a list reports: its namespace, started or ended. */
export interface Reading {
  namespace: string;
  done: boolean;
}

/** isSetList is true for a list of Ordinal StatefulSets (let through for a set-aside namespace: its sets are reported on). */
const isSetList = (r: ResourceRef): boolean => r.group === R.statefulSets.group && r.resource === R.statefulSets.resource;

/** A guard refreshes the record this often (another replica's strikes, backoffs over). */
const REFRESH_MS = 60_000;

/** NamespaceGuard holds the quarantine record and guards a runtime's lists with it. */
export class NamespaceGuard {
  private record: QuarantineRecord = {};
  private refreshed = -Infinity;

  constructor(
    private readonly client: KubeClient,
    private readonly leaseNamespace: string,
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** start strikes `suspect` (what killed the reconciler before this one) in the cluster's record, then reads it; failures are logged. */
  async start(suspect: { namespace: string; why: string } | undefined): Promise<void> {
    if (suspect) {
      try {
        this.record = await strikeInCluster(this.client, this.leaseNamespace, suspect.namespace, suspect.why, this.now());
        const s = this.record[suspect.namespace];
        this.log.error("namespace quarantined: the reconciler died while reading it", { namespace: suspect.namespace, why: suspect.why, until: s?.until, strikes: s?.strikes });
        this.refreshed = Date.now();
        return;
      } catch (e) {
        this.log.error("namespace not quarantined: the record could not be written", { namespace: suspect.namespace, ...errorFields(e) });
      }
    }
    await this.refresh();
  }

  private async refresh(): Promise<void> {
    this.refreshed = Date.now();
    try {
      this.record = await readRecord(this.client, this.leaseNamespace);
    } catch (e) {
      this.log.warn("quarantine record not read", errorFields(e));
    }
  }

  /**
   * guardedClient returns `client` whose namespaced lists report what they read to `onReading`
   * (awaited: a report the runtime stores is stored before the list) and refuse set-aside
   * namespaces (NamespaceSetAside), but for their sets (isSetList).
   */
  guardedClient(client: KubeClient, onReading: (r: Reading) => void | Promise<void>): KubeClient {
    const list: KubeClient["list"] = async (r, ns, opts) => {
      if (ns === undefined) return client.list(r, ns, opts);
      if (Date.now() - this.refreshed >= REFRESH_MS) void this.refresh();
      const s = this.record[ns];
      const until = setAsideUntil(this.record, ns, this.now());
      if (s && until && !isSetList(r)) throw new NamespaceSetAside(ns, until, s.why);
      await onReading({ namespace: ns, done: false });
      try {
        return await client.list(r, ns, opts);
      } finally {
        await onReading({ namespace: ns, done: true });
      }
    };
    return Object.assign(Object.create(client) as KubeClient, { list });
  }
}
