/**
 * Pod create validation: what the apiserver runs on POST /pods (ValidatePodCreate →
 * validatePodMetadataAndSpec → ValidatePodSpec in pkg/apis/core/validation, current upstream),
 * after applying the v1 defaults it applies first. Pure; never throws on malformed input.
 * The parts live in pod-spec.ts, pod-volumes.ts, pod-containers.ts (with pod-probes, pod-resources,
 * pod-security), pod-dns.ts, pod-scheduling.ts and pod-annotations.ts.
 *
 * Not ported (accepted without checks): affinity terms, resourceClaims, ephemeral-container
 * contents, Windows host-process rules, overhead, resizePolicy values, recursiveReadOnly mounts,
 * the legacy tolerations annotation.
 */
import type { Pod } from "../api/k8s.ts";
import { ErrorSet, type FieldError, FieldPath, OMIT, forbidden, invalid, typeInvalid } from "./field-error.ts";
import { type JsonObject, Reader, isObject, jsonType } from "./json.ts";
import { validateObjectMeta } from "./meta.ts";
import { nameIsDNSSubdomain } from "./names.ts";
import { validatePodSpecificAnnotations } from "./pod-annotations.ts";
import type { ContainerOptions } from "./pod-containers.ts";
import { defaultPodSpec } from "./pod-defaults.ts";
import { validatePodSpec } from "./pod-spec.ts";
import { cloneJSON } from "../objects/clone.ts";

export interface PodValidationOptions extends ContainerOptions {
  /**
   * The caller gives the pod up: defaults are applied to its spec in place rather than to a copy
   * (for a pod built only to be validated, such as a StatefulSet's first pod).
   */
  consumePod?: boolean;
  /**
   * Return duplicates too: for a caller that de-duplicates the errors itself, more coarsely (by
   * message, as checkPodsAndClaims's caller does), so this pass would change nothing.
   */
  keepDuplicates?: boolean;
}

/**
 * validatePodCreate returns the errors the apiserver would answer a POST of this pod with
 * (metadata, spec, and the pod-only rules: image whitespace, no ephemeral containers, no projected
 * service-account token without a service account). Defaults are applied to a copy first (to the
 * pod itself with `consumePod`).
 */
export function validatePodCreate(pod: Pod | unknown, opts: PodValidationOptions = {}): FieldError[] {
  if (!isObject(pod)) return [typeInvalid("", jsonType(pod), `body must be of type object: "${jsonType(pod)}"`)];
  const r = new Reader();
  const metaPath = FieldPath.root("metadata");
  const specPath = FieldPath.root("spec");
  const meta = r.obj(pod.metadata, metaPath) ?? {};
  const errs = validateObjectMeta(meta, metaPath, { nameFn: nameIsDNSSubdomain });
  const rawSpec = r.obj(pod.spec, specPath) ?? {};
  const spec: JsonObject = opts.consumePod ? rawSpec : cloneJSON(rawSpec);
  defaultPodSpec(spec, true);
  const annotations = isObject(meta.annotations) ? (Object.fromEntries(Object.entries(meta.annotations).filter(([, v]) => typeof v === "string")) as Record<string, string>) : undefined;
  errs.push(...validatePodSpecificAnnotations(annotations, spec, metaPath.child("annotations")));
  const podName = typeof meta.name === "string" ? meta.name : undefined;
  errs.push(...validatePodSpec(r, spec, podName, specPath, opts));
  if (!spec.serviceAccountName)
    for (const { item: v, index } of r.objList(spec.volumes, specPath.child("volumes"))) {
      const projected = isObject(v.projected) ? v.projected : undefined;
      if (!projected || !Array.isArray(projected.sources)) continue;
      projected.sources.forEach((s: unknown, si: number) => {
        if (isObject(s) && s.serviceAccountToken !== undefined && s.serviceAccountToken !== null)
          errs.push(
            forbidden(
              specPath.child("volumes").index(index).child("projected", "sources").index(si).child("serviceAccountToken"),
              "must not be specified when serviceAccountName is not set",
            ),
          );
      });
    }
  for (const key of ["containers", "initContainers"])
    for (const { item: c, index } of r.objList(spec[key], specPath.child(key)))
      if (typeof c.image === "string" && c.image.trim() !== c.image)
        errs.push(invalid(specPath.child(key).index(index).child("image"), c.image, "must not have leading or trailing whitespace"));
  if (Array.isArray(spec.ephemeralContainers) && spec.ephemeralContainers.length > 0)
    errs.push(forbidden(specPath.child("ephemeralContainers"), "cannot be set on create"));
  if (spec.nodeName && Array.isArray(spec.schedulingGates) && spec.schedulingGates.length > 0)
    errs.push(forbidden(specPath.child("nodeName"), "cannot be set until all schedulingGates have been cleared"));
  const all = [...r.errors, ...errs];
  return opts.keepDuplicates ? all : dedupe(all);
}

/**
 * dedupe drops errors that repeat an earlier one (the apiserver's aggregate does too), and a
 * "Required value" where the same field was reported as being of the wrong type.
 */
export function dedupe(errors: FieldError[]): FieldError[] {
  // The same: type, field, detail and bad value as JSON; string values filed as themselves, so a
  // long one shared by several errors is not serialized for each.
  const json = (v: unknown) => JSON.stringify(v ?? null);
  const seen = new ErrorSet(
    (e) => (typeof e.badValue === "string" ? e.badValue : OMIT),
    (a, b) => a.type === b.type && a.detail === b.detail && (a.badValue === b.badValue || json(a.badValue) === json(b.badValue)),
  );
  const mistyped = new Set(errors.filter((e) => e.type === "FieldValueTypeInvalid").map((e) => e.field));
  return errors.filter((e) => !(e.type === "FieldValueRequired" && mistyped.has(e.field)) && seen.add(e));
}
