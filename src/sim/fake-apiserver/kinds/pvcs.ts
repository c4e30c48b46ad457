// core/v1 persistentvolumeclaims: required access modes and storage request, the
// pvc-protection finalizer added on create, and the 1.20 rule that a claim's spec is immutable
// except a storage request increase on a bound claim.

import { specDiff } from "../diff.ts";
import { forbiddenField, invalid, notSupported, required, type FieldError } from "../errors.ts";
import { clone, deepEqual, fillNull, isObject, objectAt, str, type Obj } from "../json.ts";
import { compareQuantities, parseQuantity } from "../quantity.ts";
import { subdomainName, validateObjectMeta, validateObjectMetaUpdate } from "../validation.ts";
import { conditionTimes, defineResource, META_TIME_FIELDS, type ResourceDef } from "./types.ts";

export const PVC_PROTECTION_FINALIZER = "kubernetes.io/pvc-protection";
const ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce"];

/** defaultClaimSpec applies SetDefaults_PersistentVolumeClaimSpec (also used for claim templates). */
export function defaultClaimSpec(spec: Obj): void {
  spec.volumeMode ??= "Filesystem";
}

function storageOf(spec: Obj): string | undefined {
  const resources = isObject(spec.resources) ? spec.resources : {};
  const requests = isObject(resources.requests) ? resources.requests : {};
  const s = requests.storage;
  return typeof s === "string" ? s : undefined;
}

/** validateClaimSpec is ValidatePersistentVolumeClaimSpec's required parts. */
function validateClaimSpec(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const modes = Array.isArray(spec.accessModes) ? spec.accessModes : [];
  if (modes.length === 0) errs.push(required(`${path}.accessModes`, "at least 1 access mode is required"));
  for (const m of modes) if (!ACCESS_MODES.includes(str(m))) errs.push(notSupported(`${path}.accessModes`, m, ACCESS_MODES));
  const storage = storageOf(spec);
  if (storage === undefined) errs.push(required(`${path}.resources[storage]`));
  else if (parseQuantity(storage).nanos <= 0n) errs.push(invalid(`${path}.resources[storage]`, storage, "must be greater than zero"));
  return errs;
}

function validatePvc(pvc: Obj): FieldError[] {
  return [...validateObjectMeta(objectAt(pvc, "metadata"), true, subdomainName, true), ...validateClaimSpec(objectAt(pvc, "spec"), "spec")];
}

function validatePvcUpdate(pvc: Obj, old: Obj): FieldError[] {
  const errs = validateObjectMetaUpdate(objectAt(pvc, "metadata"), objectAt(old, "metadata"), true);
  errs.push(...validateClaimSpec(objectAt(pvc, "spec"), "spec"));
  const spec = clone(objectAt(pvc, "spec"));
  const oldSpec = clone(objectAt(old, "spec"));
  if (!str(oldSpec.volumeName)) oldSpec.volumeName = spec.volumeName;
  if (oldSpec.volumeName === undefined) delete oldSpec.volumeName;
  const bound = objectAt(pvc, "status").phase === "Bound";
  const oldStorage = storageOf(oldSpec);
  if (bound && isObject(spec.resources) && isObject(spec.resources.requests)) {
    if (oldStorage === undefined) delete spec.resources.requests.storage;
    else spec.resources.requests.storage = oldStorage;
  }
  if (!deepEqual(spec, oldSpec)) {
    errs.push(forbiddenField("spec", `spec is immutable after creation except resources.requests for bound claims\n${specDiff("core.PersistentVolumeClaimSpec", spec, oldSpec)}`));
  }
  const newStorage = storageOf(objectAt(pvc, "spec"));
  if (newStorage !== undefined && oldStorage !== undefined && compareQuantities(newStorage, oldStorage) < 0) {
    errs.push(forbiddenField("spec.resources.requests.storage", "field can not be less than previous value"));
  }
  return errs;
}

export const persistentVolumeClaims: ResourceDef = defineResource({
  group: "",
  version: "v1",
  resource: "persistentvolumeclaims",
  kind: "PersistentVolumeClaim",
  namespaced: true,
  status: true,
  returnDeletedObject: true,
  nameValidation: subdomainName,
  timeFields: [...META_TIME_FIELDS, ...conditionTimes(["status"], "lastProbeTime", "lastTransitionTime")],
  quantityMaps: [["spec", "resources", "requests"], ["spec", "resources", "limits"], ["status", "capacity"]],
  defaults(pvc) {
    defaultClaimSpec(objectAt(pvc, "spec"));
    const status = objectAt(pvc, "status");
    status.phase ??= "Pending";
    fillNull(status.conditions, "lastProbeTime", "lastTransitionTime");
  },
  admitCreate(pvc) {
    const meta = objectAt(pvc, "metadata");
    const finalizers = Array.isArray(meta.finalizers) ? (meta.finalizers as unknown[]) : [];
    if (!finalizers.includes(PVC_PROTECTION_FINALIZER)) finalizers.push(PVC_PROTECTION_FINALIZER);
    meta.finalizers = finalizers;
  },
  prepareForCreate(pvc) {
    pvc.status = { phase: "Pending" };
  },
  validate: validatePvc,
  validateUpdate: validatePvcUpdate,
  validateStatusUpdate: (pvc, old) => validateObjectMetaUpdate(objectAt(pvc, "metadata"), objectAt(old, "metadata"), true),
});
