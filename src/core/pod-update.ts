import type { Pod, PodTemplateSpec } from "../api/k8s.ts";
import type { Action } from "./actions.ts";
import { nameOf } from "../objects/names.ts";
import { calculateInPlaceUpdate, type InPlaceCalculation } from "./inplace-calculate.ts";
import { startInPlaceUpdate } from "./inplace-update.ts";
import { deletePodAction } from "./plan-context.ts";
import { getPodRevision } from "./pod-state.ts";
import { inPlaceStateLabel, isPreparingDelete, preDeleteStep, preInPlaceUpdateStep, type LifecycleStep } from "./lifecycle.ts";
import type { SetView } from "./plan-context.ts";
import { switchoverStep } from "./switchover.ts";

/**
 * How one pod moves to the update revision, by spec.updateStrategy.rollingUpdate.podUpdatePolicy:
 * ReCreate deletes it (the create phase makes it again at the new revision); InPlaceIfPossible
 * updates it in place when only images (and template labels/annotations) change, else recreates
 * it and says why in an event; InPlaceOnly updates it in place or leaves it alone, blocked.
 */

/** Why a pod is recreated for a claim template added since it was created. */
const REMOUNT_REASON = "a volume claim template was added: only a new pod mounts its claim";

export interface PodUpdatePlan {
  actions: Action[];
  /** The pod is deleted (recreated at the new revision by a later pass). */
  deleted: boolean;
  /** InPlaceOnly could not update it: why, naming the JSON pointers. */
  blocked?: string;
  /** A lifecycle hook holds it (lifecycle.ts): which pod, in which state, by what. */
  held?: string;
  requeueAfterMs?: number;
}

/**
 * inPlaceRefusal returns why `pod` cannot move to `updateRevision` in place (the reason naming
 * the JSON pointers), or undefined when the templates allow it.
 */
export function inPlaceRefusal(pod: Pod, updateRevision: string, templates: Map<string, PodTemplateSpec>): string | undefined {
  const calc = calculateForPod(pod, updateRevision, templates);
  return calc.ok ? undefined : calc.reason;
}

/** calculateForPod is calculateInPlaceUpdate from the pod's revision's template; refused when either template is unknown. */
function calculateForPod(pod: Pod, updateRevision: string, templates: Map<string, PodTemplateSpec>): InPlaceCalculation {
  const from = templates.get(getPodRevision(pod));
  const to = templates.get(updateRevision);
  if (!from || !to) return { ok: false, reason: `revision ${getPodRevision(pod) || "(none)"} of pod ${nameOf(pod)} is not known: nothing to diff` };
  return calculateInPlaceUpdate(from, to);
}

/**
 * planPodUpdate returns the writes that start (or continue) moving `pod` to `updateRevision`.
 * `templates` maps revision names to their pod templates (the pod's own revision may be gone,
 * then nothing can be diffed and in place is impossible). `why` is the deletion's reason.
 * `remount`: the pod lacks the volume of a claim template added since it was created; only a new
 * pod mounts it, so the pod is recreated (InPlaceOnly: left alone and reported).
 * A pod holding a switchover role (spec.roles.switchover) is handed away first (switchover.ts),
 * before any lifecycle hook — also one whose in-place update to an older revision is under way
 * (this is a new update of it: in place again, or recreated).
 */
export function planPodUpdate(
  view: SetView,
  pod: Pod,
  updateRevision: string,
  templates: Map<string, PodTemplateSpec>,
  now: Date,
  why: "update" | "heal" = "update",
  remount = false,
): PodUpdatePlan {
  const { set } = view;
  const { podUpdatePolicy: policy, gracePeriodSeconds } = view.strategy;
  const name = nameOf(pod);
  const setId = `${set.metadata.namespace}/${set.metadata.name}`;
  const handover = switchoverStep(set, pod, now);
  if (!handover.go) return handover.requeueAfterMs === undefined ? { actions: handover.actions, deleted: false } : { actions: handover.actions, deleted: false, requeueAfterMs: handover.requeueAfterMs };
  let refusal: string | undefined = remount ? REMOUNT_REASON : undefined;
  // A pod already preparing for deletion (preDelete hook) goes on to be deleted.
  const preparingDelete = isPreparingDelete(pod);
  if (policy !== "ReCreate" && refusal === undefined && !preparingDelete) {
    const calc = calculateForPod(pod, updateRevision, templates);
    if (!calc.ok) refusal = calc.reason;
    else {
      const hook = preInPlaceUpdateStep(set, pod, now);
      if (!hook.go) return notYet(hook);
      const step = startInPlaceUpdate(pod, updateRevision, calc.spec, gracePeriodSeconds, now, inPlaceStateLabel(set, pod));
      if (step.refused === undefined) return { actions: step.actions, deleted: false, requeueAfterMs: step.requeueAfterMs };
      refusal = step.refused;
    }
  }
  if (policy === "InPlaceOnly" && !preparingDelete) return { actions: [], deleted: false, blocked: `pod ${name}: ${refusal}` };
  const hook = preDeleteStep(set, pod, now);
  if (!hook.go) return notYet(hook);
  // The deletion's own event (SuccessfulDelete) is the executor's; these say why.
  const actions: Action[] = [];
  if (refusal !== undefined)
    actions.push({ type: "event", eventType: "Normal", reason: remount ? "RecreatingForNewClaims" : "InPlaceUpdateFallback", message: `StatefulSet ${setId} recreates Pod ${name}: ${refusal}` });
  if (why === "heal")
    actions.push({
      type: "event",
      eventType: "Normal",
      reason: "HealingRollout",
      message: `StatefulSet ${setId} is replacing Pod ${name}, never Ready at revision ${getPodRevision(pod)}, which the rollout leaves, to revision ${updateRevision}`,
    });
  actions.push(deletePodAction(pod, why, !!set.spec.roles));
  return { actions, deleted: true };
}

/** notYet returns the plan of a pod a lifecycle hook moves or holds: its write (if any), not deleted. */
function notYet(hook: LifecycleStep): PodUpdatePlan {
  const plan: PodUpdatePlan = { actions: hook.actions, deleted: false };
  if (hook.held) plan.held = hook.held;
  return plan;
}
