import type { KubeClient } from "../kube/client.ts";
import type { Logger } from "../log/log.ts";
import { errorFields } from "../log/log.ts";
import { NamespaceSetAside } from "../reconciler/namespace-budget.ts";
import { readRecord, setAsideUntil, strikeInCluster, type QuarantineRecord } from "../reconciler/quarantine.ts";

/**
 * The reconcile thread's namespace guard (issue 35: a reconciler restart does not replay the
 * namespace that killed it first). In the thread, guardedClient wraps the client the scheduler
 * reads through: each namespaced list says which namespace it reads (`onReading`, posted to the
 * main thread), and a list of a namespace the quarantine record sets aside throws
 * NamespaceSetAside (the pass reports it on that namespace's sets and goes on with the others).
 * In the main thread, ReadingTracker remembers what is being read; when the thread dies, the
 * namespace it was reading (a list in flight, else one that ended under BLAME_WINDOW_MS ago) is
 * the suspect, which the next thread strikes in the cluster's record (quarantine.ts) before its
 * first pass.
 */

/** What the thread posts about one list: its namespace, started or ended. */
export interface Reading {
  namespace: string;
  done: boolean;
}

/** A list that ended this recently still blames its namespace (it may still be held: the pass plans from it). */
const BLAME_WINDOW_MS = 10_000;

/** ReadingTracker (main thread) follows the thread's lists and names the suspect when the thread dies. */
export class ReadingTracker {
  private readonly inFlight: string[] = [];
  private last: { namespace: string; at: number } | undefined;

  constructor(private readonly clock: () => number = Date.now) {}

  note(r: Reading): void {
    if (!r.done) this.inFlight.push(r.namespace);
    else {
      const i = this.inFlight.lastIndexOf(r.namespace);
      if (i >= 0) this.inFlight.splice(i, 1);
      this.last = { namespace: r.namespace, at: this.clock() };
    }
  }

  /** suspect returns the namespace the thread was reading when it died (the latest list in flight, else a recent one), and forgets everything. */
  suspect(): string | undefined {
    const recent = this.last && this.clock() - this.last.at <= BLAME_WINDOW_MS ? this.last.namespace : undefined;
    const s = this.inFlight[this.inFlight.length - 1] ?? recent;
    this.inFlight.length = 0;
    this.last = undefined;
    return s;
  }
}

/** A thread refreshes the record this often (another replica's strikes, backoffs over). */
const REFRESH_MS = 60_000;

/** NamespaceGuard (reconcile thread) holds the quarantine record and guards the thread's lists with it. */
export class NamespaceGuard {
  private record: QuarantineRecord = {};
  private refreshed = -Infinity;

  constructor(
    private readonly client: KubeClient,
    private readonly leaseNamespace: string,
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** start strikes `suspect` (what killed the thread before this one) in the cluster's record, then reads it; failures are logged. */
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

  /** guardedClient returns `client` whose namespaced lists report what they read to `onReading` and refuse set-aside namespaces. */
  guardedClient(client: KubeClient, onReading: (r: Reading) => void): KubeClient {
    const list: KubeClient["list"] = async (r, ns, opts) => {
      if (ns === undefined) return client.list(r, ns, opts);
      if (Date.now() - this.refreshed >= REFRESH_MS) void this.refresh();
      const s = this.record[ns];
      const until = setAsideUntil(this.record, ns, this.now());
      if (s && until) throw new NamespaceSetAside(ns, until, s.why);
      onReading({ namespace: ns, done: false });
      try {
        return await client.list(r, ns, opts);
      } finally {
        onReading({ namespace: ns, done: true });
      }
    };
    return Object.assign(Object.create(client) as KubeClient, { list });
  }
}
