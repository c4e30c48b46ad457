import type { ControllerRevision, PersistentVolumeClaim, Pod } from "../api/k8s.ts";
import type { ImageList } from "../api/imagelist.ts";
import type { StatefulSet, StatefulSetStatus, VolumeClaimStatus } from "../api/statefulset.ts";
import { volumeClaimStatus, type ExpansionByClass } from "./claim-update.ts";
import { ordinalAt } from "../objects/ordinal-range.ts";
import type { Action } from "./actions.ts";
import { claimPods, claimRevisions } from "./ownership.ts";
import { refreshInPlaceUpdates } from "./inplace-refresh.ts";
import { adjustCounts, newPlanContext, type PhaseResult, type PlanContext } from "./plan-context.ts";
import { ensureGateConditions } from "./replica-fixes.ts";
import { findFirstUnhealthy, planReplicas, splitReplicas, type SplitReplicas } from "./replicas.ts";
import { getStatefulSetRevisions, revisionTemplate } from "./revisions.ts";
import { planRollingUpdate } from "./rolling-update.ts";
import { rolloutTargets } from "./partition.ts";
import { updateOrderStatus } from "./order-display.ts";
import { planScaleDown } from "./scale-down.ts";
import { planPrewarm } from "./prewarm.ts";
import { checkProgress } from "./progress-deadline.ts";
import { podToHeal } from "./healing.ts";
import { isMissingReplica, rolloutBlocker } from "./blocker.ts";
import { earlierMs } from "./requeue.ts";
import { planRollback } from "./rollback.ts";
import { countReplicas, planStatus, type ReplicaCounts, type StatusBasis } from "./status.ts";
import { compileSelector, type LabelMatcher } from "../validation/labels.ts";
import type { ReplicaSlots } from "./slots.ts";
import { PAUSED_WITHDRAWAL, pendingSwitchovers, podsWritten, staleRequests, UNWANTED_WITHDRAWAL } from "./switchover.ts";
import { isSpecifiedDelete } from "./specified-delete.ts";
import { getPodRevision } from "./pod-state.ts";

/**
 * The planner: upstream's updateStatefulSet (pkg/controller/statefulset/stateful_set_control.go)
 * as a composition of pure phases, each in its own file with its own tests:
 *   claim (ownership.ts: claimPods, claimRevisions) → revisions (revisions.ts:
 *   getStatefulSetRevisions) → readiness-gate conditions (replica-fixes.ts: ensureGateConditions)
 *   → replicas/condemned (replicas.ts: splitReplicas) → in-place updates under way
 *   (inplace-refresh.ts: refreshInPlaceUpdates) → create and recreate in order, healing a stuck
 *   rollout (replicas.ts: planReplicas) → scale down (scale-down.ts: planScaleDown) →
 *   rolling update (rolling-update.ts: podsToUpdate, planRollingUpdate) → image pre-warm
 *   (prewarm.ts: planPrewarm, ImageList writes) → status (status.ts: planStatus,
 *   with status.volumeClaims; with volumeClaimUpdateStrategy OnPodRollingUpdate the rolling update
 *   also takes pods whose claims lag their templates, claim-update.ts). Before the pod
 *   phases, the progress deadline (progress-deadline.ts: checkProgress); once it is exceeded with
 *   rollbackOnFailure, the rollback (rollback.ts: planRollback) replaces the pod phases this pass.
 * It reads the observed set, pods, claims and revisions and `now`, and returns the writes to
 * make, in order, and the status to report. It never does I/O and never reads the clock, so any
 * pass may stop after any action and the next plan finishes the job.
 */

export interface PlanInput {
  /** The set, parsed with defaults (StatefulSetSchema). */
  set: StatefulSet;
  /** Pods of the set's namespace that it owns or could adopt (the pass may pass more; others are ignored). */
  pods: Pod[];
  /** PVCs of the set's namespace (or only the set's: claims are looked up by name). */
  claims: PersistentVolumeClaim[];
  /** ControllerRevisions of the set's namespace that it owns or could adopt. */
  revisions: ControllerRevision[];
  now: Date;
  /** The set's selector compiled once (compileSelector); compiled here when absent. */
  matches?: LabelMatcher;
  /** ImageLists of the set's namespace (pre-warm, prewarm.ts); none when absent. */
  imageLists?: readonly ImageList[];
  /**
   * StorageClasses by name, true when the class allows volume expansion: read by the pass only
   * when a claim should grow (claim-update.ts: claimsToExpand); absent, no claim is expanded.
   */
  storageClasses?: ExpansionByClass;
}

