/**
 * PersistentVolumeClaim create validation: ValidatePersistentVolumeClaim and
 * ValidatePersistentVolumeClaimSpec of pkg/apis/core/validation (current upstream: ReadWriteOncePod
 * is an access mode and may not be mixed with others; dataSource kinds need an apiGroup unless they
 * are PersistentVolumeClaims). Defaults (volumeMode Filesystem) are applied first, as the apiserver does.
 */
import type { PersistentVolumeClaim } from "../api/k8s.ts";
import { type FieldError, FieldPath, forbidden, invalid, notSupported, required, typeInvalid } from "./field-error.ts";
import { type JsonObject, Reader, isObject, jsonType } from "./json.ts";
import { validateLabelSelector } from "./labels.ts";
import { validateObjectMeta } from "./meta.ts";
import { isDNS1123Subdomain, nameIsDNSSubdomain } from "./names.ts";
import { defaultPvcSpec } from "./pod-defaults.ts";
import { readQuantity } from "./pod-fields.ts";
import { quantityToString } from "./quantity.ts";
import { cloneJSON } from "../objects/clone.ts";

const ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"];
const VOLUME_MODES = ["Block", "Filesystem"];

function validateDataSource(r: Reader, ds: JsonObject, path: FieldPath, withNamespace: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const name = r.str(ds.name, path.child("name")) ?? "";
  const kind = r.str(ds.kind, path.child("kind")) ?? "";
  const apiGroup = r.str(ds.apiGroup, path.child("apiGroup")) ?? "";
  if (!name) errs.push(required(path.child("name")));
  if (!kind) errs.push(required(path.child("kind")));
  if (!apiGroup && kind !== "PersistentVolumeClaim")
    errs.push(invalid(path, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  if (apiGroup) for (const msg of isDNS1123Subdomain(apiGroup)) errs.push(invalid(path.child("apiGroup"), apiGroup, msg));
  if (withNamespace) {
    const ns = r.str(ds.namespace, path.child("namespace")) ?? "";
    if (ns) for (const msg of nameIsDNSSubdomain(ns, false)) errs.push(invalid(path.child("namespace"), ns, msg));
  }
  return errs;
}

/** validatePvcSpec is ValidatePersistentVolumeClaimSpec over an untyped, defaulted spec. */
export function validatePvcSpec(r: Reader, spec: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const modes = r.strList(spec.accessModes, path.child("accessModes")) ?? [];
  if (modes.length === 0) errs.push(required(path.child("accessModes"), "at least 1 access mode is required"));
  if (spec.selector !== undefined && spec.selector !== null) errs.push(...validateLabelSelector(spec.selector, path.child("selector")));
  let rwop = false;
  let other = false;
  for (const mode of modes) {
    if (!ACCESS_MODES.includes(mode)) errs.push(notSupported(path.child("accessModes"), mode, ACCESS_MODES));
    else if (mode === "ReadWriteOncePod") rwop = true;
    else other = true;
  }
  if (rwop && other) errs.push(forbidden(path.child("accessModes"), "may not use ReadWriteOncePod with other access modes"));

  const storagePath = path.child("resources").key("storage");
  const resources = r.obj(spec.resources, path.child("resources")) ?? {};
  const requests = r.obj(resources.requests, path.child("resources", "requests")) ?? {};
  if (!Object.prototype.hasOwnProperty.call(requests, "storage") || requests.storage === null) errs.push(required(storagePath));
  else {
    const q = readQuantity(r, requests.storage, path.child("resources", "requests").key("storage"), errs);
    if (q && q.nanos <= 0n) errs.push(invalid(storagePath, quantityToString(q), "must be greater than zero"));
  }

  const scn = r.str(spec.storageClassName, path.child("storageClassName")) ?? "";
  if (scn) for (const msg of nameIsDNSSubdomain(scn, false)) errs.push(invalid(path.child("storageClassName"), scn, msg));
  const volumeMode = r.str(spec.volumeMode, path.child("volumeMode"));
  if (volumeMode !== undefined && !VOLUME_MODES.includes(volumeMode)) errs.push(notSupported(path.child("volumeMode"), volumeMode, VOLUME_MODES));
  const ds = r.obj(spec.dataSource, path.child("dataSource"));
  if (ds) errs.push(...validateDataSource(r, ds, path.child("dataSource"), false));
  const dsRef = r.obj(spec.dataSourceRef, path.child("dataSourceRef"));
  if (dsRef) errs.push(...validateDataSource(r, dsRef, path.child("dataSourceRef"), true));
  if (ds && dsRef && !dsRef.namespace) {
    const same = ds.name === dsRef.name && ds.kind === dsRef.kind && (ds.apiGroup ?? "") === (dsRef.apiGroup ?? "");
    // Upstream passes a *field.Path as the bad value, which encoding/json prints as {}.
    if (!same) errs.push(invalid(path, {}, "must match dataSourceRef"));
  }
  return errs;
}

const pick = (ref: JsonObject, keys: string[]): JsonObject =>
  Object.fromEntries(keys.filter((k) => ref[k] !== undefined && ref[k] !== null).map((k) => [k, ref[k]]));

/**
 * normalizeDataSources is NormalizeDataSources (AnyVolumeDataSource, on by default since 1.24), run
 * on create before validation: a dataSource alone is copied to dataSourceRef, and a dataSourceRef
 * without namespace alone to dataSource, so both are validated. (1.20 has no dataSourceRef.)
 */
function normalizeDataSources(spec: JsonObject): void {
  const ds = isObject(spec.dataSource) ? spec.dataSource : undefined;
  const ref = isObject(spec.dataSourceRef) ? spec.dataSourceRef : undefined;
  if (ds && (spec.dataSourceRef === undefined || spec.dataSourceRef === null)) spec.dataSourceRef = pick(ds, ["apiGroup", "kind", "name"]);
  else if (ref && (spec.dataSource === undefined || spec.dataSource === null) && !ref.namespace) spec.dataSource = pick(ref, ["apiGroup", "kind", "name"]);
}

/**
 * validatePvcCreate is ValidatePersistentVolumeClaim for a new claim: metadata (name a DNS
 * subdomain, labels, annotations) and the spec. Never throws; wrong types are reported.
 */
export function validatePvcCreate(pvc: PersistentVolumeClaim | unknown): FieldError[] {
  if (!isObject(pvc)) return [typeInvalid("", jsonType(pvc), `body must be of type object: "${jsonType(pvc)}"`)];
  return withSpecErrors(pvc.spec, validateObjectMeta(pvc.metadata, FieldPath.root("metadata"), { nameFn: nameIsDNSSubdomain }));
}

/**
 * validatePvcNameAndSpec returns the errors validatePvcCreate finds at metadata.name and in the
 * spec of a claim named `name` (a string: the name a StatefulSet gives its claim), in the same
 * order, without checking the rest of the metadata (a set's claim templates are checked where
 * their labels and annotations are written; the set's own labels on the claim are the selector's).
 */
export function validatePvcNameAndSpec(name: string, spec: unknown): FieldError[] {
  const path = FieldPath.root("metadata", "name");
  const nameErrors = name ? nameIsDNSSubdomain(name, false).map((msg) => invalid(path, name, msg)) : [required(path, "name or generateName is required")];
  return withSpecErrors(spec, nameErrors);
}

/** withSpecErrors returns the spec's type errors, then `metaErrors`, then the rest of the spec's errors (defaults applied to a copy first). */
function withSpecErrors(rawSpec: unknown, metaErrors: FieldError[]): FieldError[] {
  const r = new Reader();
  const spec = cloneJSON(r.obj(rawSpec, FieldPath.root("spec")) ?? {});
  defaultPvcSpec(spec);
  normalizeDataSources(spec);
  const specErrors = validatePvcSpec(r, spec, FieldPath.root("spec"));
  return [...r.errors, ...metaErrors, ...specErrors];
}
