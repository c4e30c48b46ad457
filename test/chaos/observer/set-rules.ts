/**
 * The rules of a set as a whole: no automatic rollback of a revision that was still making
 * progress (docs/fields.md "Progress deadline": the clock starts with the rollout and restarts
 * each time a pod at the new revision becomes Ready), and convergence (status equal to what the
 * pods show, every replica Running and Ready at the last revision), with when it happened.
 */
import { FAILED_REVISIONS, inRange, isGated, isRunningAndReady, isTerminating, rangeOrdinals, replicaIndex, revisionOf, type PodObject, type SetObject } from "./objects.ts";
import { ordinalFrom, type ClusterState, type SetState, type WatchEvent } from "./state.ts";
import { RULES } from "./types.ts";

/** Slack on the deadline: Ready times are whole seconds, and the reconciler's read may be a moment old. */
const DEADLINE_SLACK_MS = 2000;

const failedRevisions = (s: SetObject | undefined): string[] => (s?.metadata.annotations?.[FAILED_REVISIONS] ?? "").split(",").map((r) => r.trim()).filter(Boolean);

/** judgeRollback judges a set's new version (call before ClusterState.applySet): a revision newly listed as rolled back from must have gone a whole deadline without progress. */
export function judgeRollback(st: ClusterState, s: SetState | undefined, e: WatchEvent, next: SetObject): void {
  if (!s || e.resync || e.type === "DELETED") return;
  const before = new Set(failedRevisions(s.obj));
  for (const rev of failedRevisions(next).filter((r) => !before.has(r))) {
    st.judged(RULES.rollback);
    const deadline = s.obj.spec?.progressDeadlineSeconds;
    if (deadline === undefined) {
      st.report(RULES.rollback, e.at, s.key, `rolled back from ${rev} without a progress deadline`);
      continue;
    }
    const lastProgress = Math.max(s.templateChangedAt, s.readyAtRevision.get(rev) ?? -Infinity);
    if (e.at < lastProgress + deadline * 1000 - DEADLINE_SLACK_MS) {
      st.report(RULES.rollback, e.at, s.key, `rolled back from ${rev} ${((e.at - lastProgress) / 1000).toFixed(1)} s after its last progress (the template's change or a pod at it becoming Ready); progressDeadlineSeconds ${deadline}`);
      continue;
    }
    const partition = s.obj.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
    const ns = s.obj.metadata.namespace ?? "";
    const due = rangeOrdinals(s.obj).filter((o) => (replicaIndex(s.obj, o) ?? 0) >= partition);
    const done = due.every((o) => {
      const p = st.pods.get(`${ns}/${s.obj.metadata.name}-${o}`);
      return p !== undefined && revisionOf(p) === rev && isRunningAndReady(p) && !isTerminating(p);
    });
    if (due.length && done) st.report(RULES.rollback, e.at, s.key, `rolled back from ${rev} while every pod due was at it, Running and Ready`);
  }
}

/** trackReadyRevision remembers when a pod at a revision became Ready (the deadline's progress). Call before ClusterState.applyPod. */
export function trackReadyRevision(st: ClusterState, e: WatchEvent, prev: PodObject | undefined, next: PodObject | undefined): void {
  if (!next) return;
  const s = st.setOf(next);
  const rev = revisionOf(next);
  if (!s || !rev || !isRunningAndReady(next) || isTerminating(next)) return;
  const was = prev && prev.metadata.uid === next.metadata.uid && revisionOf(prev) === rev && isRunningAndReady(prev) && !isTerminating(prev);
  if (!was) s.readyAtRevision.set(rev, e.resync ? 0 : e.at);
}

/** isConverged is true when the set's status says what its pods show and every replica is Running and Ready at the last revision. */
function isConverged(st: ClusterState, s: SetState): boolean {
  const set = s.obj;
  const status = set.status ?? {};
  if (s.gone || set.metadata.deletionTimestamp) return false;
  if ((status.observedGeneration ?? -1) < (set.metadata.generation ?? 0)) return false;
  const pods = st.podsOf(s);
  const want = rangeOrdinals(set);
  if (pods.length !== want.length) return false;
  const onDelete = set.spec?.updateStrategy?.type === "OnDelete";
  const partition = set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
  let updated = 0;
  for (const p of pods) {
    const o = ordinalFrom(s, p);
    if (o === undefined || !inRange(set, o) || isTerminating(p) || !isRunningAndReady(p) || isGated(p)) return false;
    const rev = revisionOf(p);
    if (rev === status.updateRevision) updated++;
    else if (!onDelete && ((replicaIndex(set, o) ?? 0) >= partition || rev !== status.currentRevision)) return false;
  }
  if (status.replicas !== want.length || status.readyReplicas !== want.length || status.updatedReplicas !== updated) return false;
  return onDelete || partition > 0 || status.currentRevision === status.updateRevision;
}

/** trackConvergence re-judges the set after an event that concerns it, and records when it became converged. */
export function trackConvergence(st: ClusterState, s: SetState | undefined, at: number): void {
  if (!s) return;
  const now = isConverged(st, s);
  if (now && !s.converged) s.convergedAt = at;
  if (!now) s.convergedAt = undefined;
  s.converged = now;
}
