import type { PersistentVolumeClaim, Pod } from "../api/k8s.ts";
import { countCompatibleClaims } from "./claim-update.ts";
import { withRefusal, type CreateRefusal } from "./create-refusal.ts";
import { REPLICA_FAILURE_CONDITION } from "../objects/constants.ts";
import { getOrdinal, nameOf } from "../objects/names.ts";
import type { Condition, StatefulSet, StatefulSetStatus, VolumeClaimStatus } from "../api/statefulset.ts";
import type { Action } from "./actions.ts";
import { rolloutConditions, type RolloutFacts } from "./conditions.ts";
import { readInPlaceState } from "./inplace-state.ts";
import { getPodRevision, isCreated, isRunningAndAvailable, isRunningAndReady, isTerminating } from "./pod-state.ts";
import { truncateHistory, type SetRevisions } from "./revisions.ts";
import { updateStrategyOf } from "./update-strategy.ts";
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
  /** Running and ready pods at the update revision (Kruise's updatedReadyReplicas). */
  updatedReadyReplicas: number;
}

/** countedRevision returns the revision a pod counts at: none ("") while an in-place update holds it. */
export const countedRevision = (pod: Pod): string => (readInPlaceState(pod) ? "" : getPodRevision(pod));

/** countReplicas returns the status counts of the pods at `now`. */
export function countReplicas(
  pods: Pod[],
  currentRevision: string,
  updateRevision: string,
  minReadySeconds: number,
  now: Date,
): ReplicaCounts {
  const c: ReplicaCounts = { replicas: 0, readyReplicas: 0, availableReplicas: 0, currentReplicas: 0, updatedReplicas: 0, updatedReadyReplicas: 0 };
  for (const pod of pods) {
    if (!isCreated(pod)) continue;
    c.replicas++;
    if (isRunningAndReady(pod)) c.readyReplicas++;
    if (isRunningAndAvailable(pod, minReadySeconds, now)) c.availableReplicas++;
    // A pod whose in-place update is under way is at neither revision until the update is done.
    if (isTerminating(pod)) continue;
    const rev = countedRevision(pod);
    if (rev === currentRevision) c.currentReplicas++;
    if (rev !== updateRevision) continue;
    c.updatedReplicas++;
    if (isRunningAndReady(pod)) c.updatedReadyReplicas++;
  }
  return c;
}

/** Status fields computed by other phases, given as they are. */
export interface StatusExtras {
  /** status.volumeClaims (claim-update.ts: volumeClaimStatus). */
  volumeClaims?: VolumeClaimStatus[];
  /** status.updateOrder (order-display.ts: updateOrderStatus). */
  updateOrder?: string;
}

/**
 * newStatus returns the set's status: the counts, revisions, observedGeneration and the
 * selector string; a finished RollingUpdate (all updated and ready) makes the update revision
 * current, as upstream's completeRollingUpdate does. Conditions are carried over; volumeClaims
 * and updateOrder are the ones given.
 */
