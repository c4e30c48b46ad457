import type { Pod, PodTemplateSpec } from "../api/k8s.ts";
import type { Action } from "./actions.ts";
import { getOrdinal, getPodName, nameOf } from "../objects/names.ts";
import { ordinalAt } from "../objects/ordinal-range.ts";
import { expandClaimActions, needsClaimRollout, type ClaimUpdates } from "./claim-update.ts";
import { isInPlaceUpdating } from "./inplace-state.ts";
import { isPreparingDelete } from "./lifecycle.ts";
import { adjustCounts, type PhaseResult, type PlanContext, type SetView } from "./plan-context.ts";
import { inPlaceRefusal, planPodUpdate } from "./pod-update.ts";
import { getPodRevision, isCreated, isTerminating } from "./pod-state.ts";
import { isUnavailable } from "./update-budget.ts";
import { rolloutTargets } from "./partition.ts";
import type { ReplicaCounts } from "./status.ts";
import { earlierMs } from "./requeue.ts";
import { highestMissing, missingCount, type ReplicaSlots } from "./slots.ts";
import { isSpecifiedDelete, planChosenDelete } from "./specified-delete.ts";
import { rankGate, roleRank } from "./roles.ts";

/**
 * The rolling-update phase of upstream's updateStatefulSet, split as Kruise splits it: a pure
 * choice of which pods to update and how many this pass (podsToUpdate), then the writes.
 */

/** Which pods a rolling update should update, and how many of them now. */
export interface PodsToUpdate {
  /**
   * Replicas labelled ordinal.dev/specified-delete to delete this pass (specified-delete.ts),
   * in the update order (update-order.ts): each counts against maxUnavailable like an update, the partition does
   * not hold them back, and a paused rollout takes none (as Kruise).
   */
  chosen: Pod[];
  /**
   * Replicas the partition lets the rollout move (partition.ts) that are not at the update revision and not terminating,
   * in the order they are to be updated (update-order.ts: highest ordinal first unless a
   * priorityStrategy or roles say otherwise).
   */
  pods: Pod[];
  /** How many of `pods` (from the front) may be updated this pass. */
  limit: number;
  /** The pod (or missing ordinal) the rollout waits on before it may go on, if any. */
  blockedBy?: string;
}

/**
 * podsToUpdate returns the pods to update in order and how many of them may start this pass,
 * with maxUnavailable (upstream's MaxUnavailableStatefulSet, Kruise's accounting): candidates are
 * the replicas the partition leaves to the rollout (partition.ts), in the update order (update-order.ts), that are not at the update
 * revision, not terminating and not already held by an in-place update (that update goes on by
 * itself, refreshInPlaceUpdates). Every replica that is missing, not yet created, terminating,
 * not Running and Ready for minReadySeconds, or held by an in-place update counts as unavailable;
 * walking the candidates in order, one that is unavailable already is taken at no cost (a pod is
 * never counted twice, so a broken pod is always replaced), an available one only while fewer
 * than maxUnavailable replicas are unavailable, and the walk stops at the first that does not fit
 * (taking a later available pod instead would break the order); a later pod that is down already
 * is still taken (takeDownPodsBeyond: it holds the budget itself, so it would hold it for good). With spec.roles, the walk also stops at the
 * first pod of a rank above the lowest one not done yet (roles.ts: rankGate: the leader waits for
 * every follower to be updated and available). A paused rollout takes none.
 * `blockedBy` names what holds the rollout when no candidate may start.
 * With `claims` (volumeClaimUpdateStrategy OnPodRollingUpdate), a pod whose claims lag behind
 * their templates (a claim to expand, a template volume to mount) is a candidate too, whatever
 * its revision, and a pod whose claim is still being expanded counts as unavailable: claims grow
 * in the rollout's order, within its budget. Such a pod still serves, so taking it is not free:
 * only while the other replicas down leave room for it.
 */
