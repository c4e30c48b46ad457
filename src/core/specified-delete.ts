import type { Pod } from "../api/k8s.ts";
import type { Action } from "./actions.ts";
import { SPECIFIED_DELETE_LABEL } from "../objects/constants.ts";
import { nameOf } from "../objects/names.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import { deletePodAction } from "./plan-context.ts";
import { preDeleteStep } from "./lifecycle.ts";
import { switchoverStep } from "./switchover.ts";

/**
 * Deleting a chosen pod (Kruise's specified delete): a replica labelled
 * `ordinal.dev/specified-delete` is deleted and, once gone, recreated at its ordinal by the
 * replicas phase (at the revision its position wants). The rolling update chooses which of them
 * go this pass (podsToUpdate: in the update order, update-order.ts, counted against maxUnavailable, not limited
 * by the partition, none while paused, as Kruise); this file says what deleting one writes. The
 * executor evicts it (src/reconciler/evict.ts), so PodDisruptionBudgets hold: a refused eviction is
 * asked again next pass and named in the Progressing message. Whoever set the label may delete the
 * pod: the chosen-deletion webhook asked the apiserver (src/admission/specified-delete.ts).
 */

/** isSpecifiedDelete is true when the pod carries the specified-delete label (any value, as Kruise). */
export const isSpecifiedDelete = (pod: Pod): boolean => pod.metadata?.labels?.[SPECIFIED_DELETE_LABEL] !== undefined;

/** What deleting a chosen pod writes now, and whether the pod is deleted by it. */
export interface ChosenDelete {
  actions: Action[];
  /** True when `actions` delete the pod (a lifecycle hook may hold it back first). */
  deleted: boolean;
  /** A preDelete lifecycle hook holds it (lifecycle.ts). */
  held?: string;
  /** Look again after this many milliseconds: when the switchover the deletion waits on times out (switchover.ts). */
  requeueAfterMs?: number;
}

/**
 * planChosenDelete returns the writes that delete a pod chosen by its label: the one call site
 * every chosen deletion goes through (a switchover, then a preDelete lifecycle hook gate here).
 */
export function planChosenDelete(set: StatefulSet, pod: Pod, now: Date): ChosenDelete {
  const handover = switchoverStep(set, pod, now);
  if (!handover.go) return handover.requeueAfterMs === undefined ? { actions: handover.actions, deleted: false } : { actions: handover.actions, deleted: false, requeueAfterMs: handover.requeueAfterMs };
  const hook = preDeleteStep(set, pod, now);
  if (!hook.go) return hook.held ? { actions: hook.actions, deleted: false, held: hook.held } : { actions: hook.actions, deleted: false };
  const id = `${set.metadata.namespace}/${set.metadata.name}`;
  return {
    actions: [
      { type: "event", eventType: "Normal", reason: "SpecifiedDelete", message: `StatefulSet ${id} evicts Pod ${nameOf(pod)} (label ${SPECIFIED_DELETE_LABEL}); it is recreated at its ordinal` },
      deletePodAction(pod, "specifiedDelete", !!set.spec.roles),
    ],
    deleted: true,
  };
}
