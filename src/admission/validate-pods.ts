import type { Pod } from "../api/k8s.ts";
import { INPLACE_STATE_ANNOTATION, POD_INDEX_LABEL, POD_NAME_LABEL, REVISION_LABEL, SET_NAME_LABEL } from "../core/constants.ts";
import { forbidden, type FieldError } from "../validation/field-error.ts";
import { isObject } from "../validation/json.ts";
import { denyInvalid } from "./invalid.ts";
import { ordinalSetOf } from "./membership.ts";
import { diff } from "./patch.ts";
import { allow, objectName, type AdmissionRequest, type AdmissionResult } from "./types.ts";

/** Labels that tie a pod to its set, ordinal and revision: only the reconciler changes them. */
export const IDENTITY_LABELS = [POD_NAME_LABEL, POD_INDEX_LABEL, REVISION_LABEL, SET_NAME_LABEL] as const;
/** Annotations only the reconciler writes. */
export const RECONCILER_ANNOTATIONS = [INPLACE_STATE_ANNOTATION] as const;

export interface ValidatePodOptions {
  /** `userInfo.username` of the reconciler: the one caller allowed to change identity labels. */
  reconcilerUsername: string;
}

/**
 * changedSpecPointers returns the JSON pointers (`/spec/containers/0/env`) of every change from
 * `oldSpec` to `newSpec` except container and init container images, sorted. Empty when the update
 * changes images only (or nothing).
 */
export function changedSpecPointers(oldSpec: unknown, newSpec: unknown): string[] {
  const before = isObject(oldSpec) ? oldSpec : {};
  const after = isObject(newSpec) ? structuredClone(newSpec) : {};
  for (const field of ["containers", "initContainers"]) {
    const olds = before[field];
    const news = after[field];
    if (!Array.isArray(olds) || !Array.isArray(news)) continue;
    for (let i = 0; i < Math.min(olds.length, news.length); i++) {
      const o: unknown = olds[i];
      const n: unknown = news[i];
      if (!isObject(o) || !isObject(n)) continue;
      if ("image" in o) n.image = o.image;
      else delete n.image;
    }
  }
  const pointers = new Set(diff(before, after).map((op) => `/spec${op.path}`));
  return [...pointers].sort();
}

/**
 * validatePodUpdate answers an UPDATE of a pod of an Ordinal set. Status updates always pass (and
 * hint that the set deserves a reconcile). Otherwise it refuses, listing every problem at once:
 * any `spec` change other than container images (the template is where that belongs), and any
 * change of the identity labels or the in-place state annotation by anyone but the reconciler.
 */
export function validatePodUpdate(req: AdmissionRequest, opts: ValidatePodOptions): AdmissionResult {
  if (req.operation !== "UPDATE") return { response: allow(req) };
  const oldPod = (req.oldObject ?? {}) as Pod;
  const pod = (req.object ?? {}) as Pod;
  const setName = ordinalSetOf(oldPod) ?? ordinalSetOf(pod);
  if (!setName) return { response: allow(req) };
  const namespace = pod.metadata?.namespace || req.namespace || "default";
  if (req.subResource === "status") {
    return { response: allow(req), reconcileHint: req.dryRun ? undefined : { namespace, setName } };
  }
  if (req.subResource) return { response: allow(req) };

  const errors: FieldError[] = [];
  const pointers = changedSpecPointers(oldPod.spec, pod.spec);
  if (pointers.length > 0) {
    errors.push(
      forbidden(
        "spec",
        `a pod of Ordinal StatefulSet "${setName}" may change only spec.containers[*].image and spec.initContainers[*].image; ` +
          `this update changes ${pointers.join(", ")} (change the StatefulSet's template instead)`,
      ),
    );
  }
  if (req.userInfo.username !== opts.reconcilerUsername) {
    const who = `only the reconciler ("${opts.reconcilerUsername}") may change it on a pod of Ordinal StatefulSet "${setName}"`;
    for (const key of IDENTITY_LABELS) {
      const change = describeChange(oldPod.metadata?.labels?.[key], pod.metadata?.labels?.[key]);
      if (change) errors.push(forbidden(`metadata.labels[${key}]`, `${change}: ${who}`));
    }
    for (const key of RECONCILER_ANNOTATIONS) {
      const change = describeChange(oldPod.metadata?.annotations?.[key], pod.metadata?.annotations?.[key]);
      if (change) errors.push(forbidden(`metadata.annotations[${key}]`, `${change}: ${who}`));
    }
  }
  if (errors.length === 0) return { response: allow(req) };
  return { response: denyInvalid(req, { group: "", kind: "Pod" }, objectName(req, pod), errors) };
}

/** describeChange says how a label or annotation value changed, or undefined when it did not. */
function describeChange(before: string | undefined, after: string | undefined): string | undefined {
  if (before === after) return undefined;
  if (before === undefined) return `added ${JSON.stringify(after)}`;
  if (after === undefined) return `removed ${JSON.stringify(before)}`;
  return `changed ${JSON.stringify(before)} to ${JSON.stringify(after)}`;
}