export function podsToUpdate(view: SetView, replicas: ReplicaSlots, updateRevision: string, now: Date, claims?: ClaimUpdates): PodsToUpdate {
  const { set, strategy } = view;
  const minReady = set.spec.minReadySeconds;
  // Missing replicas count as unavailable without a slot each (slots.ts); the pods that exist one by one.
  const unavailable = new Set<number>();
  // Pods that serve while their claim grows: counted as unavailable (the next pod waits for the resize), but not down.
  const resizing = new Set<number>();
  const ordinal = (offset: number) => ordinalAt(view.range, offset);
  for (const [i, p] of replicas.pods) {
    if (isUnavailable(p, minReady, now)) unavailable.add(i);
    else if (isCreated(p) && claims?.(ordinal(i), p).resizing) resizing.add(i);
  }
  const missing = missingCount(replicas);
  let unavailableCount = missing + unavailable.size + resizing.size;
  const max = strategy.maxUnavailable;
  /**
   * take spends the budget on the replica at `t`: free when it is down already; a serving pod whose
   * claim resizes (counted already) while the replicas down leave room for it (not the other
   * resizing pods: they serve, and two whose resize waits for a restart would hold each other
   * forever); any other while the budget lasts.
   */
  const take = (t: number): boolean => {
    if (unavailable.has(t)) return true;
    if (resizing.has(t)) {
      if (missing + unavailable.size >= max) return false;
      resizing.delete(t);
      unavailable.add(t);
      return true;
    }
    if (unavailableCount >= max) return false;
    unavailable.add(t);
    unavailableCount++;
    return true;
  };
  // Every replica by its offset, walked in the update order (update-order.ts).
  const offsetOf = new Map<Pod, number>();
  for (const [t, pod] of replicas.pods) offsetOf.set(pod, t);
  const ordered = view.order.sort(offsetOf.keys());
  // Chosen pods first, in the update order, skipping (not stopping at) one that does not fit (Kruise).
  const chosen: Pod[] = [];
  const chosenAt = new Set<number>();
  if (!strategy.paused) {
    for (const pod of ordered) {
      const t = offsetOf.get(pod)!;
      // One preparing for deletion (lifecycle hook) is moved on by refreshInPlaceUpdates.
      if (!isSpecifiedDelete(pod) || !isCreated(pod) || isTerminating(pod) || isPreparingDelete(pod) || !take(t)) continue;
      chosen.push(pod);
      chosenAt.add(t);
    }
  }
  const candidates: number[] = [];
  const pods: Pod[] = [];
  // The partition (partition.ts): by ordinal, or with a ranked order by count.
  const targets = rolloutTargets(view, replicas, updateRevision);
  for (const pod of ordered) {
    const t = offsetOf.get(pod)!;
    if (!targets(t, pod)) continue;
    // A pod preparing for deletion (lifecycle hook) is moved on by refreshInPlaceUpdates.
    const lagging = getPodRevision(pod) !== updateRevision || (!!claims && needsClaimRollout(claims(ordinal(t), pod)));
    if (!chosenAt.has(t) && isCreated(pod) && !isTerminating(pod) && !isInPlaceUpdating(pod) && !isPreparingDelete(pod) && lagging) {
      candidates.push(t);
      pods.push(pod);
    }
  }
  if (strategy.paused) return pods.length ? { chosen, pods, limit: 0, blockedBy: "paused" } : { chosen, pods, limit: 0 };
  // Roles go one after another (roles.ts: rankGate): no pod starts while one of a lower rank is unfinished.
  const roles = set.spec.roles;
  const moving = (p: Pod) => isUnavailable(p, minReady, now) && (getPodRevision(p) === updateRevision || isTerminating(p) || isInPlaceUpdating(p) || isPreparingDelete(p));
  const missingAt = highestMissing(replicas);
  const gate = rankGate(roles, [...pods, ...[...replicas.pods.values()].filter(moving)], missingAt === undefined ? undefined : getPodName(set, ordinal(missingAt)));
  let limit = 0;
  for (const [i, t] of candidates.entries()) {
    if (gate && roleRank(pods[i], roles!) > gate.rank) return { chosen, pods, limit, ...(limit ? {} : { blockedBy: gate.waitingOn }) };
    if (!take(t)) {
      limit = takeDownPodsBeyond(candidates, pods, limit, i, unavailable, (p) => !gate || roleRank(p, roles!) <= gate.rank);
      break;
    }
    limit++;
  }
  if (limit > 0 || pods.length === 0) return { chosen, pods, limit };
  let first = highestMissing(replicas) ?? -1;
  for (const i of [...unavailable, ...resizing]) if (i > first) first = i;
  const holder = replicas.pods.get(first);
  return { chosen, pods, limit, blockedBy: holder ? nameOf(holder) : getPodName(set, ordinalAt(view.range, first)) };
}

