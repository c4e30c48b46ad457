// Name, label and ObjectMeta validation with the apiserver's messages
// (k8s.io/apimachinery/pkg/util/validation and pkg/api/validation/objectmeta.go).

import { forbiddenField, invalid, required, type FieldError } from "./errors.ts";
import { deepEqual, isObject, objectsIn, str, type Obj } from "./json.ts";
import { byteLength } from "../../validation/go-format.ts";
import {
  isConfigMapKey,
  isDNS1123Subdomain,
  isValidLabelValue,
  maskTrailingDash,
  maxLenError,
  nameIsDNS1035Label as dns1035Name,
  nameIsDNSSubdomain as subdomainName,
  regexError,
  type NameValidator,
} from "../../validation/names.ts";

// Names, label values and config keys are checked by the product's helpers (src/validation/names.ts,
// the same rules and words as the apiserver); only 1.20's own wordings stay here.
export { dns1035Name, isConfigMapKey, isDNS1123Subdomain, subdomainName, type NameValidator };

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const anchored = (fmt: string): RegExp => new RegExp(`^${fmt}$`);
const DNS1123_LABEL = anchored(DNS1123_LABEL_FMT);
const QUALIFIED_NAME = anchored(QUALIFIED_NAME_FMT);

/**
 * isDNS1123Label is 1.20's IsDNS1123Label: unlike src/validation's (current upstream) it does not
 * say "must not contain dots" for a subdomain, so the fake keeps its own.
 */
function isDNS1123Label(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL.test(v)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL_FMT,
        "my-name",
        "123-abc",
      ),
    );
  }
  return errs;
}

/**
 * isQualifiedName checks `[prefix/]name` as label keys, annotation keys and finalizers must be,
 * in 1.20's words ("a qualified name"; current upstream says "a valid label key").
 */
export function isQualifiedName(v: string): string[] {
  const errs: string[] = [];
  const parts = v.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push("prefix part must be non-empty");
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(
        "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        QUALIFIED_NAME_FMT,
        "MyName",
        "my.name",
        "123-abc",
      )} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!QUALIFIED_NAME.test(name)) {
    errs.push(
      `name part ${regexError(
        "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        QUALIFIED_NAME_FMT,
        "MyName",
        "my.name",
        "123-abc",
      )}`,
    );
  }
  return errs;
}

/** labelName is ValidateNameFunc for DNS-1123 labels, with 1.20's label message. */
export const labelName: NameValidator = (n, prefix) => isDNS1123Label(prefix ? maskTrailingDash(n) : n);

/** isValidPathSegmentName: what every name must satisfy to be used in a URL. */
export function isValidPathSegmentName(name: string): string[] {
  if (name === "." || name === "..") return [`may not be '${name}'`];
  for (const bad of ["/", "%"]) if (name.includes(bad)) return [`may not contain '${bad}'`];
  return [];
}

export function validateLabels(labels: unknown, fld: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObject(labels)) return errs;
  for (const [k, v] of Object.entries(labels)) {
    for (const m of isQualifiedName(k)) errs.push(invalid(fld, k, m));
    for (const m of isValidLabelValue(str(v))) errs.push(invalid(fld, v, m));
  }
  return errs;
}

function validateAnnotations(annotations: unknown, fld: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObject(annotations)) return errs;
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(invalid(fld, k, m));
    size += k.length + str(v).length;
  }
  if (size > 256 * 1024) errs.push({ type: "FieldValueTooLong", field: fld, badValue: "", detail: "must have at most 262144 bytes" });
  return errs;
}

function validateOwnerReferences(refs: unknown, fld: string): FieldError[] {
  const errs: FieldError[] = [];
  const controllers: string[] = [];
  for (const ref of objectsIn(refs)) {
    if (!str(ref.apiVersion)) errs.push(invalid(`${fld}.apiVersion`, str(ref.apiVersion), "version must not be empty"));
    if (!str(ref.kind)) errs.push(invalid(`${fld}.kind`, str(ref.kind), "kind must not be empty"));
    if (!str(ref.name)) errs.push(invalid(`${fld}.name`, str(ref.name), "name must not be empty"));
    if (!str(ref.uid)) errs.push(invalid(`${fld}.uid`, str(ref.uid), "uid must not be empty"));
    if (ref.controller === true) controllers.push(`${str(ref.kind)}/${str(ref.name)}`);
  }
  if (controllers.length > 1) {
    errs.push(invalid(fld, refs, `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(" and ")}`));
  }
  return errs;
}

