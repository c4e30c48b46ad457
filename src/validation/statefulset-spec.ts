/**
 * The apiserver's own StatefulSet rules (pkg/apis/apps/validation: ValidateStatefulSetSpec,
 * ValidatePodTemplateSpecForStatefulSet, validateRollingUpdateStatefulSet, the immutable-spec part
 * of ValidateStatefulSetUpdate), current upstream, applied to the object as the apps/v1 defaults
 * leave it (an empty podManagementPolicy, updateStrategy.type or restartPolicy is the default).
 *
 * Differences from 1.20 that we follow: maxUnavailable, minReadySeconds, ordinals.start and
 * persistentVolumeClaimRetentionPolicy are validated; matchExpressions values must be label values;
 * on update replicas, ordinals, template, updateStrategy, revisionHistoryLimit,
 * persistentVolumeClaimRetentionPolicy and minReadySeconds may change (1.20: replicas, template,
 * updateStrategy), and the whole new spec is validated again.
 */
import { type FieldError, FieldPath, forbidden, invalid, notSupported, required } from "./field-error.ts";
import { sortedMap } from "./go-format.ts";
import type { Reader} from "./json.ts";
import { type JsonObject, isObject } from "./json.ts";
import { type LabelSelector, labelSelectorAsRequirements, selectorMatches, validateLabelSelector, validateLabels } from "./labels.ts";
import { validateAnnotations } from "./meta.ts";
import { isValidPercent } from "./names.ts";
import { validatePodSpecificAnnotations } from "./pod-annotations.ts";
import { nonNegative } from "./pod-fields.ts";
import { parseQuantity } from "./quantity.ts";

/** typedSelector reads a selector into the LabelSelector shape, skipping ill-typed parts (reported elsewhere). */
function typedSelector(v: unknown): LabelSelector | undefined {
  if (!isObject(v)) return undefined;
  const sel: LabelSelector = {};
  if (isObject(v.matchLabels))
    sel.matchLabels = Object.fromEntries(Object.entries(v.matchLabels).filter(([, x]) => typeof x === "string")) as Record<string, string>;
  if (Array.isArray(v.matchExpressions))
    sel.matchExpressions = v.matchExpressions.filter(isObject).map((e) => ({
      key: typeof e.key === "string" ? e.key : "",
      operator: typeof e.operator === "string" ? e.operator : "",
      values: Array.isArray(e.values) ? e.values.filter((x): x is string => typeof x === "string") : undefined,
    }));
  return sel;
}

/** goSelector is how a *metav1.LabelSelector prints as a bad value (json tags, omitempty, sorted map). */
function goSelector(sel: LabelSelector): unknown {
  const out: Record<string, unknown> = {};
  if (sel.matchLabels && Object.keys(sel.matchLabels).length) out.matchLabels = sortedMap(sel.matchLabels);
  if (sel.matchExpressions?.length)
    out.matchExpressions = sel.matchExpressions.map((e) => ({ key: e.key, operator: e.operator, ...(e.values?.length ? { values: e.values } : {}) }));
  return out;
}

/** The internal (untagged) Go structs upstream passes as bad values print with Go field names. */
const internalRollingUpdate = (ru: JsonObject) => ({ Partition: typeof ru.partition === "number" ? ru.partition : 0, MaxUnavailable: ru.maxUnavailable ?? null });

/** percentValue mirrors getIntOrPercentValue: the number of an int or valid percent, else Atoi of the string (0 when not numeric). */
function intOrPercentValue(v: number | string): number {
  if (typeof v === "number") return v;
  if (isValidPercent(v).length === 0) return Number(v.slice(0, -1));
  return /^[+-]?[0-9]+$/.test(v) ? Number(v) : 0;
}

function validateRollingUpdate(r: Reader, ru: JsonObject, path: FieldPath): FieldError[] {
  const errs = nonNegative(r.int32(ru.partition, path.child("partition")), path.child("partition"));
  errs.push(...validateMaxUnavailable(r, ru.maxUnavailable, path.child("maxUnavailable")));
  return errs;
}