/**
 * takeDownPodsBeyond moves the candidates from `from` on that are down already (in `unavailable`)
 * and allowed by `gateAllows` to the front of what is left (after the first `limit`), keeping their
 * order, and returns the new limit. The walk stops at the first pod that does not fit the budget,
 * but a pod later in the order that is down costs nothing: while it is down it is what spends the
 * budget, so leaving it would stall the rollout for good behind it (a pod of a broken release that
 * never gets Ready, at a revision the rollout leaves). Reorders `candidates` and `pods` in place.
 */
function takeDownPodsBeyond(candidates: number[], pods: Pod[], limit: number, from: number, unavailable: Set<number>, gateAllows: (p: Pod) => boolean): number {
  for (let j = from; j < candidates.length; j++) {
    if (!unavailable.has(candidates[j]) || !gateAllows(pods[j])) continue;
    const [t] = candidates.splice(j, 1);
    const [p] = pods.splice(j, 1);
    candidates.splice(limit, 0, t);
    pods.splice(limit, 0, p);
    limit++;
  }
  return limit;
}

/**
 * planRollingUpdate starts updating the first `limit` pods of podsToUpdate, each as its
 * podUpdatePolicy says (planPodUpdate): deleted (recreated at the update revision by a later
 * pass; the executor records its SuccessfulDelete event), updated in place, or left alone when
 * InPlaceOnly cannot (reported in `blocked`).
 */
export function planRollingUpdate(ctx: PlanContext, replicas: ReplicaSlots, counts: ReplicaCounts, templates: Map<string, PodTemplateSpec>): PhaseResult {
  const { set, revisions, now } = ctx;
  const { chosen, pods, limit, blockedBy } = podsToUpdate(ctx, replicas, revisions.updateName, now, ctx.claimUpdates);
  const actions: Action[] = [];
  const blocked: string[] = [];
  const held: string[] = [];
  let requeueAfterMs: number | undefined;
  let c = counts;
  for (const pod of chosen) {
    const d = planChosenDelete(set, pod, now);
    actions.push(...d.actions);
    if (d.deleted) c = adjustCounts(c, ctx, pod, -1);
    if (d.held) held.push(d.held);
    requeueAfterMs = earlierMs(requeueAfterMs, d.requeueAfterMs);
  }
  for (const pod of pods.slice(0, limit)) {
    // The pod's claims grow first (claim-update.ts); then the pod moves, if its revision or volumes lag.
    const claims = ctx.claimUpdates?.(getOrdinal(nameOf(pod)), pod);
    if (claims) actions.push(...expandClaimActions(claims, nameOf(pod)));
    if (getPodRevision(pod) === revisions.updateName && !claims?.remount) continue;
    const p = planPodUpdate(ctx, pod, revisions.updateName, templates, now, "update", !!claims?.remount);
    actions.push(...p.actions);
    if (p.deleted) c = adjustCounts(c, ctx, pod, -1);
    if (p.blocked) blocked.push(p.blocked);
    if (p.held) held.push(p.held);
    requeueAfterMs = earlierMs(requeueAfterMs, p.requeueAfterMs);
  }
  // With InPlaceOnly, pods beyond this pass's limit are blocked as well: say so now.
  if (ctx.strategy.podUpdatePolicy === "InPlaceOnly") {
    // Pods at one revision share the diff: calculate it once per revision.
    const refusals = new Map<string, string | undefined>();
    for (const pod of pods.slice(limit)) {
      const rev = getPodRevision(pod);
      if (!refusals.has(rev)) refusals.set(rev, inPlaceRefusal(pod, revisions.updateName, templates));
      const why = refusals.get(rev);
      if (why) blocked.push(`pod ${nameOf(pod)}: ${why}`);
    }
  }
  // Paused or blocked, nothing changes until the spec does: not waiting (no busy passes).
  const waiting = chosen.length > 0 || blocked.length < limit || (blockedBy !== undefined && !ctx.strategy.paused);
  const r: PhaseResult = { actions, counts: c, waiting: waiting || held.length > 0, halt: false, blocked, held };
  if (requeueAfterMs !== undefined) r.requeueAfterMs = requeueAfterMs;
  return r;
}
