/**
 * Control labels are Ordinal's (issue 35): an Ordinal StatefulSet may not carry a pod's control
 * keys (objects/constants.ts: POD_CONTROL_LABELS, POD_CONTROL_ANNOTATIONS) where they would reach
 * every pod — its pod template, or a lifecycle hook's labelsHandler (labels the reconciler itself
 * writes back on a pod) — nor the set-name label with another set's name. A template carrying
 * `ordinal.dev/specified-delete` made every pod it created ask for its own deletion: 1,140 pod
 * creates in 20 s for 20 replicas (G5). Claim templates are not checked: no control key is read
 * from a claim, and the set-name label on one is always rewritten (objects/pod.ts: newClaims).
 */
import { POD_CONTROL_ANNOTATIONS, POD_CONTROL_LABELS, SET_NAME_LABEL, SPECIFIED_DELETE_LABEL } from "../objects/constants.ts";
import { type FieldError, type FieldPath, forbidden, invalid } from "./field-error.ts";
import { type JsonObject, isObject } from "./json.ts";

const HOOKS = ["preDelete", "inPlaceUpdate"];

/** whyNotHere returns what a control key does, for its Forbidden message in a template. */
function whyNotHere(key: string, where: string): string {
  if (key === SPECIFIED_DELETE_LABEL)
    return `chooses one pod for deletion: label that pod (kubectl label pod <set>-<ordinal> ${key}=true), never ${where}, which would make every pod delete itself and be made again, forever`;
  return `is a control key Ordinal's reconciler writes and reads on each pod: ${where} may not carry it`;
}

/** keysOf returns the keys of `v` when it is an object (type errors are reported elsewhere). */
const keysOf = (v: unknown): string[] => (isObject(v) ? Object.keys(v) : []);

/**
 * validateControlKeys returns a Forbidden error for each control key in spec.template's labels or
 * annotations and in a lifecycle hook's labelsHandler, and an Invalid one for the set-name label
 * there with another value than the set's name (`name`, when known). `spec` is untyped.
 */
export function validateControlKeys(spec: JsonObject, name: unknown, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const template = isObject(spec.template) ? spec.template : {};
  const meta = isObject(template.metadata) ? template.metadata : {};
  const labelsPath = p.child("template", "metadata", "labels");
  const setLabel = (labels: unknown, path: FieldPath) => {
    const value = isObject(labels) ? labels[SET_NAME_LABEL] : undefined;
    if (typeof value === "string" && typeof name === "string" && name !== "" && value !== name)
      errs.push(invalid(path.key(SET_NAME_LABEL), value, `must be this set's name ${JSON.stringify(name)} or left out: Ordinal writes it on every pod of the set`));
  };
  for (const key of keysOf(meta.labels)) if (POD_CONTROL_LABELS.includes(key)) errs.push(forbidden(labelsPath.key(key), whyNotHere(key, "the pod template")));
  setLabel(meta.labels, labelsPath);
  const annotationsPath = p.child("template", "metadata", "annotations");
  for (const key of keysOf(meta.annotations)) if (POD_CONTROL_ANNOTATIONS.includes(key)) errs.push(forbidden(annotationsPath.key(key), whyNotHere(key, "the pod template")));
  const lifecycle = isObject(spec.lifecycle) ? spec.lifecycle : {};
  for (const hook of HOOKS) {
    const h = lifecycle[hook];
    if (!isObject(h)) continue;
    const hp = p.child("lifecycle", hook, "labelsHandler");
    for (const key of keysOf(h.labelsHandler)) {
      if (POD_CONTROL_LABELS.includes(key)) errs.push(forbidden(hp.key(key), whyNotHere(key, "a hook's labelsHandler (the reconciler writes these labels back on the pod)")));
      else if (key === SET_NAME_LABEL) errs.push(forbidden(hp.key(key), "is the label that ties a pod to its set: a hook may not wait on it"));
    }
  }
  return errs;
}
