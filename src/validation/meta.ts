/**
 * ObjectMeta checks of apimachinery/pkg/api/validation/objectmeta.go (ValidateObjectMeta,
 * ValidateObjectMetaUpdate, ValidateAnnotations) plus the core finalizer-name rule.
 *
 * Deliberate differences: a missing namespace is not an error (an AdmissionReview's object carries
 * the request namespace, and manifests validated offline often have none); a missing name is
 * accepted when generateName is set (validating admission sees the generated name; offline there is
 * none yet). metadata.resourceVersion on update is not checked: the apiserver refuses an update of a
 * custom resource without it before admission runs; fields rest.BeforeUpdate restores from the stored
 * object (generation, timestamps, an empty uid, an empty name or namespace) are not compared either.
 */
import type { FieldPath} from "./field-error.ts";
import { type FieldError, forbidden, invalid, required, tooLong } from "./field-error.ts";
import { byteLength } from "./go-format.ts";
import { Reader, isObject } from "./json.ts";
import { validateLabels } from "./labels.ts";
import { type NameValidator, isQualifiedName, nameIsDNSLabel } from "./names.ts";

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;
const STANDARD_FINALIZERS = new Set(["kubernetes", "orphan", "foregroundDeletion"]);

/** validateAnnotations: keys are qualified names (case-insensitive), at most 256 KiB in total. */
export function validateAnnotations(annotations: Record<string, string> | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalid(path, k, msg));
    total += byteLength(k) + byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

function validateOwnerReferences(refs: unknown, path: FieldPath, r: Reader): FieldError[] {
  const errs: FieldError[] = [];
  let controllerName = "";
  for (const { item } of r.objList(refs, path)) {
    const apiVersion = r.str(item.apiVersion, path.child("apiVersion")) ?? "";
    const kind = r.str(item.kind, path.child("kind")) ?? "";
    const name = r.str(item.name, path.child("name")) ?? "";
    const uid = r.str(item.uid, path.child("uid")) ?? "";
    const version = apiVersion.includes("/") ? apiVersion.slice(apiVersion.indexOf("/") + 1) : apiVersion;
    if (!version) errs.push(invalid(path.child("apiVersion"), apiVersion, "version must not be empty"));
    if (!kind) errs.push(invalid(path.child("kind"), kind, "kind must not be empty"));
    if (!name) errs.push(invalid(path.child("name"), name, "name must not be empty"));
    if (!uid) errs.push(invalid(path.child("uid"), uid, "uid must not be empty"));
    if (apiVersion === "v1" && kind === "Event") errs.push(invalid(path, item, "/v1, Kind=Event is disallowed from being an owner"));
    if (item.controller === true) {
      if (controllerName !== "") {
        errs.push(
          invalid(path, refs, `Only one reference can have Controller set to true. Found "true" in references for ${controllerName} and ${name}`),
        );
      } else controllerName = name;
    }
  }
  return errs;
}

function validateFinalizers(finalizers: string[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of finalizers) for (const msg of isQualifiedName(f)) errs.push(invalid(path, f, msg));
  if (finalizers.includes("orphan") && finalizers.includes("foregroundDeletion"))
    errs.push(invalid(path, finalizers, "finalizer orphan and foregroundDeletion cannot be both set"));
  finalizers.forEach((f, i) => {
    if (!f.includes("/") && !STANDARD_FINALIZERS.has(f))
      errs.push(invalid(path.index(i), f, "name is neither a standard finalizer name nor is it fully qualified"));
  });
  return errs;
}

export interface ObjectMetaOptions {
  /** How the name is checked; default DNS label. */
  nameFn?: NameValidator;
}

/** validateObjectMeta is ValidateObjectMeta for a create (see the file comment for differences). */
export function validateObjectMeta(meta: unknown, path: FieldPath, opts: ObjectMetaOptions = {}): FieldError[] {
  const nameFn = opts.nameFn ?? nameIsDNSLabel;
  const r = new Reader();
  const m = r.obj(meta, path) ?? {};
  const errs: FieldError[] = [];
  const generateName = r.str(m.generateName, path.child("generateName")) ?? "";
  if (generateName) for (const msg of nameFn(generateName, true)) errs.push(invalid(path.child("generateName"), generateName, msg));
  const name = r.str(m.name, path.child("name")) ?? "";
  if (!name) {
    if (!generateName) errs.push(required(path.child("name"), "name or generateName is required"));
  } else for (const msg of nameFn(name, false)) errs.push(invalid(path.child("name"), name, msg));
  const namespace = r.str(m.namespace, path.child("namespace")) ?? "";
  if (namespace) for (const msg of nameIsDNSLabel(namespace, false)) errs.push(invalid(path.child("namespace"), namespace, msg));
  const generation = r.int64(m.generation, path.child("generation"));
  if (generation !== undefined && generation < 0) errs.push(invalid(path.child("generation"), generation, "must be greater than or equal to 0"));
  errs.push(...validateLabels(r.strMap(m.labels, path.child("labels")), path.child("labels")));
  errs.push(...validateAnnotations(r.strMap(m.annotations, path.child("annotations")), path.child("annotations")));
  errs.push(...validateOwnerReferences(m.ownerReferences, path.child("ownerReferences"), r));
  errs.push(...validateFinalizers(r.strList(m.finalizers, path.child("finalizers")) ?? [], path.child("finalizers")));
  return [...r.errors, ...errs];
}

/** goStringSlice prints a []string the way %#v does: `[]string{"a", "b"}`. */
const goStringSlice = (xs: string[]): string => `[]string{${xs.map((x) => JSON.stringify(x)).join(", ")}}`;

/** validateObjectMetaUpdate is ValidateObjectMetaUpdate (less the resourceVersion rule, see above). */
export function validateObjectMetaUpdate(meta: unknown, oldMeta: unknown, path: FieldPath): FieldError[] {
  const r = new Reader();
  const m = r.obj(meta, path) ?? {};
  const old = isObject(oldMeta) ? oldMeta : {};
  const errs: FieldError[] = [];
  const finalizers = r.strList(m.finalizers, path.child("finalizers")) ?? [];
  if (old.deletionTimestamp) {
    const oldFinalizers = Array.isArray(old.finalizers) ? old.finalizers : [];
    const extra = [...new Set(finalizers.filter((f) => !oldFinalizers.includes(f)))].sort();
    if (extra.length)
      errs.push(
        forbidden(path.child("finalizers"), `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(extra)}`),
      );
  }
  // rest.BeforeUpdate copies generation, creationTimestamp, deletion fields and an empty uid from the
  // stored object before validation, so only name, namespace and a different uid can differ here.
  for (const f of ["name", "namespace", "uid"]) {
    const nv = typeof m[f] === "string" ? (m[f] as string) : "";
    const ov = typeof old[f] === "string" ? (old[f] as string) : "";
    if (nv !== "" && nv !== ov) errs.push(invalid(path.child(f), nv, "field is immutable"));
  }
  errs.push(...validateLabels(r.strMap(m.labels, path.child("labels")), path.child("labels")));
  errs.push(...validateAnnotations(r.strMap(m.annotations, path.child("annotations")), path.child("annotations")));
  errs.push(...validateOwnerReferences(m.ownerReferences, path.child("ownerReferences"), r));
  finalizers.forEach((f, i) => {
    if (!f.includes("/") && !STANDARD_FINALIZERS.has(f))
      errs.push(invalid(path.child("finalizers").index(i), f, "name is neither a standard finalizer name nor is it fully qualified"));
  });
  return [...r.errors, ...errs];
}