export interface Plan {
  actions: Action[];
  /** The status the set should report once the actions are done. */
  status: StatefulSetStatus;
  /** True when the plan stops early waiting on pods (a later pass has more to do). */
  waiting: boolean;
  /** Look at the set again after this many milliseconds (an in-place update's grace period). */
  requeueAfterMs?: number;
  /** What `status` is computed from, so the executor can write the status it observed after a failure (statusAfter). */
  basis: StatusBasis;
  /** OrderedReady: the executor stops at the first failed write. Parallel: it goes on in slow-start batches. */
  monotonic: boolean;
}

/** plan returns the actions that move the set one step towards its spec, and its new status. */
export function plan(input: PlanInput): Plan {
  const { set, now } = input;
  const matches = input.matches ?? compileSelector(set.spec.selector);
  const pods = claimPods(set, input.pods, matches);
  const revisionClaim = claimRevisions(set, input.revisions, matches);
  const revisions = getStatefulSetRevisions(set, revisionClaim.owned);
  const ctx = newPlanContext(set, revisions, input.claims, now, input.storageClasses);
  const observed = countReplicas(pods.owned, revisions.currentName, revisions.updateName, set.spec.minReadySeconds, now);
  const deleting = set.metadata.deletionTimestamp != null;
  const gates = deleting ? [] : ensureGateConditions(pods.owned, now);
  // The pods by ordinal, split once: the phases, the claims' report, the blocker, the deadline and pre-warm read it.
  const slots = splitReplicas(ctx.range, pods.owned);
  // The pod healing replaces this pass (healing.ts), named once: the replicas phase and the blocker read it.
  const heal = deleting ? undefined : podToHeal(ctx, slots.replicas, pods.owned, now);
  const sync = deleting ? undefined : syncReplicas(ctx, slots, observed, heal);
  const claims = claimReport(ctx, slots.replicas);
  const updateOrder = updateOrderStatus(ctx, slots.replicas.pods.values());
  // What holds the rollout, named once: the deadline's event, the Progressing message (blocker.ts).
  const blocker = rolloutBlocker(ctx, pods.owned, revisions.updateName, now, { blocked: sync?.blocked, claimRefusals: claims.refused, claimWaits: claims.unbound, replicas: slots.replicas, currentRevision: revisions.currentName, heal });
  const progress = checkProgress(ctx, observed, revisions.updateName, pods.owned, now, { blocker, volumeClaims: claims.status, replicas: slots.replicas });
  const rollback = progress?.exceeded ? planRollback(set, revisions, blocker) : undefined;
  const rollbackActions = rollback && "actions" in rollback ? rollback.actions : [];
  // A rollback replaces this pass's pod writes: they would only move pods towards the failed revision.
  const synced: Omit<PhaseResult, "halt"> = !sync || rollbackActions.length ? { actions: rollbackActions, counts: observed, waiting: rollbackActions.length > 0 } : sync;
  const rollbackNote = rollback && "refused" in rollback ? rollback.refused : rollbackActions.length ? `rolled back to revision ${revisions.currentName}` : "";
  const status = planStatus(
    set,
    synced.counts,
    revisions,
    pods.owned,
    {
      paused: ctx.strategy.paused,
      blocked: synced.blocked ?? [],
      held: synced.held ?? [],
      switchoverTimeouts: pendingSwitchovers(set, pods.owned, now).filter((p) => p.timedOut).map((p) => p.words),
      progress,
      rollback: rollbackNote,
      claimRefusals: claims.refused,
      claimWaits: claims.unbound,
      blocker: blocker.lasting ? blocker.words : undefined,
      refusalMissing: (pod) => isMissingReplica(set, ctx.range, pods.owned, pod),
    },
    now,
    { volumeClaims: claims.status, updateOrder },
  );
  // The rollout's condition events go first: a failing pod write must not lose them.
  const conditionEvents = status.actions.filter((a) => a.type === "event");
  const statusWrites = status.actions.filter((a) => a.type !== "event");
  const prewarm = prewarmActions(ctx, slots.replicas, input.imageLists ?? []);
  const result: Plan = {
    actions: [...pods.actions, ...revisionClaim.actions, ...revisions.actions, ...gates, ...conditionEvents, ...synced.actions, ...prewarm, ...statusWrites],
    status: status.status,
    waiting: synced.waiting,
    basis: {
      observed,
      currentRevision: revisions.currentName,
      updateRevision: revisions.updateName,
      collisionCount: revisions.collisionCount,
      conditions: status.status.conditions,
      volumeClaims: claims.status,
      updateOrder,
      claims: ctx.claims,
      now,
    },
    monotonic: ctx.monotonic,
  };
  const requeueAfterMs = earlierMs(synced.requeueAfterMs, progress?.requeueAfterMs);
  if (requeueAfterMs !== undefined) result.requeueAfterMs = requeueAfterMs;
  return result;
}

/**
 * claimReport returns status.volumeClaims over the set's replicas (claim-update.ts:
 * volumeClaimStatus) and, under OnPodRollingUpdate, the claims that should grow and cannot
 * (refused) or cannot yet (unbound: not Bound).
 */