function newStatus(
  set: StatefulSet,
  counts: ReplicaCounts,
  currentRevision: string,
  updateRevision: string,
  collisionCount: number,
  { volumeClaims, updateOrder }: StatusExtras = {},
): StatefulSetStatus {
  const status: StatefulSetStatus = {
    observedGeneration: set.metadata.generation,
    replicas: counts.replicas,
    readyReplicas: counts.readyReplicas,
    currentReplicas: counts.currentReplicas,
    updatedReplicas: counts.updatedReplicas,
    // A pod deleted since leaves both counts at once (adjustCounts, statusAfter); the cap is a guard.
    updatedReadyReplicas: Math.min(counts.updatedReadyReplicas, counts.updatedReplicas),
    availableReplicas: counts.availableReplicas,
    currentRevision,
    updateRevision,
    collisionCount,
    labelSelector: selectorToString(set.spec.selector),
  };
  if (set.status?.conditions) status.conditions = set.status.conditions;
  if (volumeClaims) status.volumeClaims = volumeClaims;
  if (updateOrder) status.updateOrder = updateOrder;
  if (
    updateStrategyOf(set).type === "RollingUpdate" &&
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

/**
 * planStatus is the last phase: the status the counts give, the history truncation (revisions no
 * pod uses beyond revisionHistoryLimit) and the status write when the status changed. With
 * `now`, status.conditions are the rollout's (conditions.ts) and their transitions are evented.
 */
export function planStatus(
  set: StatefulSet,
  counts: ReplicaCounts,
  revisions: SetRevisions,
  pods: readonly Pod[],
  rollout: RolloutFacts,
  now?: Date,
  extras: StatusExtras = {},
): { status: StatefulSetStatus; actions: Action[] } {
  const status = newStatus(set, counts, revisions.currentName, revisions.updateName, revisions.collisionCount, extras);
  const actions: Action[] = [];
  if (now) {
    const c = rolloutConditions(set, status, rollout, now);
    status.conditions = c.conditions;
    actions.push(...c.events);
  }
  const live = new Set([revisions.currentName, revisions.updateName, ...pods.map(getPodRevision)]);
  actions.push(...truncateHistory(set, revisions.revisions, live));
  if (statusChanged(set.status, status)) actions.push({ type: "updateStatus", status });
  return { status, actions };
}

/** What a plan's status is computed from: the counts observed before any write, and the revisions. */
export interface StatusBasis {
  observed: ReplicaCounts;
  currentRevision: string;
  updateRevision: string;
  collisionCount: number;
  /** The rollout's conditions as planned (conditions.ts); the stored ones when absent. */
  conditions?: Condition[];
  /** status.volumeClaims before any write (claim-update.ts: volumeClaimStatus). */
  volumeClaims?: VolumeClaimStatus[];
  /** status.updateOrder as planned (order-display.ts). */
  updateOrder?: string;
  /** The set's claims by name before any write: a created pod's claims count in volumeClaims (statusAfter). */
  claims?: ReadonlyMap<string, PersistentVolumeClaim>;
  /** The plan's `now`: when a create refused by this pass was refused (create-refusal.ts). */
  now?: Date;
}

/**
 * statusAfter returns the status with the counts observed after the pod writes that were done
 * (`done`, in any order): a created pod counts in (and its claims, as observed or created, into
 * volumeClaims: so the pass after it has no status left to write), a deleted failed pod counts out
 * of replicas, any deleted pod out of its revision, an expanded claim into its template's
 * compatibleReplicas (not yet ready: its capacity follows), as upstream adjusts its status while it acts. When every
 * planned write was done it equals the plan's status; after a failure it is the status to write
 * anyway (upstream always writes the status it computed). A create the apiserver refused
 * (`refused`) goes into the ReplicaFailure condition, and one that named a pod created now leaves
 * it (create-refusal.ts).
 */
export function statusAfter(set: StatefulSet, basis: StatusBasis, done: readonly Action[], refused?: CreateRefusal): StatefulSetStatus {
  const c = { ...basis.observed };
  const volumeClaims = basis.volumeClaims?.map((v) => ({ ...v }));
  const claims = new Map(basis.claims);
  for (const a of done) if (a.type === "createClaim") claims.set(a.claim.metadata?.name ?? "", a.claim);
  const move = (rev: string | undefined, delta: number, ready = false) => {
    if (rev === basis.currentRevision) c.currentReplicas += delta;
    if (rev === basis.updateRevision) c.updatedReplicas += delta;
    if (rev === basis.updateRevision && ready) c.updatedReadyReplicas += delta;
  };
  for (const a of done) {
    if (a.type === "createPod") {
      c.replicas++;
      move(getPodRevision(a.pod), +1);
      if (volumeClaims) countCompatibleClaims(set, volumeClaims, getOrdinal(nameOf(a.pod)), a.pod, claims);
    } else if (a.type === "deletePod") {
      if (a.reason === "failed") c.replicas--;
      move(a.revision, -1, a.ready);
    } else if (a.type === "expandClaim") {
      const v = volumeClaims?.find((x) => x.volumeClaimName === a.template);
      if (v) v.compatibleReplicas++;
    }
  }
  const status = newStatus(set, c, basis.currentRevision, basis.updateRevision, basis.collisionCount, { volumeClaims, updateOrder: basis.updateOrder });
  if (basis.conditions) status.conditions = basis.conditions;
  // A create the apiserver refused is remembered for the next pass; one created since is forgotten.
  const created = done.flatMap((a) => (a.type === "createPod" ? [nameOf(a.pod)] : []));
  if (refused || status.conditions?.some((x) => x.type === REPLICA_FAILURE_CONDITION)) {
    const conditions = withRefusal(status.conditions ?? [], refused, created, basis.now ?? new Date(0));
    if (conditions.length) status.conditions = conditions;
    else delete status.conditions;
  }
  return status;
}
