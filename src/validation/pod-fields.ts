/**
 * Small pod-validation helpers shared by volumes and containers (paths, key-to-path items,
 * downward API selectors, quantities), from pkg/apis/core/validation/validation.go.
 */
import type { FieldPath} from "./field-error.ts";
import { type FieldError, invalid, notSupported, required } from "./field-error.ts";
import type { Reader } from "./json.ts";
import { type JsonObject } from "./json.ts";
import { isConfigMapKey, isQualifiedName, nameIsDNSSubdomain } from "./names.ts";
import { type Quantity, parseQuantity, quantityToString } from "./quantity.ts";

const FILE_MODE_ERROR = "must be a number between 0 and 0777 (octal), both inclusive";
export const IS_NEGATIVE_ERROR = "must be greater than or equal to 0";

/** nonNegative is ValidateNonnegativeField. */
export function nonNegative(v: number | undefined, path: FieldPath): FieldError[] {
  return v !== undefined && v < 0 ? [invalid(path, v, IS_NEGATIVE_ERROR)] : [];
}

/** validatePathNoBacksteps: no `..` element. */
export function validatePathNoBacksteps(p: string, path: FieldPath): FieldError[] {
  return p.split("/").includes("..") ? [invalid(path, p, "must not contain '..'")] : [];
}

/** validateLocalDescendingPath: relative, no `..` element. */
export function validateLocalDescendingPath(p: string, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (p.startsWith("/")) errs.push(invalid(path, p, "must be a relative path"));
  return [...errs, ...validatePathNoBacksteps(p, path)];
}

/** validateLocalNonReservedPath: a local descending path that does not start with `..`. */
export function validateLocalNonReservedPath(p: string, path: FieldPath): FieldError[] {
  const errs = validateLocalDescendingPath(p, path);
  if (p.startsWith("..") && !p.startsWith("../")) errs.push(invalid(path, p, "must not start with '..'"));
  return errs;
}

export function validateFileMode(r: Reader, v: unknown, path: FieldPath): FieldError[] {
  const mode = r.int32(v, path);
  return mode !== undefined && (mode > 0o777 || mode < 0) ? [invalid(path, mode, FILE_MODE_ERROR)] : [];
}

/** validateKeyToPath checks a secret/configMap item. */
export function validateKeyToPath(r: Reader, kp: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const key = r.str(kp.key, path.child("key")) ?? "";
  const p = r.str(kp.path, path.child("path")) ?? "";
  if (!key) errs.push(required(path.child("key")));
  if (!p) errs.push(required(path.child("path")));
  errs.push(...validateLocalNonReservedPath(p, path.child("path")));
  errs.push(...validateFileMode(r, kp.mode, path.child("mode")));
  return errs;
}

export const ENV_FIELD_PATHS = [
  "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName",
  "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs",
];
export const VOLUME_FIELD_PATHS = ["metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"];
const CONVERTIBLE_FIELD_PATHS = new Set([
  "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
  "spec.restartPolicy", "spec.serviceAccountName", "spec.schedulerName", "status.phase", "status.hostIP", "status.hostIPs",
  "status.podIP", "status.podIPs",
]);

function splitMaybeSubscripted(fp: string): { path: string; subscript: string; ok: boolean } {
  if (!fp.endsWith("']")) return { path: fp, subscript: "", ok: false };
  const s = fp.slice(0, -2);
  const i = s.indexOf("['");
  if (i <= 0) return { path: fp, subscript: "", ok: false };
  return { path: s.slice(0, i), subscript: s.slice(i + 2), ok: true };
}

