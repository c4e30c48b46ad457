import type { OwnerReference, Pod } from "../api/k8s.ts";
import { GROUP, KIND } from "../api/statefulset.ts";
import { SET_NAME_LABEL } from "../objects/constants.ts";
import { isObject } from "../validation/json.ts";

/**
 * ordinalSetOf returns the name of the Ordinal StatefulSet a pod belongs to: the name in its
 * controller ownerReference when that is an `apps.ordinal.dev` StatefulSet, else the value of our
 * `ordinal.dev/statefulset` label. Undefined when the pod is not ours (no such label, or another
 * controller owns it). Safe on any JSON (hostile input reaches it before any schema).
 */
export function ordinalSetOf(pod: Pod | undefined): string | undefined {
  if (!isObject(pod)) return undefined;
  const ref = controllerRefOf(pod);
  if (ref) return isOrdinalSetRef(ref) && typeof ref.name === "string" ? ref.name : undefined;
  const labels: unknown = (pod as Pod).metadata?.labels;
  const label = isObject(labels) ? labels[SET_NAME_LABEL] : undefined;
  return typeof label === "string" && label !== "" ? label : undefined;
}

/** isOrdinalSetRef is true for an ownerReference to an apps.ordinal.dev StatefulSet (any version). */
export function isOrdinalSetRef(ref: { apiVersion?: string; kind?: string }): boolean {
  return ref.kind === KIND && ref.apiVersion?.split("/")[0] === GROUP;
}

/** controllerRefOf returns the pod's controller ownerReference, if any; safe on any JSON. */
export function controllerRefOf(pod: Pod | undefined): OwnerReference | undefined {
  const refs: unknown = isObject(pod) ? (pod as Pod).metadata?.ownerReferences : undefined;
  return Array.isArray(refs) ? (refs as unknown[]).find((r): r is OwnerReference => isObject(r) && r.controller === true) : undefined;
}
