/**
 * The observer's pure half: events in (one order, resourceVersion across the watches), the model
 * updated and every rule judged at that moment; violations, convergence and counts out. No I/O:
 * tests feed it synthetic event sequences.
 */
import { judgeClaim } from "./claim-rules.ts";
import { LeaseJudge, type AuditWrite } from "./leases.ts";
import type { ClaimObject, LeaseObject, PodObject, SetObject } from "./objects.ts";
import { judgePod } from "./pod-rules.ts";
import { judgeRollback, trackConvergence, trackReadyRevision } from "./set-rules.ts";
import { ClusterState, keyOf, type WatchEvent } from "./state.ts";
import type { FaultWindow, ObserverReport, Violation } from "./types.ts";

export interface CheckerOptions {
  injected(): FaultWindow[];
  leaseNamespace: string;
  /** Judge only these namespaces' pods, claims and sets (all when empty). */
  namespaces?: string[];
  shards?: number;
  staleReadMs?: number;
  onViolation?(v: Violation): void;
}

export class Checker {
  readonly st: ClusterState;
  readonly leases: LeaseJudge;
  private readonly namespaces: Set<string>;
  /** Namespaces being deleted. */
  private readonly terminating = new Set<string>();
  private events = 0;
  private resyncEvents = 0;

  constructor(o: CheckerOptions) {
    this.st = new ClusterState(o.staleReadMs ?? 15_000, o.injected, o.onViolation);
    this.leases = new LeaseJudge(this.st, o.leaseNamespace, o.shards);
    this.namespaces = new Set(o.namespaces ?? []);
  }

  /** apply takes one event: judges it against the model as it was, then stores it. */
  apply(e: WatchEvent): void {
    const ns = e.object.metadata.namespace ?? "";
    if (e.kind === "lease") {
      this.leases.applyLease(e, e.object as LeaseObject);
      return;
    }
    if (e.kind === "namespace") {
      const name = e.object.metadata.name;
      if (e.type !== "DELETED" && (e.object as { metadata: { deletionTimestamp?: string } }).metadata.deletionTimestamp) this.terminating.add(name);
      else this.terminating.delete(name);
      return;
    }
    if (this.namespaces.size && !this.namespaces.has(ns)) return;
    this.events++;
    if (e.resync) this.resyncEvents++;
    // A namespace being deleted takes everything with it, in any order: stored, not judged.
    else if (this.terminating.has(ns)) e = { ...e, resync: true };
    const key = keyOf(e.object.metadata);
    if (e.kind === "set") {
      const obj = e.object as SetObject;
      judgeRollback(this.st, this.st.sets.get(key), e, obj);
      trackConvergence(this.st, this.st.applySet(e, obj), e.at);
    } else if (e.kind === "pod") {
      const prev = this.st.pods.get(key) ?? (e.type === "DELETED" ? (e.object as PodObject) : undefined);
      const next = e.type === "DELETED" ? undefined : (e.object as PodObject);
      trackReadyRevision(this.st, e, prev, next);
      judgePod(this.st, e, prev, next);
      this.st.applyPod(e, prev, next);
      const p = next ?? prev;
      if (p) trackConvergence(this.st, this.st.setOf(p), e.at);
    } else {
      const prev = this.st.claims.get(key) ?? (e.type === "DELETED" ? (e.object as ClaimObject) : undefined);
      const next = e.type === "DELETED" ? undefined : (e.object as ClaimObject);
      judgeClaim(this.st, e, prev, next);
      if (next) this.st.claims.set(key, next);
      else this.st.claims.delete(key);
    }
  }

  /** audit takes one write from the audit log; it is judged by `judgeAudit`. */
  audit(w: AuditWrite): void {
    this.leases.add(w);
  }

  /** judgeAudit judges the audit writes made before `upTo` (ms). */
  judgeAudit(upTo = Infinity): void {
    this.leases.judge(upTo);
  }

  /** converged is true while the set is converged (as of the last event judged). */
  converged(ns: string, name: string): boolean {
    return this.st.sets.get(`${ns}/${name}`)?.converged ?? false;
  }

  report(): ObserverReport {
    const convergedAt: Record<string, string> = {};
    for (const s of this.st.sets.values()) if (s.converged && s.convergedAt !== undefined) convergedAt[s.key] = new Date(s.convergedAt).toISOString();
    return { violations: [...this.st.violations], events: this.events, convergedAt, auditWrites: this.leases.judged, resyncEvents: this.resyncEvents, checks: Object.fromEntries([...this.st.checks].sort()) };
  }
}
