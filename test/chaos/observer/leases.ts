/**
 * No write by a replica whose shard Lease had lapsed. The apiserver's audit log says who wrote
 * what and when (user agent `ordinal/<holder>`, the holder identity it writes on its Leases); the
 * Lease watch says who held each shard and until when (renewTime + leaseDurationSeconds, written
 * on the holder's clock: the same machine's). A namespace's shard is derived here from
 * docs/design.md, not imported: FNV-1a (32-bit, of the name's UTF-8 bytes) modulo the shard count,
 * Lease `ordinal-reconciler-<i>-of-<n>` (`ordinal-reconciler` with one shard).
 */
import type { LeaseObject } from "./objects.ts";
import type { ClusterState, WatchEvent } from "./state.ts";
import { RULES } from "./types.ts";

/** Clock slack between the audit log's times, the holder's renewTime and when the observer saw a Lease change. */
const SKEW_MS = 1000;

/** One successful write from the audit log. */
export interface AuditWrite {
  at: number;
  holder: string;
  verb: string;
  namespace: string;
  object: string;
}

interface LeaseVersion {
  at: number;
  holder: string;
  renew: number;
  durationMs: number;
}

/** fnv1a32 returns the 32-bit FNV-1a hash of the string's UTF-8 bytes. */
export function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  for (const b of Buffer.from(s, "utf8")) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h;
}

/** shardLeaseName returns the Lease that guards a namespace among `count` shards. */
export const shardLeaseName = (namespace: string, count: number): string => (count <= 1 ? "ordinal-reconciler" : `ordinal-reconciler-${fnv1a32(namespace) % count}-of-${count}`);

const WRITE_VERBS = new Set(["create", "update", "patch", "delete", "deletecollection"]);

/**
 * auditWrite returns the audit log line as a write by an Ordinal replica in one of `namespaces` (any when empty),
 * or undefined (a read, a dry run, a failed write, someone else's, a Lease or an Event: not a set's object).
 */
export function auditWrite(line: string, namespaces: ReadonlySet<string>): AuditWrite | undefined {
  let a: { verb?: string; userAgent?: string; stage?: string; requestURI?: string; objectRef?: { resource?: string; namespace?: string; name?: string; subresource?: string }; responseStatus?: { code?: number }; requestReceivedTimestamp?: string };
  try {
    a = JSON.parse(line);
  } catch {
    return undefined;
  }
  const holder = /^ordinal\/([^\s/]+)/.exec(a.userAgent ?? "")?.[1];
  const ref = a.objectRef;
  const code = a.responseStatus?.code ?? 0;
  if (!holder || !ref?.namespace || (namespaces.size > 0 && !namespaces.has(ref.namespace)) || !WRITE_VERBS.has(a.verb ?? "")) return undefined;
  if ((a.stage !== undefined && a.stage !== "ResponseComplete") || /[?&]dryRun=/.test(a.requestURI ?? "")) return undefined;
  if (ref.resource === "leases" || ref.resource === "events" || code < 200 || code >= 300) return undefined;
  const object = `${ref.resource}${ref.subresource ? `/${ref.subresource}` : ""} ${ref.namespace}/${ref.name ?? "*"}`;
  return { at: Date.parse(a.requestReceivedTimestamp ?? ""), holder, verb: a.verb!, namespace: ref.namespace, object };
}

/** LeaseJudge keeps each shard Lease's history and judges audit writes against it. */
export class LeaseJudge {
  private readonly history = new Map<string, LeaseVersion[]>();
  private pending: AuditWrite[] = [];
  /** The shard counts the Lease names show (1: `ordinal-reconciler`): replicas of two counts may run side by side while the count changes. */
  private readonly counts = new Set<number>();
  judged = 0;

  constructor(
    private readonly st: ClusterState,
    private readonly leaseNamespace: string,
    private readonly shards?: number,
  ) {}

  /** applyLease records a Lease version seen in the Lease namespace. */
  applyLease(e: WatchEvent, l: LeaseObject): void {
    if (l.metadata.namespace !== this.leaseNamespace || e.type === "DELETED") return;
    const m = /^ordinal-reconciler-(\d+)-of-(\d+)$/.exec(l.metadata.name);
    if (m) this.counts.add(Number(m[2]));
    else if (l.metadata.name === "ordinal-reconciler") this.counts.add(1);
    else return;
    const list = this.history.get(l.metadata.name) ?? [];
    list.push({ at: e.at, holder: l.spec?.holderIdentity ?? "", renew: Date.parse(l.spec?.renewTime ?? ""), durationMs: (l.spec?.leaseDurationSeconds ?? 0) * 1000 });
    this.history.set(l.metadata.name, list);
  }

  add(w: AuditWrite): void {
    this.pending.push(w);
  }

  /** judge judges the writes made before `upTo` (ms): the Lease versions around them must have been seen by then. */
  judge(upTo = Infinity): void {
    const now = this.pending.filter((w) => w.at < upTo);
    this.pending = this.pending.filter((w) => w.at >= upTo);
    for (const w of now) this.judgeOne(w);
  }

  /**
   * leaseOf returns the Lease the write is judged by, with its history and the index of the
   * writer's last renewal before the write (-1: none): with `shards` given, that count's; else, of
   * the counts seen, the one whose Lease of the namespace the writer renewed last.
   */
  private leaseOf(w: AuditWrite): { name: string; hist: LeaseVersion[]; last: number } | undefined {
    let best: { name: string; hist: LeaseVersion[]; last: number } | undefined;
    for (const count of this.shards ? [this.shards] : [...this.counts].sort((a, b) => a - b)) {
      const name = shardLeaseName(w.namespace, count);
      const hist = this.history.get(name) ?? [];
      let last = -1;
      hist.forEach((v, i) => {
        if (v.holder === w.holder && v.renew <= w.at + SKEW_MS) last = i;
      });
      if (hist.length && (!best || (last >= 0 && (best.last < 0 || hist[last].renew > best.hist[best.last].renew)))) best = { name, hist, last };
    }
    return best;
  }

  private judgeOne(w: AuditWrite): void {
    const lease = this.leaseOf(w);
    if (!lease) return; // the Lease watch had not started: nothing to judge by
    this.judged++;
    this.st.judged(RULES.staleWrite);
    const { name, hist, last } = lease;
    if (last < 0) {
      this.st.report(RULES.staleWrite, w.at, w.object, `${w.verb} by ${w.holder}, which never held Lease ${name} before`);
      return;
    }
    const mine = hist[last];
    if (w.at > mine.renew + mine.durationMs + SKEW_MS) {
      this.st.report(RULES.staleWrite, w.at, w.object, `${w.verb} by ${w.holder} ${((w.at - mine.renew) / 1000).toFixed(1)} s after its last renewal of Lease ${name} (duration ${mine.durationMs / 1000} s)`);
      return;
    }
    const taken = hist.slice(last + 1).find((v) => v.holder !== w.holder && v.holder !== "");
    if (taken && taken.at < w.at - SKEW_MS) {
      this.st.report(RULES.staleWrite, w.at, w.object, `${w.verb} by ${w.holder} after ${taken.holder} took Lease ${name} (seen ${new Date(taken.at).toISOString()})`);
    }
  }
}
