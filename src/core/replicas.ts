import type { Pod, PodTemplateSpec } from "../api/k8s.ts";
import type { Action } from "./actions.ts";
import { getOrdinal, getPodName, nameOf } from "../objects/names.ts";
import { offsetOf, ordinalAt, type OrdinalRange } from "../objects/ordinal-range.ts";
import { needsCurrentRevision } from "./partition.ts";
import { adjustCounts, deletePodAction, type PhaseResult, type PlanContext } from "./plan-context.ts";
import { identityMatches, newStatefulSetPod, storageMatches } from "../objects/pod.ts";
import { planPodUpdate } from "./pod-update.ts";
import {
  isFailed,
  isHealthy,
  isPending,
  isRunningAndAvailable,
  isRunningAndReady,
  isSucceeded,
  isTerminating,
} from "./pod-state.ts";
import { expandClaimActions } from "./claim-update.ts";
import { createClaims, fixClaimOwners, missingClaims, repairIdentity } from "./replica-fixes.ts";
import { isUnavailable } from "./update-budget.ts";
import type { ReplicaCounts } from "./status.ts";
import { missingCount, missingOffsets, newSlots, withPods, type ReplicaSlots } from "./slots.ts";

/**
 * The replicas phases of upstream's updateStatefulSet: which ordinals should exist (replicas) and
 * which must go (condemned), then creation and recreation of replicas in ordinal order.
 */

/** Replicas and condemned pods of a set. */
export interface SplitReplicas {
  /** The pods of the set's ordinals, by offset (objects/ordinal-range.ts; slots.ts: no slot per missing ordinal). */
  replicas: ReplicaSlots;
  /** Owned pods whose ordinal is not the set's (beyond the replicas, below start, or reserved), lowest ordinal first. */
  condemned: Pod[];
}

/** splitReplicas sorts the set's owned pods into replica slots and condemned pods (pods without an ordinal are neither). */
export function splitReplicas(range: OrdinalRange, pods: readonly Pod[]): SplitReplicas {
  const replicas: [number, Pod][] = [];
  const condemned: { pod: Pod; ordinal: number }[] = [];
  for (const pod of pods) {
    const ordinal = getOrdinal(nameOf(pod));
    const offset = offsetOf(range, ordinal);
    if (offset !== undefined) replicas.push([offset, pod]);
    else if (ordinal >= 0) condemned.push({ pod, ordinal });
  }
  condemned.sort((a, b) => a.ordinal - b.ordinal);
  return { replicas: newSlots(range.replicas, replicas), condemned: condemned.map((c) => c.pod) };
}

/** findFirstUnhealthy returns the unhealthy pod with the lowest ordinal (replicas, then condemned). */
export function findFirstUnhealthy(slots: SplitReplicas): Pod | undefined {
  for (const p of slots.replicas.pods.values()) if (!isHealthy(p)) return p;
  for (const p of slots.condemned) if (!isHealthy(p)) return p;
  return undefined;
}

/**
 * newReplica returns the pod of the replica at `offset` at the revision the partition wants for it
 * (partition.ts: needsCurrentRevision, given the `others` replicas by offset): the current
 * revision or the update revision.
 */
export function newReplica(ctx: PlanContext, offset: number, others: Iterable<readonly [number, Pod]> = []): Pod {
  const { revisions } = ctx;
  const ordinal = ordinalAt(ctx.range, offset);
  const atCurrent = needsCurrentRevision(ctx, offset, others, revisions.updateName);
  return atCurrent
    ? newStatefulSetPod(revisions.currentSet, ordinal, revisions.currentName)
    : newStatefulSetPod(revisions.updateSet, ordinal, revisions.updateName);
}

/** The replica phase's result: the phase's writes plus the slots with the pods it plans to create. */
export interface ReplicasResult extends PhaseResult {
  replicas: ReplicaSlots;
}

/**
 * MAX_CREATES_PER_PLAN is how many missing replicas one plan creates at most (Parallel; OrderedReady
 * creates one): the ReplicaSet controller's burstReplicas (500 creations per sync). A set of
 * MAX_REPLICAS pods is created in batches, one per pass, and no pass grows with spec.replicas.
 */
export const MAX_CREATES_PER_PLAN = 500;

