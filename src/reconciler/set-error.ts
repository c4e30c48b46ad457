import { API_VERSION, KIND, type Condition } from "../api/statefulset.ts";
import { wholeSeconds } from "../core/inplace-state.ts";
import { type KubeClient, type KubeObject } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import type { Logger } from "../log/log.ts";
import { RECONCILE_ERROR_CONDITION } from "../objects/constants.ts";
import type { EventRecorder, InvolvedObject } from "./events.ts";

/**
 * A set Ordinal cannot plan: its stored object does not parse (InvalidSpec: e.g. stored before the
 * CRD's maximum on replicas, or while the webhook was off) or planning it threw (PlanFailed: e.g.
 * `volumes: 3` in a template the CRD keeps as is). Such a set gets the condition ReconcileError=True
 * with the reason and what went wrong, and a Warning event of the same reason when that condition
 * changes; the pass goes on with the next set (and a budget-bound pass leaves its cursor past it).
 * The same goes for a set the pass sets aside (namespace-budget.ts): OverBudget (its objects are
 * more than a pass may hold of a namespace) and NamespaceQuarantined (its namespace was being read
 * when the reconciler died: quarantine.ts).
 * Once the set is planned again the condition turns False (core/conditions.ts).
 */

export type SetErrorReason = "InvalidSpec" | "PlanFailed" | "OverBudget" | "NamespaceQuarantined";

/** What the event says happened, by reason. */
const WHAT: Record<SetErrorReason, string> = {
  InvalidSpec: "has a spec Ordinal cannot read",
  PlanFailed: "could not be planned",
  OverBudget: "is set aside",
  NamespaceQuarantined: "is not reconciled for now",
};

/** MAX_MESSAGE bounds what a condition and an event say (a hostile spec's error could be long). */
const MAX_MESSAGE = 1024;

/** PlanFailed is what plan() threw for a set, kept apart from the apiserver's errors (which stop the pass as before). */
export class PlanFailed extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = "PlanFailed";
  }
}

/** invalidSpecMessage returns zod's issues as `path: message` lines joined by "; ", cut to MAX_MESSAGE. */
export function invalidSpecMessage(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues
    .map((i) => `${i.path.map(String).join(".") || "(object)"}: ${i.message}`)
    .join("; ")
    .slice(0, MAX_MESSAGE);
}

/**
 * errorConditions returns the set's conditions with ReconcileError=True for `reason` and `message`
 * (others kept, in order; lastTransitionTime kept while it was True already), or undefined when the
 * stored condition says exactly that already (nothing to write, no event).
 */
export function errorConditions(stored: unknown, reason: SetErrorReason, message: string, now: Date): Condition[] | undefined {
  const prev = (Array.isArray(stored) ? stored : []).filter((c): c is Condition => typeof c === "object" && c !== null && typeof (c as Condition).type === "string");
  const old = prev.find((c) => c.type === RECONCILE_ERROR_CONDITION);
  if (old?.status === "True" && old.reason === reason && old.message === message) return undefined;
  const since = old?.status === "True" ? old.lastTransitionTime : undefined;
  const next: Condition = { type: RECONCILE_ERROR_CONDITION, status: "True", lastTransitionTime: since || wholeSeconds(now), reason, message };
  if (!old) return [...prev, next];
  return prev.map((c) => (c.type === RECONCILE_ERROR_CONDITION ? next : c));
}

/**
 * reportSetError writes ReconcileError=True on the set's status and records a Warning event when the
 * condition changes; one log line ("set not planned", with the reason and the error) says both. Best effort: a failed status write is logged, never thrown (the pass goes on).
 */
export async function reportSetError(
  client: KubeClient,
  raw: KubeObject & { status?: { conditions?: unknown } },
  reason: SetErrorReason,
  why: string,
  o: { events: EventRecorder; log: Logger; now: Date },
): Promise<void> {
  const meta = raw.metadata ?? {};
  const id = `${meta.namespace ?? ""}/${meta.name ?? ""}`;
  const message = why.slice(0, MAX_MESSAGE);
  o.log.warn("set not planned", { set: id, reason, error: message });
  const conditions = errorConditions(raw.status?.conditions, reason, message, o.now);
  if (!conditions) return;
  try {
    await client.patch(R.statefulSets, meta.namespace, meta.name ?? "", { status: { conditions } }, "merge", "status");
  } catch (e) {
    o.log.warn("set error condition not written", { set: id, error: e instanceof Error ? e.message : String(e) });
  }
  const subject: InvolvedObject = {
    apiVersion: raw.apiVersion ?? API_VERSION,
    kind: raw.kind ?? KIND,
    metadata: { name: meta.name, namespace: meta.namespace, uid: meta.uid, resourceVersion: meta.resourceVersion },
  };
  // The "set not planned" line above says what the event says: the event gets no line of its own.
  o.events.record(subject, "Warning", reason, `StatefulSet ${id} ${WHAT[reason]}: ${message}`, true);
}
