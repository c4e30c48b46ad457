import type { ControllerRevision, PersistentVolumeClaim, Pod, PodCondition } from "../api/k8s.ts";
import type { StatefulSet, StatefulSetStatus } from "../api/statefulset.ts";
import type { Action } from "./actions.ts";
import { INPLACE_READY_CONDITION, POD_INDEX_LABEL, POD_NAME_LABEL, SET_NAME_LABEL } from "./constants.ts";
import { getClaimName, getEndOrdinal, getOrdinal, getPodName, getStartOrdinal, isMemberOf } from "./names.ts";
import { claimObjects } from "./ownership.ts";
import { identityMatches, newClaims, newStatefulSetPod, storageMatches } from "./pod.ts";
import {
  getPodRevision,
  isCreated,
  isFailed,
  isHealthy,
  isPending,
  isRunningAndAvailable,
  isRunningAndReady,
  isSucceeded,
  isTerminating,
} from "./pod-state.ts";
import { claimOwnersMatch, wantedClaimOwners } from "./retention.ts";
import { applyRevision, resolveRevisions, truncateHistory } from "./revisions.ts";
import { countReplicas, newStatus, statusChanged } from "./status.ts";

/**
 * The planner: upstream's updateStatefulSet (pkg/controller/statefulset/stateful_set_control.go)
 * as one pure function. It reads the observed set, pods, claims and revisions and `now`, and
 * returns the writes to make, in order, and the status to report. It never does I/O and never
 * reads the clock, so any pass may stop after any action and the next plan finishes the job.
 */

export interface PlanInput {
  /** The set, parsed with defaults (StatefulSetSchema). */
  set: StatefulSet;
  /** Pods of the set's namespace that it owns or could adopt (the pass may pass more; others are ignored). */
  pods: Pod[];
  /** PVCs of the set's namespace. */
  claims: PersistentVolumeClaim[];
  /** ControllerRevisions of the set's namespace. */
  revisions: ControllerRevision[];
  now: Date;
}

export interface Plan {
  actions: Action[];
  /** The status the set should report once the actions are done. */
  status: StatefulSetStatus;
  /** True when the plan stops early waiting on pods (a later pass has more to do). */
  waiting: boolean;
}

