/**
 * The one info line a person follows per set: where its rollout stands, written when it changes.
 * Every other line of a pass is debug (what it did) or warn (what went wrong).
 */
import type { StatefulSetStatus } from "../api/statefulset.ts";
import type { Logger } from "../log/log.ts";
import { PROGRESSING_CONDITION } from "../objects/constants.ts";

/** progressingOf returns the set's Progressing condition in `status`, if it has one. */
const progressingOf = (status: StatefulSetStatus | undefined) => status?.conditions?.find((c) => c.type === PROGRESSING_CONDITION);

/**
 * logRolloutChange writes one info line, "rollout", when the status a pass wrote (`written`;
 * undefined: none was written) changes the set's rollout state from `before`: the Progressing
 * condition's status or reason (RollingUpdate, Scaling, RolloutComplete, ProgressDeadlineExceeded,
 * …). A status that only moves counts within one state logs nothing.
 */
export function logRolloutChange(log: Logger, set: string, before: StatefulSetStatus | undefined, written: StatefulSetStatus | undefined): void {
  const now = progressingOf(written);
  if (!written || !now) return;
  const was = progressingOf(before);
  if (was && was.status === now.status && was.reason === now.reason) return;
  log.info("rollout", {
    set,
    state: now.reason,
    progressing: now.status,
    ...(was ? { was: was.reason } : {}),
    message: now.message,
    replicas: written.replicas,
    ready: written.readyReplicas ?? 0,
    updated: written.updatedReplicas ?? 0,
    updateRevision: written.updateRevision,
  });
}