/** validateObjectFieldSelector checks a downward API fieldRef against the allowed paths. */
export function validateObjectFieldSelector(r: Reader, fs: JsonObject, expressions: string[], path: FieldPath): FieldError[] {
  const apiVersion = r.str(fs.apiVersion, path.child("apiVersion")) ?? "";
  const fieldPath = r.str(fs.fieldPath, path.child("fieldPath")) ?? "";
  if (!apiVersion) return [required(path.child("apiVersion"))];
  if (!fieldPath) return [required(path.child("fieldPath"))];
  const split = splitMaybeSubscripted(fieldPath);
  let convErr: string | undefined;
  if (apiVersion !== "v1") convErr = `unsupported pod version: ${apiVersion}`;
  else if (split.ok && split.path !== "metadata.labels" && split.path !== "metadata.annotations") convErr = `field label does not support subscript: ${split.path}`;
  else if (!split.ok && !CONVERTIBLE_FIELD_PATHS.has(fieldPath)) convErr = `field label not supported: ${fieldPath}`;
  if (convErr) return [invalid(path.child("fieldPath"), fieldPath, `error converting fieldPath: ${convErr}`)];
  if (split.ok) {
    const key = split.path === "metadata.annotations" ? split.subscript.toLowerCase() : split.subscript;
    return isQualifiedName(key).map((m) => invalid(path, key, m));
  }
  if (!expressions.includes(fieldPath)) return [notSupported(path.child("fieldPath"), fieldPath, expressions)];
  return [];
}

const RESOURCE_FIELD_PATHS = [
  "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory",
];
const MEMORY_DIVISORS = ["1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"];

/** validateResourceFieldSelector checks a downward API resourceFieldRef. */
export function validateResourceFieldSelector(r: Reader, fs: JsonObject, path: FieldPath, volume: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const containerName = r.str(fs.containerName, path.child("containerName")) ?? "";
  const resource = r.str(fs.resource, path.child("resource")) ?? "";
  if (volume && !containerName) errs.push(required(path.child("containerName")));
  else if (!resource) errs.push(required(path.child("resource")));
  else if (!RESOURCE_FIELD_PATHS.includes(resource) && !/^(requests|limits)\.hugepages-/.test(resource))
    errs.push(notSupported(path.child("resource"), resource, RESOURCE_FIELD_PATHS));
  const divisor = readQuantity(r, fs.divisor, path.child("divisor"), errs);
  if (divisor && divisor.nanos !== 0n) {
    const d = quantityToString(divisor);
    if (/cpu$/.test(resource) && !["1m", "1"].includes(d))
      errs.push(invalid(path.child("divisor"), resource, "only divisor's values 1m and 1 are supported with the cpu resource"));
    else if (/memory$/.test(resource) && !MEMORY_DIVISORS.includes(d))
      errs.push(invalid(path.child("divisor"), resource, `only divisor's values ${MEMORY_DIVISORS.join(", ")} are supported with the memory resource`));
    else if (/ephemeral-storage$/.test(resource) && !MEMORY_DIVISORS.includes(d))
      errs.push(
        invalid(path.child("divisor"), resource, `only divisor's values ${MEMORY_DIVISORS.join(", ")} are supported with the local ephemeral storage resource`),
      );
  }
  return errs;
}

/**
 * readQuantity reads a quantity (string or number). An unparsable one is reported as Invalid with
 * upstream's parse error (the apiserver itself would refuse to decode the object).
 */
export function readQuantity(r: Reader, v: unknown, path: FieldPath, errs: FieldError[]): Quantity | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string" && typeof v !== "number") {
    r.str(v, path);
    return undefined;
  }
  const parsed = parseQuantity(v);
  if (!parsed.ok) {
    errs.push(invalid(path, v, parsed.error));
    return undefined;
  }
  return parsed.quantity;
}

/** validateConfigMapOrSecretKeySelector checks a configMapKeyRef/secretKeyRef. */
export function validateKeySelector(r: Reader, s: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = r.str(s.name, path.child("name")) ?? "";
  for (const msg of nameIsDNSSubdomain(name, false)) errs.push(invalid(path.child("name"), name, msg));
  const key = r.str(s.key, path.child("key")) ?? "";
  if (!key) errs.push(required(path.child("key")));
  else for (const msg of isConfigMapKey(key)) errs.push(invalid(path.child("key"), key, msg));
  return errs;
}