/** plan returns the actions that move the set one step towards its spec, and its new status. */
export function plan(input: PlanInput): Plan {
  const { set, now } = input;
  const actions: Action[] = [];
  const setName = set.metadata.name ?? "";

  const podClaim = claimObjects(set, input.pods, "Pod", (p) => isMemberOf(set, p.metadata?.name ?? ""));
  const revClaim = claimObjects(set, input.revisions, "Revision", () => true);
  actions.push(...podClaim.actions, ...revClaim.actions);

  const revs = resolveRevisions(set, revClaim.owned);
  actions.push(...revs.actions);
  const currentName = revs.current.metadata!.name!;
  const updateName = revs.update.metadata!.name!;
  const currentSet = applyRevision(set, revs.current);
  const updateSet = applyRevision(set, revs.update);

  const pods = podClaim.owned;
  const counts = countReplicas(pods, currentName, updateName, set.spec.minReadySeconds, now);
  const claims = new Map(input.claims.map((c) => [c.metadata?.name ?? "", c]));
  const start = getStartOrdinal(set);
  const end = getEndOrdinal(set);
  const replicas: (Pod | undefined)[] = new Array(set.spec.replicas).fill(undefined);
  const condemned: Pod[] = [];
  for (const pod of pods) {
    const ord = getOrdinal(pod.metadata?.name ?? "");
    if (ord >= start && ord < end) replicas[ord - start] = pod;
    else if (ord >= 0) condemned.push(pod);
  }
  condemned.sort((a, b) => getOrdinal(a.metadata!.name!) - getOrdinal(b.metadata!.name!));

  /** newReplica returns the pod for an ordinal at the revision its position in the partition wants. */
  const newReplica = (ordinal: number): Pod => {
    const ru = set.spec.updateStrategy.rollingUpdate;
    const atCurrent =
      set.spec.updateStrategy.type === "RollingUpdate" && ordinal < start + (ru ? ru.partition : 0) && !!ru;
    return atCurrent ? newStatefulSetPod(currentSet, ordinal, currentName) : newStatefulSetPod(updateSet, ordinal, updateName);
  };

  const monotonic = set.spec.podManagementPolicy !== "Parallel";
  const minReady = set.spec.minReadySeconds;
  const firstUnhealthy = findFirstUnhealthy(replicas, condemned);
  let waiting = false;

  const finish = (): Plan => {
    const status = newStatus(set, counts, currentName, updateName, revs.collisionCount);
    const live = new Set([currentName, updateName, ...pods.map(getPodRevision)]);
    actions.push(...truncateHistory(set, revs.revisions, live));
    if (statusChanged(set.status, status)) actions.push({ type: "updateStatus", status });
    return { actions, status, waiting };
  };

  if (set.metadata.deletionTimestamp != null) return finish();

  const event = (eventType: "Normal" | "Warning", reason: string, message: string) =>
    actions.push({ type: "event", eventType, reason, message });

  const adjust = (pod: Pod, delta: number) => {
    const rev = getPodRevision(pod);
    if (rev === currentName) counts.currentReplicas += delta;
    if (rev === updateName) counts.updatedReplicas += delta;
  };

  /** Claims a pod needs that do not exist yet; stale (terminating) claims block the pod. */
  const missingClaims = (ordinal: number): { create: PersistentVolumeClaim[]; stale: boolean } => {
    const create: PersistentVolumeClaim[] = [];
    let stale = false;
    for (const claim of newClaims(set, ordinal)) {
      const existing = claims.get(claim.metadata!.name!);
      if (!existing) {
        claim.metadata!.ownerReferences = wantedClaimOwners(set, claim, undefined, ordinal);
        if (!claim.metadata!.ownerReferences.length) delete claim.metadata!.ownerReferences;
        create.push(claim);
      } else if (existing.metadata?.deletionTimestamp != null) stale = true;
    }
    return { create, stale };
  };

  const fixClaimOwners = (pod: Pod, ordinal: number) => {
    for (const tpl of set.spec.volumeClaimTemplates ?? []) {
      const claim = claims.get(getClaimName(set, tpl.metadata.name, ordinal));
      if (!claim || claim.metadata?.deletionTimestamp != null) continue;
      if (claimOwnersMatch(set, claim, pod, ordinal)) continue;
      actions.push({
        type: "setClaimOwners",
        name: claim.metadata!.name!,
        uid: claim.metadata!.uid ?? "",
        ownerReferences: wantedClaimOwners(set, claim, pod, ordinal),
        pod: pod.metadata!.name!,
      });
    }
  };

  for (let i = 0; i < replicas.length; i++) {
    const ordinal = start + i;
    const pod = replicas[i];
    if (pod && (isFailed(pod) || isSucceeded(pod)) && !isTerminating(pod)) {
      event("Warning", "RecreatingFailedPod", `StatefulSet ${set.metadata.namespace}/${setName} is recreating failed Pod ${pod.metadata!.name}`);
      actions.push({ type: "deletePod", name: pod.metadata!.name!, uid: pod.metadata!.uid ?? "", reason: "failed" });
      counts.replicas--;
      adjust(pod, -1);
      // The failed pod must be gone before its name can be reused: the next pass recreates it.
      waiting = true;
      if (monotonic) return finish();
      continue;
    }
    if (!pod) {
      const { create, stale } = missingClaims(ordinal);
      if (stale) {
        waiting = true;
        if (monotonic) return finish();
        continue;
      }
      for (const claim of create) actions.push({ type: "createClaim", claim, pod: getPodName(set, ordinal) });
      const fresh = newReplica(ordinal);
      actions.push({ type: "createPod", pod: fresh, reason: "create" });
      counts.replicas++;
      adjust(fresh, +1);
      replicas[i] = fresh;
      if (monotonic) {
        waiting = true;
        return finish();
      }
      continue;
    }
    if (isPending(pod)) {
      for (const claim of missingClaims(ordinal).create) actions.push({ type: "createClaim", claim, pod: pod.metadata!.name! });
    }
    ensureGateCondition(pod, actions, now);
    if (monotonic && (isTerminating(pod) || !isRunningAndReady(pod) || !isRunningAndAvailable(pod, minReady, now))) {
      waiting = true;
      return finish();
    }
    if (!identityMatches(set, pod, ordinal)) repairIdentity(set, pod, ordinal, actions);
    // A pending pod's missing claims were planned above already.
    if (!isPending(pod) && !storageMatches(set, pod, ordinal)) {
      for (const claim of missingClaims(ordinal).create) actions.push({ type: "createClaim", claim, pod: pod.metadata!.name! });
    }
    fixClaimOwners(pod, ordinal);
  }

  // Scale down: highest ordinal first, waiting for terminations, after all replicas are healthy.
  for (let t = condemned.length - 1; t >= 0; t--) {
    const pod = condemned[t];
    const ordinal = getOrdinal(pod.metadata!.name!);
    ensureGateCondition(pod, actions, now);
    if (isTerminating(pod)) {
      waiting = true;
      if (monotonic) return finish();
      continue;
    }
    if (monotonic && pod !== firstUnhealthy && (!isRunningAndReady(pod) || !isRunningAndAvailable(pod, minReady, now))) {
      waiting = true;
      return finish();
    }
    fixClaimOwners(pod, ordinal);
    actions.push({ type: "deletePod", name: pod.metadata!.name!, uid: pod.metadata!.uid ?? "", reason: "scaleDown" });
    adjust(pod, -1);
    waiting = true;
    if (monotonic) return finish();
  }

  if (set.spec.updateStrategy.type === "OnDelete") return finish();

  // RollingUpdate: replace the highest-ordinal pod not at the update revision, one at a time.
  const updateMin = set.spec.updateStrategy.rollingUpdate?.partition ?? 0;
  for (let t = replicas.length - 1; t >= updateMin; t--) {
    const pod = replicas[t]!;
    if (!isCreated(pod)) {
      waiting = true;
      return finish();
    }
    if (getPodRevision(pod) !== updateName && !isTerminating(pod)) {
      event("Normal", "RollingUpdate", `StatefulSet ${set.metadata.namespace}/${setName} is updating Pod ${pod.metadata!.name} to revision ${updateName}`);
      actions.push({ type: "deletePod", name: pod.metadata!.name!, uid: pod.metadata!.uid ?? "", reason: "update" });
      adjust(pod, -1);
      waiting = true;
      return finish();
    }
    if (!isHealthy(pod)) {
      waiting = true;
      return finish();
    }
  }
  return finish();
}

