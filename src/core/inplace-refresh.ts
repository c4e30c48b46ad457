import type { Pod, PodTemplateSpec } from "../api/k8s.ts";
import type { Action } from "./actions.ts";
import { isGateFalse, readInPlaceState } from "./inplace-state.ts";
import { cancelInPlaceUpdate, finishInPlaceUpdate } from "./inplace-update.ts";
import { getPodRevision, isTerminating } from "./pod-state.ts";
import { planPodUpdate } from "./pod-update.ts";
import { isPreparingDelete, settleStep } from "./lifecycle.ts";
import { isSpecifiedDelete, planChosenDelete } from "./specified-delete.ts";
import { earlierMs } from "./requeue.ts";
import type { ReplicaSlots } from "./slots.ts";
import type { SetView } from "./plan-context.ts";
import type { RolloutTargets } from "./partition.ts";

/**
 * Driving in-place updates already under way, for every pod of the set and before any ordering
 * rule (Kruise's inplaceupdate Refresh at the start of a sync): a pod an update holds out of
 * traffic is unready, so an OrderedReady pass would otherwise stop at it and never finish it.
 */

export interface RefreshInput {
  /** The set with its update strategy, built once per plan (plan-context.ts). */
  view: SetView;
  /** The pods of the set's ordinals, by offset (slots.ts). */
  replicas: ReplicaSlots;
  /** Pods beyond the set's ordinals (to be scaled down). */
  condemned: Pod[];
  updateRevision: string;
  templates: Map<string, PodTemplateSpec>;
  /** Which replicas the partition leaves to the rollout (partition.ts). */
  targets: RolloutTargets;
  /** False when no pod may be moved to a new revision now (paused, OnDelete, set deleted). */
  rolling: boolean;
  now: Date;
}

export interface RefreshResult {
  actions: Action[];
  /** Indexes of replicas deleted (to be recreated at the update revision). */
  deleted: number[];
  /** InPlaceOnly refusals (pod and pointers). */
  blocked: string[];
  /** Pods a lifecycle hook holds (lifecycle.ts). */
  held: string[];
  requeueAfterMs?: number;
}

/**
 * refreshInPlaceUpdates returns the next write of every in-place update under way: a pod with
 * the state annotation finishes it (gate True, annotation removed) unless the rollout has moved
 * on to another revision, then it is moved on (in place again, or recreated: it never was Ready
 * at the abandoned revision); a pod whose gate is False with no images changed yet goes on with
 * its update (grace period, pod update) while the rollout still wants it, else the gate is put
 * back True (paused, partition raised, template reverted, policy changed). Lifecycle hooks
 * (lifecycle.ts): a replica preparing for deletion goes on to be recreated while the rollout wants
 * it, else back to Normal; a replica no update wants settles (Updating → Updated → Normal).
 */
export function refreshInPlaceUpdates(r: RefreshInput): RefreshResult {
  const out: RefreshResult = { actions: [], deleted: [], blocked: [], held: [] };
  const requeue = (ms: number | undefined) => {
    const at = earlierMs(out.requeueAfterMs, ms);
    if (at !== undefined) out.requeueAfterMs = at;
  };
  const visit = (pod: Pod, index: number | undefined) => {
    if (isTerminating(pod)) return;
    const state = readInPlaceState(pod);
    const wanted = r.rolling && index !== undefined && r.targets(index, pod) && getPodRevision(pod) !== r.updateRevision;
    if (!state && isPreparingDelete(pod)) {
      // Condemned: the scale-down phase goes on with it. A replica: its recreate goes on while the
      // rollout wants it, else it goes back to Normal (lifecycle.ts).
      if (index === undefined) return;
      if (isSpecifiedDelete(pod)) {
        // A chosen deletion (specified-delete.ts) goes on while the rollout runs, else waits.
        if (!r.rolling) return;
        const chosen = planChosenDelete(r.view.set, pod, r.now);
        out.actions.push(...chosen.actions);
        if (chosen.deleted) out.deleted.push(index);
        if (chosen.held) out.held.push(chosen.held);
        requeue(chosen.requeueAfterMs);
        return;
      }
      if (!wanted) {
        out.actions.push(...settleStep(r.view.set, pod, false, r.now).actions);
        return;
      }
      const plan = planPodUpdate(r.view, pod, r.updateRevision, r.templates, r.now);
      out.actions.push(...plan.actions);
      if (plan.deleted) out.deleted.push(index);
      if (plan.held) out.held.push(plan.held);
      return;
    }
    if (!state && !isGateFalse(pod)) {
      // Nothing under way: the lifecycle state settles after an in-place update (Updating → Updated → Normal).
      if (!wanted && index !== undefined) out.actions.push(...settleStep(r.view.set, pod, true, r.now).actions);
      return;
    }
    if (!wanted) {
      const step = state ? finishInPlaceUpdate(pod, r.now) : cancelInPlaceUpdate(pod, "the rollout no longer updates this pod now", r.now);
      out.actions.push(...step.actions);
      return;
    }
    const plan = planPodUpdate(r.view, pod, r.updateRevision, r.templates, r.now, state ? "heal" : "update");
    out.actions.push(...plan.actions);
    if (plan.held) out.held.push(plan.held);
    requeue(plan.requeueAfterMs);
    if (plan.deleted && index !== undefined) out.deleted.push(index);
    if (plan.blocked) {
      out.blocked.push(plan.blocked);
      // InPlaceOnly leaves the pod alone: a gate set False for an update that cannot happen goes back.
      out.actions.push(...(state ? finishInPlaceUpdate(pod, r.now) : cancelInPlaceUpdate(pod, plan.blocked, r.now)).actions);
    }
  };
  for (const [i, p] of r.replicas.pods) visit(p, i);
  for (const p of r.condemned) visit(p, undefined);
  return out;
}
