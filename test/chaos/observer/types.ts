/**
 * The observer's interface (agreed in the chaos run's shared decisions): what the
 * chaos runner gives it and what it reports.
 */

/**
 * FaultWindow is one entry of the injector's record: what it made unavailable and when. Times
 * are epoch ms or ISO strings; `end` unset: still going on. `pods` ("namespace/name") are pods
 * the injector made unavailable itself (deleted, made unready): their unavailability is accounted
 * apart from Ordinal's. `replica` names an `ordinal serve` replica it killed, stopped or cut off.
 */
export interface FaultWindow {
  kind: string;
  start: number | string;
  end?: number | string;
  pods?: string[];
  replica?: string;
}

export interface ObserverOptions {
  apiUrl: string;
  token: string;
  caFile?: string;
  /** The namespaces whose sets are judged (all when empty). */
  namespaces: string[];
  /** The apiserver's audit log (JSON lines, level Metadata): writes with user, userAgent and time. */
  auditLogPath?: string;
  /** Where the shard Leases live. */
  leaseNamespace: string;
  /** The injector's record so far. */
  injected(): FaultWindow[];
  /** RECONCILE_SHARDS of the replicas; default: read from the Lease names seen. */
  shards?: number;
  /** How old a read the reconciler may act on (its watch mirror, a slow answer) without it counting as a violation; default 15 s. */
  staleReadMs?: number;
  /** How long an event waits for the other watches before it is judged (the watches are merged in resourceVersion order); default 1 s. */
  settleMs?: number;
  /** Called with each violation as it is found (a runner may log it at once). */
  onViolation?(v: Violation): void;
}

export interface Violation {
  rule: string;
  at: string;
  object: string;
  detail: string;
}

export interface ObserverReport {
  violations: Violation[];
  events: number;
  /** Per set (`namespace/name`) converged at the end: when it last became so. */
  convergedAt?: Record<string, string>;
  /** Audit-log writes judged against the shard Leases. */
  auditWrites?: number;
  /** Events seen only through a relist (a watch gap): they updated the model but were not judged as transitions. */
  resyncEvents?: number;
  /** Per rule, how many times it was judged (a create, a deletion, a pod Ordinal took, a write…): what a run with no violation held against. */
  checks?: Record<string, number>;
  /** Events whose watch lagged the others by more than settleMs: judged after a later write (raise settleMs if many). */
  lateEvents?: number;
}

/** The rule names a Violation carries. */
export const RULES = {
  onePerOrdinal: "one-pod-per-ordinal",
  range: "pod-outside-range",
  adoption: "adoption",
  orderedCreate: "ordered-ready-create",
  orderedScaleDown: "ordered-ready-scale-down",
  maxUnavailable: "max-unavailable",
  scaleMaxUnavailable: "scale-max-unavailable",
  claimDeleted: "claim-deleted",
  preDelete: "pre-delete-hook",
  staleWrite: "write-without-lease",
  rollback: "rollback-of-progressing-revision",
} as const;
