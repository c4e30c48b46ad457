import type { PersistentVolumeClaim, Pod } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import type { Action } from "./actions.ts";
import { nameOf, resourceVersionOf, uidOf } from "../objects/names.ts";
import { ordinalRange, type OrdinalRange } from "../objects/ordinal-range.ts";
import type { SetRevisions } from "./revisions.ts";
import { claimUpdates, type ClaimUpdates, type ExpansionByClass } from "./claim-update.ts";
import { scaleMaxUnavailableOf, updateStrategyOf, type UpdateStrategy } from "./update-strategy.ts";
import { isRunningAndReady } from "./pod-state.ts";
import { newUpdateOrder, type UpdateOrder } from "./update-order.ts";
import { countedRevision, type ReplicaCounts } from "./status.ts";

/**
 * A set with the readings every phase needs: which ordinals are its replicas, its update
 * strategy with defaults and its update order. Built once (setView) so no phase re-derives a rule.
 */
export interface SetView {
  readonly set: StatefulSet;
  /** Which ordinals are the set's replicas (objects/ordinal-range.ts). */
  readonly range: OrdinalRange;
  /** spec.updateStrategy with its defaults (update-strategy.ts). */
  readonly strategy: UpdateStrategy;
  /** The order a rollout moves pods in (update-order.ts). */
  readonly order: UpdateOrder;
}

/** setView returns the set with its ordinal range and update strategy. */
export function setView(set: StatefulSet): SetView {
  const strategy = updateStrategyOf(set);
  return { set, range: ordinalRange(set.spec), strategy, order: newUpdateOrder(set, strategy.priority) };
}

/**
 * What the phases that walk pods share: the set (with its range and strategy), its revisions,
 * its claims by name and `now`. Built once per plan by newPlanContext; never changed by a phase.
 */
export interface PlanContext extends SetView {
  readonly now: Date;
  readonly revisions: SetRevisions;
  /** PVCs of the set's namespace by name. */
  readonly claims: ReadonlyMap<string, PersistentVolumeClaim>;
  /** OrderedReady: a phase halts the plan at the first pod that is not Running, Ready and available. */
  readonly monotonic: boolean;
  /** StorageClasses and whether each allows expansion; undefined when the pass did not read them (no claim to grow). */
  readonly storageClasses?: ExpansionByClass;
  /** volumeClaimUpdateStrategy OnPodRollingUpdate: what each pod's claims lack (claim-update.ts); undefined with OnDelete. */
  readonly claimUpdates?: ClaimUpdates;
  /** Parallel scale-up: at most this many replicas not yet available (spec.scaleStrategy.maxUnavailable); undefined: no limit. */
  readonly scaleMaxUnavailable: number | undefined;
}

/** newPlanContext returns the context of one plan. */
export function newPlanContext(
  set: StatefulSet,
  revisions: SetRevisions,
  claims: readonly PersistentVolumeClaim[],
  now: Date,
  storageClasses?: ExpansionByClass,
): PlanContext {
  const claimsByName = new Map(claims.map((c) => [nameOf(c), c]));
  return {
    ...setView(set),
    now,
    revisions,
    claims: claimsByName,
    monotonic: set.spec.podManagementPolicy !== "Parallel",
    storageClasses,
    claimUpdates: claimUpdates(set, claimsByName, storageClasses),
    scaleMaxUnavailable: scaleMaxUnavailableOf(set),
  };
}

/** What a phase that walks pods returns. */
export interface PhaseResult {
  /** The writes of this phase, in order. */
  actions: Action[];
  /** The status counts once these writes are done. */
  counts: ReplicaCounts;
  /** True when the set waits on pods (a later pass has more to do). */
  waiting: boolean;
  /** True when OrderedReady stopped here: later phases must not run this pass. */
  halt: boolean;
  /** Milliseconds after which the set should be looked at again (an in-place grace period). */
  requeueAfterMs?: number;
  /** Pods podUpdatePolicy InPlaceOnly cannot update, with the JSON pointers why. */
  blocked?: string[];
  /** Pods a lifecycle hook holds (lifecycle.ts): "pod web-2 PreparingDelete: label k=v". */
  held?: string[];
}

/**
 * adjustCounts returns the counts after `pod` is added (delta +1) or removed (-1): its revision's
 * counter moves; `replicas` moves only with `alsoReplicas` (upstream counts a deleted failed pod
 * out of replicas, a deleted healthy one stays counted until it is gone).
 */
export function adjustCounts(counts: ReplicaCounts, ctx: PlanContext, pod: Pod, delta: number, alsoReplicas = false): ReplicaCounts {
  const rev = countedRevision(pod);
  return {
    ...counts,
    replicas: counts.replicas + (alsoReplicas ? delta : 0),
    currentReplicas: counts.currentReplicas + (rev === ctx.revisions.currentName ? delta : 0),
    updatedReplicas: counts.updatedReplicas + (rev === ctx.revisions.updateName ? delta : 0),
    updatedReadyReplicas: counts.updatedReadyReplicas + (rev === ctx.revisions.updateName && isRunningAndReady(pod) ? delta : 0),
  };
}

/**
 * deletePodAction returns the deletion of a pod, carrying what the status counts need to move with
 * it (the executor's statusAfter): the revision it counts at and whether it was running and ready.
 * `asRead` (a set with spec.roles): the pod's resourceVersion is a precondition too, so a pod whose
 * role label moved since the pass read it is not deleted (the next pass reads it again).
 */
export function deletePodAction(pod: Pod, reason: Extract<Action, { type: "deletePod" }>["reason"], asRead = false): Action {
  const a: Action = { type: "deletePod", name: nameOf(pod), uid: uidOf(pod), reason, revision: countedRevision(pod), ready: isRunningAndReady(pod) };
  if (asRead) a.resourceVersion = resourceVersionOf(pod);
  return a;
}
