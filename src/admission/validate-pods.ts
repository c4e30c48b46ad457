import type { OwnerReference, Pod } from "../api/k8s.ts";
import {
  INPLACE_READY_CONDITION,
  INPLACE_STATE_ANNOTATION,
  LIFECYCLE_STATE_LABEL,
  POD_INDEX_LABEL,
  POD_NAME_LABEL,
  REVISION_LABEL,
  SET_NAME_LABEL,
  SWITCHOVER_REQUEST_ANNOTATION,
} from "../objects/constants.ts";
import { reconcilerOnly } from "../objects/reconciler-identity.ts";
import { forbidden, type FieldError } from "../validation/field-error.ts";
import { isObject } from "../validation/json.ts";
import { denyInvalid } from "./invalid.ts";
import { isOrdinalSetRef, ordinalSetOf } from "./membership.ts";
import { diff } from "./patch.ts";
import { allow, objectName, type AdmissionRequest, type AdmissionResult } from "./types.ts";

/**
 * Labels that tie a pod to its set, ordinal and revision, and its lifecycle state (the hooks'
 * state machine, src/core/lifecycle.ts): only the reconciler changes them.
 */
const IDENTITY_LABELS = [POD_NAME_LABEL, POD_INDEX_LABEL, REVISION_LABEL, SET_NAME_LABEL, LIFECYCLE_STATE_LABEL] as const;
/**
 * Annotations only the reconciler writes: the in-place update state machine, and the switchover
 * request (src/core/switchover.ts) — anyone may remove that one (a person withdrawing a request:
 * Ordinal asks again, with a fresh clock, if it still needs to), only the reconciler adds or changes it.
 */
const RECONCILER_ANNOTATIONS = [INPLACE_STATE_ANNOTATION, SWITCHOVER_REQUEST_ANNOTATION] as const;
/** Reconciler annotations anyone may remove. */
const REMOVABLE_ANNOTATIONS: readonly string[] = [SWITCHOVER_REQUEST_ANNOTATION];
/** Pod conditions only the reconciler writes (the in-place update readiness gate). */
const RECONCILER_CONDITIONS = [INPLACE_READY_CONDITION] as const;
/**
 * Who may remove (never add or change) Ordinal's ownerReference besides the reconciler: the
 * garbage collector orphaning the pods of a set deleted with `propagationPolicy: Orphan`, under
 * its own service account (`--use-service-account-credentials`) or the controller manager's user.
 */
export const GARBAGE_COLLECTOR_USERNAMES = ["system:serviceaccount:kube-system:generic-garbage-collector", "system:kube-controller-manager"] as const;

export interface ValidatePodOptions {
  /** `userInfo.username` of the reconciler: the one caller allowed to change identity and in-place state. */
  reconcilerUsername: string;
}

/**
 * changedSpecPointers returns the JSON pointers (`/spec/containers/0/env`) of every change from
 * `oldSpec` to `newSpec` except container and init container images, sorted. Empty when the update
 * changes images only (or nothing).
 */
export function changedSpecPointers(oldSpec: unknown, newSpec: unknown): string[] {
  const before = isObject(oldSpec) ? oldSpec : {};
  const after = isObject(newSpec) ? (JSON.parse(JSON.stringify(newSpec)) as Record<string, unknown>) : {};
  for (const field of ["containers", "initContainers"]) {
    const olds = before[field];
    const news = after[field];
    if (!Array.isArray(olds) || !Array.isArray(news)) continue;
    for (const [i, o] of olds.entries()) {
      const n: unknown = news[i];
      if (!isObject(o) || !isObject(n)) continue;
      if ("image" in o) n.image = o.image;
      else delete n.image;
    }
  }
  const pointers = new Set(diff(before, after).map((op) => `/spec${op.path}`));
  return [...pointers].sort();
}

/** Subresources that write a Pod object and come to this hook (see webhook-configs.ts). */
const POD_WRITING_SUBRESOURCES = new Set(["", "status", "ephemeralcontainers", "resize"]);