/** findFirstUnhealthy returns the unhealthy pod with the lowest ordinal (replicas, then condemned). */
function findFirstUnhealthy(replicas: (Pod | undefined)[], condemned: Pod[]): Pod | undefined {
  for (const p of replicas) if (p && !isHealthy(p)) return p;
  for (const p of condemned) if (!isHealthy(p)) return p;
  return undefined;
}

/**
 * ensureGateCondition plans setting InPlaceUpdateReady True on a pod that carries the gate but
 * has no such condition yet, so new pods can become Ready (the kubelet ANDs readiness gates).
 */
function ensureGateCondition(pod: Pod, actions: Action[], now: Date): void {
  const gated = pod.spec?.readinessGates?.some((g) => g.conditionType === INPLACE_READY_CONDITION);
  const conditions = pod.status?.conditions ?? [];
  if (!gated || isTerminating(pod) || conditions.some((c) => c.type === INPLACE_READY_CONDITION)) return;
  const cond: PodCondition = { type: INPLACE_READY_CONDITION, status: "True", lastTransitionTime: now.toISOString() as unknown as Date };
  actions.push({
    type: "setPodCondition",
    name: pod.metadata!.name!,
    uid: pod.metadata!.uid ?? "",
    resourceVersion: pod.metadata!.resourceVersion ?? "",
    conditions: [...conditions, cond],
  });
}

/** repairIdentity plans restoring the identity labels a pod lost (spec fields cannot change in place). */
function repairIdentity(set: StatefulSet, pod: Pod, ordinal: number, actions: Action[]): void {
  const name = getPodName(set, ordinal);
  const want: Record<string, string> = {
    [POD_NAME_LABEL]: name,
    [POD_INDEX_LABEL]: String(ordinal),
    [SET_NAME_LABEL]: set.metadata.name ?? "",
  };
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(want)) if (pod.metadata?.labels?.[k] !== v) labels[k] = v;
  if (Object.keys(labels).length) actions.push({ type: "repairPodLabels", name, uid: pod.metadata!.uid ?? "", labels });
}
