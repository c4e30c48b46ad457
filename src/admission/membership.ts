import type { Pod } from "../api/k8s.ts";
import { GROUP, KIND } from "../api/statefulset.ts";
import { SET_NAME_LABEL } from "../core/constants.ts";
import { controllerOf } from "../core/ownership.ts";

/**
 * ordinalSetOf returns the name of the Ordinal StatefulSet a pod belongs to: the name in its
 * controller ownerReference when that is an `apps.ordinal.dev` StatefulSet, else the value of our
 * `ordinal.dev/statefulset` label. Undefined when the pod is not ours (no such label, or another
 * controller owns it).
 */
export function ordinalSetOf(pod: Pod | undefined): string | undefined {
  if (!pod) return undefined;
  const ref = controllerOf(pod);
  if (ref) return isOrdinalSetRef(ref) ? ref.name : undefined;
  const label = pod.metadata?.labels?.[SET_NAME_LABEL];
  return label ? label : undefined;
}

/** isOrdinalSetRef is true for an ownerReference to an apps.ordinal.dev StatefulSet (any version). */
export function isOrdinalSetRef(ref: { apiVersion?: string; kind?: string }): boolean {
  return ref.kind === KIND && (ref.apiVersion ?? "").split("/")[0] === GROUP;
}