/**
 * planReplicas walks the replicas in ordinal order (upstream's first loop of updateStatefulSet),
 * visiting the pods that exist and the lowest MAX_CREATES_PER_PLAN missing ordinals (the others
 * are left to later passes, `waiting`): deletes a failed or succeeded pod (recreated next pass),
 * creates a missing pod with its claims (growing existing ones first under OnPodRollingUpdate), plans a pending pod's missing claims, identity and storage repairs and claim owners.
 * Parallel creates while fewer than scaleStrategy.maxUnavailable replicas are not yet available
 * (the others wait for a later pass). OrderedReady halts at the first creation, deletion or pod
 * that is not yet Running, Ready and available (replacing it first when it is `heal`, the pod
 * healing.ts: podToHeal names, and `templates` is given); Parallel goes on. Indexes in `replacing`
 * were deleted by an earlier phase of this pass.
 */
export function planReplicas(
  ctx: PlanContext,
  slots: ReplicaSlots,
  counts: ReplicaCounts,
  templates?: Map<string, PodTemplateSpec>,
  replacing: ReadonlySet<number> = new Set(),
  heal?: Pod,
): ReplicasResult {
  const { set, now, monotonic } = ctx;
  const created: [number, Pod][] = [];
  const actions: Action[] = [];
  const blocked: string[] = [];
  let c = counts;
  // More replicas missing than one plan creates: the next pass goes on.
  let waiting = missingCount(slots) > MAX_CREATES_PER_PLAN;
  const result = (halt: boolean): ReplicasResult => ({ actions, counts: c, waiting, halt, replicas: withPods(slots, created), blocked });
  const offsets = [...slots.pods.keys(), ...missingOffsets(slots, MAX_CREATES_PER_PLAN)].sort((a, b) => a - b);
  // scaleStrategy.maxUnavailable: the replicas not yet available spend it, each creation too.
  let scaleBudget = Infinity;
  if (ctx.scaleMaxUnavailable !== undefined) {
    let unavailable = 0;
    for (const p of slots.pods.values()) if (isUnavailable(p, set.spec.minReadySeconds, now)) unavailable++;
    scaleBudget = ctx.scaleMaxUnavailable - unavailable;
  }
  for (const i of offsets) {
    const ordinal = ordinalAt(ctx.range, i);
    const pod = slots.pods.get(i);
    if (pod && (isFailed(pod) || isSucceeded(pod)) && !isTerminating(pod)) {
      // The executor records upstream's RecreatingFailedPod event for this deletion.
      actions.push(deletePodAction(pod, "failed"));
      c = adjustCounts(c, ctx, pod, -1, true);
      // The failed pod must be gone before its name can be reused: the next pass recreates it.
      waiting = true;
      if (monotonic) return result(true);
      continue;
    }
    if (!pod) {
      if (scaleBudget <= 0) {
        waiting = true;
        continue;
      }
      const { create, stale } = missingClaims(ctx, ordinal);
      if (stale) {
        waiting = true;
        if (monotonic) return result(true);
        continue;
      }
      actions.push(...createClaims(create, getPodName(set, ordinal)));
      // OnPodRollingUpdate: a pod made again (deleted by a person, or OnDelete) finds its claims grown.
      const grow = ctx.claimUpdates?.(ordinal);
      if (grow) actions.push(...expandClaimActions(grow, getPodName(set, ordinal)));
      const fresh = newReplica(ctx, i, [...slots.pods, ...created]);
      actions.push({ type: "createPod", pod: fresh, reason: "create" });
      c = adjustCounts(c, ctx, fresh, +1, true);
      created.push([i, fresh]);
      scaleBudget--;
      if (monotonic) {
        waiting = true;
        return result(true);
      }
      continue;
    }
    if (replacing.has(i)) {
      // Deleted by refreshInPlaceUpdates this pass: recreated once gone.
      waiting = true;
      if (monotonic) return result(true);
      continue;
    }
    if (isPending(pod)) actions.push(...createClaims(missingClaims(ctx, ordinal).create, nameOf(pod)));
    if (monotonic && (isTerminating(pod) || !isRunningAndReady(pod) || !isRunningAndAvailable(pod, set.spec.minReadySeconds, now))) {
      // The pod OrderedReady waits for: replace it now if healing takes it (healing.ts).
      if (templates && pod === heal) {
        const update = planPodUpdate(ctx, pod, ctx.revisions.updateName, templates, now, "heal");
        actions.push(...update.actions);
        if (update.deleted) c = adjustCounts(c, ctx, pod, -1);
        if (update.blocked) blocked.push(update.blocked);
      }
      waiting = true;
      return result(true);
    }
    if (!identityMatches(set, pod, ordinal)) actions.push(...repairIdentity(set, pod, ordinal));
    // A pending pod's missing claims were planned above already.
    if (!isPending(pod) && !storageMatches(set, pod, ordinal)) actions.push(...createClaims(missingClaims(ctx, ordinal).create, nameOf(pod)));
    actions.push(...fixClaimOwners(ctx, pod, ordinal));
  }
  return result(false);
}