/** validateMaxUnavailable is upstream's rule for an int-or-percent maxUnavailable: ≥ 0, a valid percent ≤ 100%, not 0. */
export function validateMaxUnavailable(r: Reader, value: unknown, mp: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const mu = r.intOrString(value, mp);
  if (mu !== undefined) {
    if (typeof mu === "string") errs.push(...isValidPercent(mu).map((m) => invalid(mp, mu, m)));
    else errs.push(...nonNegative(mu, mp));
    if (intOrPercentValue(mu) === 0) errs.push(invalid(mp, mu, "cannot be 0"));
    if (typeof mu === "string" && isValidPercent(mu).length === 0 && intOrPercentValue(mu) > 100)
      errs.push(invalid(mp, mu, "must not be greater than 100%"));
  }
  return errs;
}

/** validateStatefulSetSpec is ValidateStatefulSetSpec over an untyped spec. */
export function validateStatefulSetSpec(r: Reader, spec: JsonObject, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const pmp = r.str(spec.podManagementPolicy, p.child("podManagementPolicy")) || "OrderedReady";
  if (pmp !== "OrderedReady" && pmp !== "Parallel") errs.push(invalid(p.child("podManagementPolicy"), pmp, "must be 'OrderedReady' or 'Parallel'"));

  const usPath = p.child("updateStrategy");
  const us = r.obj(spec.updateStrategy, usPath) ?? {};
  const type = r.str(us.type, usPath.child("type")) || "RollingUpdate";
  const ru = r.obj(us.rollingUpdate, usPath.child("rollingUpdate"));
  switch (type) {
    case "OnDelete":
      if (ru) errs.push(invalid(usPath.child("rollingUpdate"), internalRollingUpdate(ru), "only allowed for updateStrategy 'RollingUpdate'"));
      break;
    case "RollingUpdate":
      if (ru) errs.push(...validateRollingUpdate(r, ru, usPath.child("rollingUpdate")));
      break;
    default:
      errs.push(invalid(usPath, { Type: type, RollingUpdate: ru ? internalRollingUpdate(ru) : null }, "must be 'RollingUpdate' or 'OnDelete'"));
  }

  const rpPath = p.child("persistentVolumeClaimRetentionPolicy");
  const rp = r.obj(spec.persistentVolumeClaimRetentionPolicy, rpPath);
  if (rp)
    for (const f of ["whenDeleted", "whenScaled"]) {
      const v = r.str(rp[f], rpPath.child(f)) || "Retain";
      if (v !== "Retain" && v !== "Delete") errs.push(notSupported(rpPath.child(f), v, ["Retain", "Delete"]));
    }

  errs.push(...nonNegative(r.int32(spec.replicas, p.child("replicas")), p.child("replicas")));
  errs.push(...nonNegative(r.int32(spec.minReadySeconds, p.child("minReadySeconds")), p.child("minReadySeconds")));
  const ordinals = r.obj(spec.ordinals, p.child("ordinals"));
  if (ordinals) errs.push(...nonNegative(r.int32(ordinals.start, p.child("ordinals", "start")), p.child("ordinals.start")));

  const selPath = p.child("selector");
  const selector = typedSelector(spec.selector);
  if (spec.selector === undefined || spec.selector === null) errs.push(required(selPath));
  else {
    errs.push(...validateLabelSelector(spec.selector, selPath));
    if (selector && Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions?.length ?? 0) === 0)
      errs.push(invalid(selPath, goSelector(selector), "empty selector is invalid for statefulset"));
  }
  const tPath = p.child("template");
  const template = r.obj(spec.template, tPath) ?? {};
  const tmeta = r.obj(template.metadata, tPath.child("metadata")) ?? {};
  const tspec = r.obj(template.spec, tPath.child("spec")) ?? {};
  const parsed = isObject(spec.selector) || spec.selector === undefined || spec.selector === null ? labelSelectorAsRequirements(selector) : undefined;
  if (parsed?.kind === "error") errs.push(invalid(selPath, goSelector(selector ?? {}), ""));
  else if (parsed) {
    const labels = r.strMap(tmeta.labels, tPath.child("metadata", "labels"));
    if (parsed.kind !== "everything" && !selectorMatches(selector, labels))
      errs.push(invalid(tPath.child("metadata", "labels"), sortedMap(labels), "`selector` does not match template `labels`"));
    errs.push(...validateLabels(labels, tPath.child("labels")));
    const annotations = r.strMap(tmeta.annotations, tPath.child("metadata", "annotations"));
    errs.push(...validateAnnotations(annotations, tPath.child("annotations")));
    errs.push(...validatePodSpecificAnnotations(annotations, tspec, tPath.child("annotations")));
  }

  const restartPolicy = r.str(tspec.restartPolicy, tPath.child("spec", "restartPolicy")) || "Always";
  if (restartPolicy !== "Always") errs.push(notSupported(tPath.child("spec", "restartPolicy"), restartPolicy, ["Always"]));
  if (tspec.activeDeadlineSeconds !== undefined && tspec.activeDeadlineSeconds !== null)
    errs.push(forbidden(tPath.child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in StatefulSet is not Supported"));
  return errs;
}

/**
 * canonical renders JSON for semantic comparison: keys sorted, nulls and empty lists/maps dropped
 * (apimachinery's Semantic.DeepEqual treats nil and empty alike), quantities by value.
 */
function canonical(v: unknown, key = ""): unknown {
  if (Array.isArray(v)) {
    const items = v.map((x) => canonical(x)).filter((x) => x !== undefined);
    return items.length ? items : undefined;
  }
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const c = key === "requests" || key === "limits" ? quantityKey(v[k]) : canonical(v[k], k);
      if (c !== undefined) out[k] = c;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return v === null ? undefined : v;
}

function quantityKey(v: unknown): unknown {
  if (typeof v !== "string" && typeof v !== "number") return canonical(v);
  const q = parseQuantity(v);
  return q.ok ? `q:${q.quantity.nanos}` : v;
}

/** normalizedClaim is a claim template as apps/v1 compares it: metadata and spec only, volumeMode defaulted, no creationTimestamp. */
function normalizedClaim(c: unknown): unknown {
  if (!isObject(c)) return c;
  const spec = isObject(c.spec) ? { ...c.spec } : c.spec;
  if (isObject(spec) && (spec.volumeMode === undefined || spec.volumeMode === null)) spec.volumeMode = "Filesystem";
  const meta = isObject(c.metadata) ? { ...c.metadata, creationTimestamp: undefined } : c.metadata;
  return { metadata: meta, spec };
}

function normalizedClaims(claims: unknown): unknown {
  return canonical(Array.isArray(claims) ? claims.map(normalizedClaim) : claims);
}

/**
 * claimTemplateKey returns what makes two claim templates equal for apps/v1 (defaults applied,
 * empty values dropped, quantities by value), as a string.
 */
export const claimTemplateKey = (c: unknown): string => JSON.stringify(canonical(normalizedClaim(c)) ?? null);

/**
 * immutableView is the part of a spec that may not change on update, after defaulting; with
 * `claimsMayChange` (Ordinal's sets: statefulset-claims.ts has their rules) the claim templates are not part of it.
 */
function immutableView(spec: JsonObject, claimsMayChange: boolean): string {
  return JSON.stringify(
    canonical({
      selector: spec.selector,
      serviceName: spec.serviceName ?? "",
      podManagementPolicy: spec.podManagementPolicy || "OrderedReady",
      volumeClaimTemplates: claimsMayChange ? undefined : normalizedClaims(spec.volumeClaimTemplates),
    }),
  );
}

export const FORBIDDEN_UPDATE_MESSAGE =
  "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

/**
 * validateStatefulSetSpecUpdate is the "fields other than … are forbidden" rule of
 * ValidateStatefulSetUpdate; `claimsMayChange` leaves volumeClaimTemplates to Ordinal's own rules.
 */
export function validateStatefulSetSpecUpdate(spec: JsonObject, oldSpec: JsonObject, claimsMayChange = false): FieldError[] {
  return immutableView(spec, claimsMayChange) === immutableView(oldSpec, claimsMayChange) ? [] : [forbidden(FieldPath.root("spec"), FORBIDDEN_UPDATE_MESSAGE)];
}
