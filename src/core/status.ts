import type { Pod } from "../api/k8s.ts";
import type { StatefulSet, StatefulSetStatus } from "../api/statefulset.ts";
import { getPodRevision, isCreated, isRunningAndAvailable, isRunningAndReady, isTerminating } from "./pod-state.ts";
import { selectorToString } from "../validation/labels.ts";

/**
 * Status bookkeeping after upstream's computeReplicaStatus / completeRollingUpdate. Counts are
 * over the pods the set owns (replicas and condemned alike).
 */

export interface ReplicaCounts {
  replicas: number;
  readyReplicas: number;
  availableReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
}

/** countReplicas returns the status counts of the pods at `now`. */
export function countReplicas(
  pods: Pod[],
  currentRevision: string,
  updateRevision: string,
  minReadySeconds: number,
  now: Date,
): ReplicaCounts {
  const c: ReplicaCounts = { replicas: 0, readyReplicas: 0, availableReplicas: 0, currentReplicas: 0, updatedReplicas: 0 };
  for (const pod of pods) {
    if (!isCreated(pod)) continue;
    c.replicas++;
    if (isRunningAndReady(pod)) c.readyReplicas++;
    if (isRunningAndAvailable(pod, minReadySeconds, now)) c.availableReplicas++;
    if (isTerminating(pod)) continue;
    const rev = getPodRevision(pod);
    if (rev === currentRevision) c.currentReplicas++;
    if (rev === updateRevision) c.updatedReplicas++;
  }
  return c;
}

/**
 * newStatus returns the set's status: the counts, revisions, observedGeneration and the
 * selector string; a finished RollingUpdate (all updated and ready) makes the update revision
 * current, as upstream's completeRollingUpdate does. Conditions are carried over.
 */
export function newStatus(
  set: StatefulSet,
  counts: ReplicaCounts,
  currentRevision: string,
  updateRevision: string,
  collisionCount: number,
): StatefulSetStatus {
  const status: StatefulSetStatus = {
    observedGeneration: set.metadata.generation,
    replicas: counts.replicas,
    readyReplicas: counts.readyReplicas,
    currentReplicas: counts.currentReplicas,
    updatedReplicas: counts.updatedReplicas,
    availableReplicas: counts.availableReplicas,
    currentRevision,
    updateRevision,
    collisionCount,
    labelSelector: selectorToString(set.spec.selector),
  };
  if (set.status?.conditions) status.conditions = set.status.conditions;
  if (
    set.spec.updateStrategy.type === "RollingUpdate" &&
    status.updatedReplicas === status.replicas &&
    status.readyReplicas === status.replicas
  ) {
    status.currentReplicas = status.updatedReplicas;
    status.currentRevision = status.updateRevision;
  }
  return status;
}

/** statusChanged is true when writing `next` would change the stored status. */
export function statusChanged(prev: StatefulSetStatus | undefined, next: StatefulSetStatus): boolean {
  if (!prev) return true;
  const keys = new Set([...Object.keys(prev), ...Object.keys(next)]) as Set<keyof StatefulSetStatus>;
  for (const k of keys) if (JSON.stringify(prev[k] ?? null) !== JSON.stringify(next[k] ?? null)) return true;
  return false;
}
