/**
 * validateStatefulSet: everything wrong with a StatefulSet at once, from untyped JSON (an
 * AdmissionReview's object), never throwing.
 *
 * 1. The apiserver's rules for apps/v1 (ValidateStatefulSet on create, ValidateStatefulSetUpdate on
 *    update; statefulset-spec.ts), with the exact paths and messages. The name must be a DNS label
 *    (current upstream; 1.20 accepted any DNS subdomain, which then failed at pod creation).
 * 2. For apps.ordinal.dev, Ordinal's own fields (statefulset-ordinal.ts) and no pod control key
 *    where it would reach every pod (statefulset-control-keys.ts).
 * 3. Unless `checkPods: false`, what would only fail when pods and PVCs are created
 *    (statefulset-pods.ts): the set's name must leave room for "-<ordinal>" in a 63-character
 *    hostname; the first pod and the PVCs must pass create validation; images must parse.
 * 4. Warnings for valid but risky settings, for both groups.
 */
import { type FieldError, FieldPath, internalError, invalid, typeInvalid, uniqueByMessage } from "./field-error.ts";
import { byteLength } from "./go-format.ts";
import { Reader, isObject, jsonType } from "./json.ts";
import { validateObjectMeta, validateObjectMetaUpdate } from "./meta.ts";
import { isDNS1123Label, nameIsDNSLabel } from "./names.ts";
import { podAndClaimSteps } from "./statefulset-pods.ts";
import { runSteps, type Steps } from "./steps.ts";
import { rawOrdinalRange, statefulSetWarnings, validateOrdinalRules } from "./statefulset-ordinal.ts";
import { ordinalAt } from "../objects/ordinal-range.ts";
import { validateStatefulSetSpec, validateStatefulSetSpecUpdate } from "./statefulset-spec.ts";
import { validateClaimTemplatesUpdate, validateVolumeClaimUpdateStrategy } from "./statefulset-claims.ts";
import { validateControlKeys } from "./statefulset-control-keys.ts";

export interface StatefulSetValidationOptions {
  /** `apps.ordinal.dev` adds Ordinal's own rules; `apps` validates as an apps/v1 StatefulSet. */
  group: "apps.ordinal.dev" | "apps";
  /** The kind being validated (default "StatefulSet"); accepted for the caller's bookkeeping, the rules do not depend on it. */
  kind?: string;
  /** Accept images that do not parse as image references (default: refuse them). */
  allowInvalidImageRefs?: boolean;
  /** Check the pods and PVCs the set would create (default true). false gives the apiserver's verdict alone. */
  checkPods?: boolean;
  /** Whether the cluster allows privileged containers (default true). */
  allowPrivileged?: boolean;
  /**
   * Skip the pod and PVC checks (step 3) when the set's own rules already found more errors than
   * this (a caller that reports only so many, such as the webhook, need not pay for the rest).
   */
  maxErrors?: number;
}

export interface StatefulSetValidationResult {
  errors: FieldError[];
  warnings: string[];
}

const MAX_HOSTNAME = 63;

/** hostnameRoom: the highest pod's hostname `<name>-<ordinal>` (objects/ordinal-range.ts) must fit in a DNS label. */
function hostnameRoom(name: unknown, spec: Record<string, unknown>): FieldError[] {
  if (typeof name !== "string" || !name || isDNS1123Label(name).length > 0) return [];
  // With no replicas the first pod a scale-up makes is the one to fit.
  const range = rawOrdinalRange(spec, 1);
  const highest = range.replicas === 0 ? ordinalAt(range, 0) : range.end - 1;
  const hostname = `${name}-${highest}`;
  if (byteLength(hostname) <= MAX_HOSTNAME) return [];
  const room = MAX_HOSTNAME - String(highest).length - 1;
  return [
    invalid(
      FieldPath.root("metadata", "name"),
      name,
      `must be no more than ${room} characters to leave room for the pod ordinal: the hostname "${hostname}" is longer than 63 characters (would fail at pod creation)`,
    ),
  ];
}

function* validate(obj: unknown, old: unknown, opts: StatefulSetValidationOptions): Steps<StatefulSetValidationResult> {
  if (!isObject(obj)) return { errors: [typeInvalid("", jsonType(obj), `body must be of type object: "${jsonType(obj)}"`)], warnings: [] };
  const r = new Reader();
  const metaPath = FieldPath.root("metadata");
  const specPath = FieldPath.root("spec");
  const errors: FieldError[] = [];
  const isUpdate = old !== undefined && old !== null;
  const oldObj = isObject(old) ? old : {};

  if (isUpdate) errors.push(...validateObjectMetaUpdate(obj.metadata, oldObj.metadata, metaPath));
  else errors.push(...validateObjectMeta(obj.metadata, metaPath, { nameFn: nameIsDNSLabel }));
  const spec = obj.spec === undefined || obj.spec === null ? {} : (r.obj(obj.spec, specPath) ?? {});
  errors.push(...validateStatefulSetSpec(r, spec, specPath));
  const oldSpec = isObject(oldObj.spec) ? oldObj.spec : {};
  const ours = opts.group === "apps.ordinal.dev";
  // Ordinal's claim templates may change (statefulset-claims.ts); apps/v1's may not.
  if (isUpdate) errors.push(...validateStatefulSetSpecUpdate(spec, oldSpec, ours));
  if (isUpdate && ours) errors.push(...validateClaimTemplatesUpdate(spec, oldSpec));
  if (ours) {
    const name = isObject(obj.metadata) ? obj.metadata.name : undefined;
    errors.push(...validateOrdinalRules(r, spec, specPath), ...validateVolumeClaimUpdateStrategy(r, spec, specPath), ...validateControlKeys(spec, name, specPath));
  }
  errors.unshift(...r.errors);

  if (opts.checkPods !== false && errors.length <= (opts.maxErrors ?? Infinity)) {
    yield;
    const meta = isObject(obj.metadata) ? obj.metadata : {};
    errors.push(...hostnameRoom(meta.name, spec));
    const upstreamFields = new Set(errors.map((e) => e.field));
    errors.push(...(yield* podAndClaimSteps(obj, upstreamFields, { allowInvalidImageRefs: opts.allowInvalidImageRefs, allowPrivileged: opts.allowPrivileged })));
    yield;
  }

  const mistyped = new Set(errors.filter((e) => e.type === "FieldValueTypeInvalid").map((e) => e.field));
  const unique = uniqueByMessage(errors.filter((e) => !(e.type === "FieldValueRequired" && mistyped.has(e.field))));
  return { errors: unique, warnings: statefulSetWarnings(spec, opts.group) };
}

/**
 * validateStatefulSetSteps is validateStatefulSet in steps (see steps.ts): it yields between the
 * set's own rules, the pod check and the claim checks, so a server can answer other requests in
 * between. It never throws.
 */
export function* validateStatefulSetSteps(obj: unknown, old: unknown | undefined, opts: StatefulSetValidationOptions): Steps<StatefulSetValidationResult> {
  try {
    return yield* validate(obj, old, opts);
  } catch (e) {
    return { errors: [internalError(FieldPath.root("spec"), e)], warnings: [] };
  }
}

/**
 * validateStatefulSet validates a StatefulSet (create when `old` is undefined, else update) and
 * returns all errors and warnings. It never throws: a bug shows up as an InternalError.
 */
export function validateStatefulSet(obj: unknown, old: unknown | undefined, opts: StatefulSetValidationOptions): StatefulSetValidationResult {
  return runSteps(validateStatefulSetSteps(obj, old, opts));
}
