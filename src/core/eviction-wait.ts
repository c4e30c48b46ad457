import type { Condition, StatefulSetStatus } from "../api/statefulset.ts";
import { PROGRESSING_CONDITION } from "../objects/constants.ts";

/**
 * Chosen pods a PodDisruptionBudget holds (their eviction answered 429: src/reconciler/evict.ts),
 * remembered from one pass to the next in the Progressing message, as a refused create is in
 * ReplicaFailure (create-refusal.ts): the executor writes them (withEvictionsWaiting), the next
 * plan reads them back (evictionsWaiting) so the blocker names the budget and the progress
 * deadline runs: a hold is not progress, and not Ordinal's own step either.
 */

/** What the Progressing message says before the chosen pods a PodDisruptionBudget holds. */
const EVICTIONS_WAIT_WORDS = "; chosen pods wait for a PodDisruptionBudget to allow their eviction: ";
/** An entry of that list ("pod web-2: …"), and what the blocker says of such a pod after its name. */
const POD_ENTRY = /^(pod [a-z0-9][-a-z0-9.]*): /;
const HOLD_WORDS = " is chosen for deletion and a PodDisruptionBudget refuses its eviction: ";

/**
 * budgetHoldWords returns what holds a rollout whose chosen pod a budget holds, from its entry in
 * the list ("pod web-2: Cannot evict …" → "pod web-2 is chosen for deletion and a
 * PodDisruptionBudget refuses its eviction: Cannot evict …"): the blocker's words (blocker.ts).
 */
export function budgetHoldWords(entry: string): string {
  return entry.replace(POD_ENTRY, `$1${HOLD_WORDS}`);
}

/**
 * withEvictionsWaiting returns `status` with its Progressing message saying which chosen pods'
 * evictions PodDisruptionBudgets refused this pass (`waiting`, "pod web-2: …"), asked again next
 * pass; the condition's status and reason stay the rollout's. A hold the message already ends on
 * (the deadline's words name what holds the rollout: budgetHoldWords, maybe with last pass's
 * answer) is said once, in the list. Unchanged when nothing waits, so the message goes back once
 * the eviction happened.
 */
export function withEvictionsWaiting(status: StatefulSetStatus, waiting: readonly string[]): StatefulSetStatus {
  if (waiting.length === 0 || !status.conditions) return status;
  const said = (message: string) =>
    waiting.reduce((m, entry) => {
      const at = m.indexOf(`: ${POD_ENTRY.exec(entry)?.[1] ?? entry}${HOLD_WORDS}`);
      return at === -1 ? m : m.slice(0, at);
    }, message);
  const conditions = status.conditions.map((c) =>
    c.type === PROGRESSING_CONDITION ? { ...c, message: `${said(c.message ?? "")}${EVICTIONS_WAIT_WORDS}${waiting.join("; ")}`.slice(0, 2048) } : c,
  );
  return { ...status, conditions };
}

/**
 * evictionsWaiting returns the chosen pods whose eviction a budget refused at the last pass, as
 * its Progressing message says: pod name → "pod web-2: Cannot evict pod … The disruption budget
 * web needs 3 healthy pods and has 3 currently" (empty when none).
 */
export function evictionsWaiting(conditions: readonly Condition[] | undefined): Map<string, string> {
  const message = conditions?.find((c) => c.type === PROGRESSING_CONDITION)?.message ?? "";
  const at = message.lastIndexOf(EVICTIONS_WAIT_WORDS);
  const waiting = new Map<string, string>();
  if (at === -1) return waiting;
  for (const entry of message.slice(at + EVICTIONS_WAIT_WORDS.length).split(/; (?=pod [a-z0-9][-a-z0-9.]*: )/)) {
    const pod = /^pod ([a-z0-9][-a-z0-9.]*): /.exec(entry)?.[1];
    if (pod) waiting.set(pod, entry);
  }
  return waiting;
}