function claimReport(ctx: PlanContext, slots: ReplicaSlots): { status?: VolumeClaimStatus[]; refused: string[]; unbound: string[] } {
  const { set } = ctx;
  if (!set.spec.volumeClaimTemplates?.length) return { refused: [], unbound: [] };
  const replicas = [...slots.pods].map(([i, pod]) => [ordinalAt(ctx.range, i), pod] as const);
  const updates = ctx.claimUpdates ? replicas.map(([ordinal, pod]) => ctx.claimUpdates!(ordinal, pod)) : [];
  return { status: volumeClaimStatus(set, replicas, ctx.claims), refused: updates.flatMap((u) => u.refused), unbound: updates.flatMap((u) => u.unbound) };
}

/** prewarmActions returns the pre-warm phase's ImageList writes; none to compute when the set does not opt in and no ImageList exists. */
function prewarmActions(ctx: PlanContext, replicas: ReplicaSlots, imageLists: readonly ImageList[]): Action[] {
  const { set, revisions, now } = ctx;
  if (!imageLists.length && ctx.strategy.prewarmParallelism === undefined) return [];
  const templates = new Map(revisions.revisions.map((r) => [r.metadata?.name ?? "", revisionTemplate(r)]));
  return planPrewarm({ set, replicas, updateRevision: revisions.updateName, templates, imageLists, now });
}

/**
 * syncReplicas runs the phases that walk pods in upstream's order — create and recreate, scale
 * down, rolling update — stopping where OrderedReady halts; OnDelete has no rolling update.
 * `heal` is the pod healing replaces (healing.ts: podToHeal).
 */
function syncReplicas(ctx: PlanContext, slots: SplitReplicas, counts: ReplicaCounts, heal: Pod | undefined): Omit<PhaseResult, "halt"> {
  const { revisions, strategy } = ctx;
  const firstUnhealthy = findFirstUnhealthy(slots);
  const templates = new Map(revisions.revisions.map((r) => [r.metadata?.name ?? "", revisionTemplate(r)]));
  const rolling = strategy.rolling;
  const refresh = refreshInPlaceUpdates({
    view: ctx,
    replicas: slots.replicas,
    condemned: slots.condemned,
    updateRevision: revisions.updateName,
    templates,
    targets: rolloutTargets(ctx, slots.replicas, revisions.updateName),
    rolling,
    now: ctx.now,
  });
  let c = counts;
  for (const i of refresh.deleted) {
    const pod = slots.replicas.pods.get(i);
    if (pod) c = adjustCounts(c, ctx, pod, -1);
  }
  const refreshed: PhaseResult = {
    actions: refresh.actions,
    counts: c,
    waiting: refresh.actions.length > 0 || refresh.requeueAfterMs !== undefined || refresh.held.length > 0,
    halt: false,
    blocked: refresh.blocked,
    held: refresh.held,
  };
  if (refresh.requeueAfterMs !== undefined) refreshed.requeueAfterMs = refresh.requeueAfterMs;
  const created = planReplicas(ctx, slots.replicas, c, rolling ? templates : undefined, new Set(refresh.deleted), heal);
  const phases: PhaseResult[] = [refreshed, created];
  if (!created.halt) {
    const down = planScaleDown(ctx, slots.condemned, firstUnhealthy, created.counts);
    phases.push(down);
    if (!down.halt && strategy.type !== "OnDelete") phases.push(planRollingUpdate(ctx, created.replicas, down.counts, templates));
  }
  const requeues = phases.flatMap((p) => (p.requeueAfterMs === undefined ? [] : [p.requeueAfterMs]));
  const actions = phases.flatMap((p) => p.actions);
  // Switchover requests answered, or no longer needed, on pods no phase wrote (switchover.ts).
  // A pod scaled away still goes while paused; a replica waits for the rollout (paused: withdrawn, asked again on resume).
  const condemned = new Set(slots.condemned);
  const withdraw = (p: Pod) => {
    if (condemned.has(p)) return undefined;
    if (strategy.paused) return PAUSED_WITHDRAWAL;
    return rolling && (isSpecifiedDelete(p) || getPodRevision(p) !== revisions.updateName) ? undefined : UNWANTED_WITHDRAWAL;
  };
  actions.push(...staleRequests(ctx.set, [...slots.replicas.pods.values(), ...slots.condemned], podsWritten(actions), withdraw));
  const result: Omit<PhaseResult, "halt"> = {
    actions,
    counts: phases[phases.length - 1].counts,
    waiting: phases.some((p) => p.waiting),
    blocked: [...new Set(phases.flatMap((p) => p.blocked ?? []))],
    held: [...new Set(phases.flatMap((p) => p.held ?? []))],
  };
  if (requeues.length) result.requeueAfterMs = Math.min(...requeues);
  return result;
}
