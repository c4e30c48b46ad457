// core/v1 persistentvolumeclaims: required access modes and storage request, the
// pvc-protection finalizer added on create, and the 1.20 rule that a claim's spec is immutable
// except a storage request increase on a bound claim, and the PersistentVolumeClaimResize
// admission plugin (on by default in 1.20): a larger request needs a bound claim whose
// StorageClass allows volume expansion.

import { specDiff } from "../diff.ts";
import { forbiddenField, invalid, notSupported, required, type FieldError } from "../errors.ts";
import { clone, deepEqual, fillNull, isObject, objectAt, str, type Obj } from "../json.ts";
import { compareQuantities, parseQuantity } from "../quantity.ts";
import { subdomainName, validateObjectMeta, validateObjectMetaUpdate } from "../validation.ts";
import { forbidden } from "../errors.ts";
import { conditionTimes, defineResource, META_TIME_FIELDS, type ClusterView, type ResourceDef } from "./types.ts";

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

/**
 * admitResize is the PersistentVolumeClaimResize admission plugin (plugin/pkg/admission/storage/
 * persistentvolume/resize): a request that grows needs a bound claim, and the claim's StorageClass
 * (unchanged, not empty) must exist with allowVolumeExpansion true. Its messages, as 403s.
 */
function admitResize(pvc: Obj, old: Obj, cluster: ClusterView): void {
  const [was, is] = [storageOf(objectAt(old, "spec")), storageOf(objectAt(pvc, "spec"))];
  if (was === undefined || is === undefined || compareQuantities(is, was) <= 0) return;
  const gr = { group: "", resource: "persistentvolumeclaims" };
  const name = str(objectAt(old, "metadata").name);
  if (objectAt(old, "status").phase !== "Bound") throw forbidden(gr, name, "Only bound persistent volume claims can be expanded");
  const cls = str(objectAt(pvc, "spec").storageClassName);
  const sc = cls && cls === str(objectAt(old, "spec").storageClassName) ? cluster.find("storage.k8s.io", "storageclasses", "", cls) : undefined;
  if (!sc || sc.allowVolumeExpansion !== true)
    throw forbidden(gr, name, "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize");
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
  admitUpdate: admitResize,
  validateStatusUpdate: (pvc, old) => validateObjectMetaUpdate(objectAt(pvc, "metadata"), objectAt(old, "metadata"), true),
});
