/**
 * Container resources: ValidateResourceRequirements and the resource-name rules of
 * pkg/apis/core/validation. A request above its limit is reported at `…resources.requests` (no
 * key) with both quantities in canonical form: `must be less than or equal to cpu limit of 1`.
 */
import { type FieldError, type FieldPath, forbidden, invalid, required } from "./field-error.ts";
import type { JsonObject, Reader } from "./json.ts";
import { isQualifiedName } from "./names.ts";
import { IS_NEGATIVE_ERROR, readQuantity } from "./pod-fields.ts";
import { type Quantity, compareQuantities, parseQuantity, quantityMilliValue, quantityToString } from "./quantity.ts";

const STANDARD_RESOURCES = new Set([
  "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage", "limits.cpu",
  "limits.memory", "limits.ephemeral-storage", "pods", "services", "replicationcontrollers", "resourcequotas", "secrets",
  "persistentvolumeclaims", "configmaps", "services.nodeports", "services.loadbalancers", "storage", "requests.storage",
]);

const isHugePages = (n: string) => n.startsWith("hugepages-");

const isNative = (n: string) => !n.includes("/") || n.includes("kubernetes.io/");

const isExtended = (n: string) => !isNative(n) && !n.startsWith("requests.") && isQualifiedName(`requests.${n}`).length === 0;

const overcommitAllowed = (n: string) => isNative(n) && !isHugePages(n);

function validateContainerResourceName(name: string, path: FieldPath): FieldError[] {
  const errs = isQualifiedName(name).map((m) => invalid(path, name, m));
  if (errs.length === 0 && !name.includes("/") && !STANDARD_RESOURCES.has(name) && !isHugePages(name) && !name.startsWith("requests.hugepages-"))
    errs.push(invalid(path, name, "must be a standard resource type or fully qualified"));
  if (!name.includes("/")) {
    if (!["cpu", "memory", "ephemeral-storage"].includes(name) && !isHugePages(name)) errs.push(invalid(path, name, "must be a standard resource for containers"));
  } else if (!isNative(name) && !isExtended(name)) errs.push(invalid(path, name, "doesn't follow extended resource name standard"));
  return errs;
}

/** validateQuantityValue: non-negative, whole for extended resources; for limits (only), a multiple of the huge page size. */
function validateQuantityValue(name: string, q: Quantity, path: FieldPath, isLimit: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (q.nanos < 0n) errs.push(invalid(path, quantityToString(q), IS_NEGATIVE_ERROR));
  if (isExtended(name) && quantityMilliValue(q) % 1000n !== 0n) errs.push(invalid(path, quantityToString(q), "must be an integer"));
  if (isLimit && isHugePages(name)) {
    const size = parseQuantity(name.slice("hugepages-".length));
    if (size.ok && size.quantity.nanos > 0n && q.nanos % size.quantity.nanos !== 0n)
      errs.push(invalid(path, quantityToString(q), `${quantityToString(q)} is not positive integer multiple of ${name}`));
  }
  return errs;
}

/** validateResources is ValidateResourceRequirements for a container. */
export function validateResources(r: Reader, res: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const limPath = path.child("limits");
  const reqPath = path.child("requests");
  const read = (list: unknown, p: FieldPath): Map<string, Quantity> => {
    const out = new Map<string, Quantity>();
    for (const [k, v] of Object.entries(r.obj(list, p) ?? {})) {
      const q = readQuantity(r, v, p.key(k), errs);
      if (q) out.set(k, q);
    }
    return out;
  };
  const limits = read(res.limits, limPath);
  const requests = read(res.requests, reqPath);
  let cpuOrMemory = false;
  let hugePages = false;
  for (const [name, q] of limits) {
    errs.push(...validateContainerResourceName(name, limPath.key(name)), ...validateQuantityValue(name, q, limPath.key(name), true));
    if (name === "cpu" || name === "memory") cpuOrMemory = true;
    if (isHugePages(name)) hugePages = true;
  }
  for (const [name, q] of requests) {
    errs.push(...validateContainerResourceName(name, reqPath.key(name)), ...validateQuantityValue(name, q, reqPath.key(name), false));
    const limit = limits.get(name);
    if (limit) {
      if (compareQuantities(q, limit) !== 0 && !overcommitAllowed(name))
        errs.push(invalid(reqPath, quantityToString(q), `must be equal to ${name} limit of ${quantityToString(limit)}`));
      else if (compareQuantities(q, limit) > 0)
        errs.push(invalid(reqPath, quantityToString(q), `must be less than or equal to ${name} limit of ${quantityToString(limit)}`));
    } else if (!overcommitAllowed(name)) errs.push(required(limPath, "Limit must be set for non overcommitable resources"));
    if (name === "cpu" || name === "memory") cpuOrMemory = true;
    if (isHugePages(name)) hugePages = true;
  }
  if (!cpuOrMemory && hugePages) errs.push(forbidden(path, "HugePages require cpu or memory"));
  return errs;
}