const STANDARD_FINALIZERS = new Set(["kubernetes", "orphan", "foregroundDeletion"]);

function validateFinalizers(finalizers: unknown, fld: string, builtin: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(finalizers)) return errs;
  finalizers.forEach((f, i) => {
    const s = str(f);
    for (const m of isQualifiedName(s)) errs.push(invalid(fld, s, m));
    if (builtin && !s.includes("/") && !STANDARD_FINALIZERS.has(s)) {
      errs.push(invalid(`${fld}[${i}]`, s, "name is neither a standard finalizer name nor is it fully qualified"));
    }
  });
  if (finalizers.includes("orphan") && finalizers.includes("foregroundDeletion")) {
    errs.push(invalid(fld, finalizers, "finalizer orphan and foregroundDeletion cannot be both set"));
  }
  return errs;
}

/** validateObjectMeta is ValidateObjectMeta for a create. */
export function validateObjectMeta(meta: Obj, namespaced: boolean, nameFn: NameValidator, builtin: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const generateName = str(meta.generateName);
  if (generateName) for (const m of nameFn(generateName, true)) errs.push(invalid("metadata.generateName", generateName, m));
  const name = str(meta.name);
  if (!name) errs.push(required("metadata.name", "name or generateName is required"));
  else for (const m of nameFn(name, false)) errs.push(invalid("metadata.name", name, m));
  const ns = str(meta.namespace);
  if (namespaced) {
    if (!ns) errs.push(required("metadata.namespace"));
    else for (const m of isDNS1123Label(ns)) errs.push(invalid("metadata.namespace", ns, m));
  } else if (ns) {
    errs.push(forbiddenField("metadata.namespace", "not allowed on this type"));
  }
  errs.push(...validateMutableMeta(meta, builtin));
  return errs;
}

function validateMutableMeta(meta: Obj, builtin: boolean): FieldError[] {
  return [
    ...validateLabels(meta.labels, "metadata.labels"),
    ...validateAnnotations(meta.annotations, "metadata.annotations"),
    ...validateOwnerReferences(meta.ownerReferences, "metadata.ownerReferences"),
    ...validateFinalizers(meta.finalizers, "metadata.finalizers", builtin),
  ];
}

function immutable(fld: string, now: unknown, old: unknown): FieldError[] {
  return deepEqual(now, old) ? [] : [invalid(fld, now, "field is immutable")];
}

/** validateObjectMetaUpdate is ValidateObjectMetaUpdate (resourceVersion is checked by the store). */
export function validateObjectMetaUpdate(meta: Obj, old: Obj, builtin: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (old.deletionTimestamp) {
    const before = new Set(Array.isArray(old.finalizers) ? old.finalizers : []);
    const added = (Array.isArray(meta.finalizers) ? meta.finalizers : []).filter((f) => !before.has(f)).map(str).sort();
    if (added.length > 0) {
      errs.push(
        forbiddenField(
          "metadata.finalizers",
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(", ")}}`,
        ),
      );
    }
  }
  errs.push(...immutable("metadata.name", meta.name, old.name));
  errs.push(...immutable("metadata.namespace", meta.namespace, old.namespace));
  errs.push(...immutable("metadata.uid", meta.uid, old.uid));
  errs.push(...immutable("metadata.creationTimestamp", meta.creationTimestamp, old.creationTimestamp));
  errs.push(...immutable("metadata.deletionTimestamp", meta.deletionTimestamp, old.deletionTimestamp));
  errs.push(...immutable("metadata.deletionGracePeriodSeconds", meta.deletionGracePeriodSeconds, old.deletionGracePeriodSeconds));
  errs.push(...validateMutableMeta(meta, builtin));
  return errs;
}