/**
 * validatePodRequest answers the pod hook: a CREATE or UPDATE of a pod (any subresource that
 * writes one: status, ephemeralcontainers, resize) and a CREATE of pods/binding (a Binding's
 * annotations are copied onto the pod). A pod is Ordinal's when the old OR the new object says so
 * (controller reference, else the set label). It refuses, listing every problem at once:
 * - anyone but the reconciler writing the in-place state annotation, adding or changing the
 *   switchover request, or writing the InPlaceUpdateReady condition (on any pod, Ordinal's or
 *   not: the names are reserved), or, updating Ordinal's
 *   pods, changing an identity label or the lifecycle state label, or adding, changing or removing Ordinal's ownerReference
 *   (the garbage collector may remove it);
 * - on an UPDATE of Ordinal's pod, any `spec` change other than container images (the template is
 *   where that belongs; pods/ephemeralcontainers may also change spec.ephemeralContainers).
 */
export function validatePodRequest(req: AdmissionRequest, opts: ValidatePodOptions): AdmissionResult {
  if (req.kind.kind === "Binding") return validateBinding(req, opts);
  // 1.20's pods/ephemeralcontainers takes an EphemeralContainers object, which cannot write metadata.
  if (req.kind.kind !== "Pod") return { response: allow(req) };
  if (req.operation !== "CREATE" && req.operation !== "UPDATE") return { response: allow(req) };
  const sub = req.subResource ?? "";
  if (!POD_WRITING_SUBRESOURCES.has(sub)) return { response: allow(req) };
  const oldPod = (req.operation === "UPDATE" ? (req.oldObject ?? {}) : {}) as Pod;
  const pod = (req.object ?? {}) as Pod;
  const setName = ordinalSetOf(oldPod) ?? ordinalSetOf(pod);
  const isReconciler = req.userInfo.username === opts.reconcilerUsername;

  const errors: FieldError[] = [];
  if (!isReconciler) {
    const who = reconcilerOnly(opts.reconcilerUsername, req.userInfo.username ?? "");
    for (const key of RECONCILER_ANNOTATIONS) {
      const after = pod.metadata?.annotations?.[key];
      const change = describeChange(oldPod.metadata?.annotations?.[key], after);
      if (change && !(after === undefined && REMOVABLE_ANNOTATIONS.includes(key))) errors.push(forbidden(`metadata.annotations[${key}]`, `${change}: ${who}${whatFor(key)}`));
    }
    for (const type of RECONCILER_CONDITIONS) {
      if (conditionKey(oldPod, type) !== conditionKey(pod, type)) errors.push(forbidden(`status.conditions[${type}]`, `${who} (it is the in-place update readiness gate)`));
    }
    // On CREATE the identity labels come from the mutating hook and a hand-made pod carries the
    // set label; an ownerReference there is adopted or ignored by the reconciler. Updates only.
    if (setName && req.operation === "UPDATE") {
      const of = `on a pod of Ordinal StatefulSet "${setName}" ${who}`;
      for (const key of IDENTITY_LABELS) {
        const change = describeChange(oldPod.metadata?.labels?.[key], pod.metadata?.labels?.[key]);
        if (change) errors.push(forbidden(`metadata.labels[${key}]`, `${change}: ${of}`));
      }
      const refChange = ordinalRefChange(oldPod, pod);
      if (refChange && !(refChange === "removed" && (GARBAGE_COLLECTOR_USERNAMES as readonly (string | undefined)[]).includes(req.userInfo.username))) {
        errors.push(forbidden("metadata.ownerReferences", `${refChange} Ordinal's owner reference: ${of}`));
      }
    }
  }
  if (setName && req.operation === "UPDATE") {
    const pointers = changedSpecPointers(oldPod.spec, pod.spec).filter((p) => !(sub === "ephemeralcontainers" && p.startsWith("/spec/ephemeralContainers")));
    if (pointers.length > 0) {
      errors.push(
        forbidden(
          "spec",
          `a pod of Ordinal StatefulSet "${setName}" may change only spec.containers[*].image and spec.initContainers[*].image; ` +
            `this update changes ${pointers.slice(0, 20).join(", ")}${pointers.length > 20 ? `, … (${pointers.length} in all)` : ""} (change the StatefulSet's template instead)`,
        ),
      );
    }
  }
  if (errors.length > 0) return { response: denyInvalid(req, { group: "", kind: "Pod" }, objectName(req, pod), errors) };
  return { response: allow(req) };
}

