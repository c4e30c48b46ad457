import { GROUP } from "../api/statefulset.ts";
import { formatFieldError } from "../validation/index.ts";
import { runSteps, type Steps } from "../validation/steps.ts";
import { validateStatefulSetSteps } from "../validation/statefulset.ts";
import { templateUnknownFields } from "../validation/unknown-fields.ts";
import { denyInvalid, denyUnknownFields, MAX_REPORTED_ERRORS } from "./invalid.ts";
import { oversized } from "./limits.ts";
import { diff } from "./patch.ts";
import { allow, objectName, type AdmissionRequest, type AdmissionResult } from "./types.ts";

export interface ValidateStatefulSetOptions {
  /** Also check apps/v1 StatefulSets (the apiserver checks them already; this adds Ordinal's rules and warnings). */
  validateAppsV1StatefulSets: boolean;
}

/**
 * validateStatefulSetRequest answers a CREATE or UPDATE of an apps.ordinal.dev StatefulSet (and of
 * an apps/v1 one when the option is on): fields the pod or claim templates' types do not have as
 * the apiserver's strict decoding error (400), else every error at once as a 422 Invalid,
 * warnings either way.
 * An UPDATE that leaves the spec as it was (labels, finalizers, deletion) is not refused for the
 * spec's sake: what was stored before stays changeable, and its errors come back as warnings.
 */
export function validateStatefulSetRequest(req: AdmissionRequest, opts: ValidateStatefulSetOptions): AdmissionResult {
  return runSteps(statefulSetRequestSteps(req, opts));
}

/**
 * statefulSetRequestSteps is validateStatefulSetRequest in steps (src/validation/steps.ts): the
 * server pauses between the parts of a large set's validation, so no request holds it for long.
 */
export function* statefulSetRequestSteps(req: AdmissionRequest, opts: ValidateStatefulSetOptions): Steps<AdmissionResult> {
  if (req.operation !== "CREATE" && req.operation !== "UPDATE") return { response: allow(req) };
  if (req.subResource) return { response: allow(req) };
  const group = req.kind.group === GROUP ? GROUP : "apps";
  if (group === "apps" && !opts.validateAppsV1StatefulSets) return { response: allow(req) };

  const obj = req.object as { metadata?: { name?: string }; spec?: unknown };
  const tooBig = oversized(obj, "StatefulSet");
  if (tooBig) return { response: denyInvalid(req, { group, kind: "StatefulSet" }, objectName(req, obj), [tooBig]) };
  const old = req.operation === "UPDATE" ? (req.oldObject as { spec?: unknown }) : undefined;
  // The CRD keeps the templates as written: refuse typos there as strict decoding refuses them in apps/v1.
  const unknown = templateUnknownFields(obj, old);
  if (unknown.length > 0) return { response: denyUnknownFields(req, unknown) };
  const { errors, warnings } = yield* validateStatefulSetSteps(obj, old, { group, maxErrors: MAX_REPORTED_ERRORS });
  if (errors.length === 0) return { response: allow(req, warnings) };
  if (old && specUnchanged(old.spec, obj.spec)) {
    return { response: allow(req, [...errors.map((e) => `existing spec is invalid: ${formatFieldError(e)}`), ...warnings]) };
  }
  return { response: denyInvalid(req, { group, kind: "StatefulSet" }, objectName(req, obj), errors, warnings) };
}

const specUnchanged = (a: unknown, b: unknown): boolean => diff({ spec: a ?? null }, { spec: b ?? null }).length === 0;