/** validateBinding refuses a Binding that would copy a reconciler-only annotation onto its pod. */
function validateBinding(req: AdmissionRequest, opts: ValidatePodOptions): AdmissionResult {
  if (req.userInfo.username === opts.reconcilerUsername) return { response: allow(req) };
  // The schema requires an object on CREATE.
  const annotations = (req.object as { metadata?: { annotations?: Record<string, unknown> } }).metadata?.annotations;
  const errors = RECONCILER_ANNOTATIONS.filter((k) => isObject(annotations) && k in annotations).map((k) =>
    forbidden(`metadata.annotations[${k}]`, `a binding copies its annotations onto the pod: ${reconcilerOnly(opts.reconcilerUsername, req.userInfo.username ?? "")}`),
  );
  if (errors.length === 0) return { response: allow(req) };
  return { response: denyInvalid(req, { group: "", kind: "Binding" }, objectName(req, req.object), errors) };
}

/** whatFor says what a reconciler-only annotation is for, in its refusal. */
const whatFor = (key: string): string =>
  key === SWITCHOVER_REQUEST_ANNOTATION ? " (it is Ordinal's request to hand the pod's role away; the application answers by moving the role label, never by writing this annotation)" : "";

/** conditionKey returns a canonical text of the pod's condition of this type ("" when absent). */
function conditionKey(pod: Pod, type: string): string {
  const conditions = pod.status?.conditions;
  if (!Array.isArray(conditions)) return "";
  const found = conditions.filter((c) => isObject(c) && c.type === type);
  return found.length === 0 ? "" : canonicalJson(found);
}

/** canonicalJson is JSON.stringify with object keys sorted (for equality of decoded objects). */
function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) => (isObject(val) ? Object.fromEntries(Object.keys(val).sort().map((k) => [k, val[k]])) : val));
}

/**
 * ordinalRefChange says whether Ordinal's ownerReferences, or the controller reference when either
 * side's is Ordinal's, differ between the two pods: "added" (the old pod had none of Ordinal's),
 * "removed" (the new one has none and no controller), "changed" otherwise; undefined when equal.
 */
function ordinalRefChange(oldPod: Pod, pod: Pod): "added" | "removed" | "changed" | undefined {
  const before = ownerRefsOf(oldPod).filter(isOrdinalSetRef);
  const after = ownerRefsOf(pod).filter(isOrdinalSetRef);
  const oldCtl = ownerRefsOf(oldPod).find((r) => r.controller);
  const newCtl = ownerRefsOf(pod).find((r) => r.controller);
  const ours = (r: OwnerReference | undefined) => r !== undefined && isOrdinalSetRef(r);
  const sameController = !(ours(oldCtl) || ours(newCtl)) || canonicalJson(oldCtl) === canonicalJson(newCtl);
  if (sameController && canonicalJson(before) === canonicalJson(after)) return undefined;
  if (before.length === 0) return "added";
  if (after.length === 0 && newCtl === undefined) return "removed";
  return "changed";
}

/** ownerRefsOf returns the object-valued entries of metadata.ownerReferences ([] when not a list). */
function ownerRefsOf(pod: Pod): OwnerReference[] {
  const refs: unknown = pod.metadata?.ownerReferences;
  return Array.isArray(refs) ? refs.filter((r): r is OwnerReference => isObject(r)) : [];
}

/** describeChange says how a label or annotation value changed, or undefined when it did not. */
function describeChange(before: string | undefined, after: string | undefined): string | undefined {
  if (before === after) return undefined;
  if (before === undefined) return `added ${JSON.stringify(after)}`;
  if (after === undefined) return `removed ${JSON.stringify(before)}`;
  return `changed ${JSON.stringify(before)} to ${JSON.stringify(after)}`;
}
