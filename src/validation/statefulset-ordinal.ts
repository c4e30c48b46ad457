/**
 * Ordinal's own StatefulSet rules (apps.ordinal.dev only) and the warnings given for both groups.
 *
 * Decisions:
 * - maxUnavailable above 1 with podManagementPolicy OrderedReady: Ordinal's sets honour it (the
 *   rollout goes highest ordinal first, several pods at a time); for apps/v1 objects it is a
 *   warning, not an error: upstream accepts it but only Parallel sets take down several pods.
 * - "paused only with RollingUpdate" needs no rule of its own: paused lives in rollingUpdate, and
 *   any rollingUpdate with type OnDelete is already refused by the upstream rule at
 *   spec.updateStrategy.rollingUpdate. Likewise podUpdatePolicy with OnDelete cannot be written.
 * - imagePrewarm.parallelism ≥ 1 (the CRD says so too); imagePrewarm with ReCreate is allowed
 *   (the images go to the pods' current nodes) with a warning: a recreated pod may move.
 * - revisionHistoryLimit ≥ 0 is Ordinal's (the CRD schema's): upstream does not check it for
 *   StatefulSets.
 * - progressDeadlineSeconds > 0 and > minReadySeconds (Deployment's rule: a pod must be able to
 *   become available within the deadline); rollbackOnFailure: true needs it (the rollback happens
 *   only once the deadline passed).
 * - replicas ≤ MAX_REPLICAS (the CRD's `maximum`, which also holds for the scale subresource that
 *   no webhook sees): the webhook says what the limit is for.
 * - reserveOrdinals (Kruise's field): each entry an int32 ≥ 0 or "a-b" with a ≤ b ≤ 2147483647; no
 *   entry may repeat or overlap another (Kruise accepts both silently; a duplicate is almost always
 *   a mistake in a hand-edited list, and refusing it keeps `kubectl edit` diffs meaningful); at most
 *   MAX_RESERVE_ORDINALS entries; the highest replica's ordinal must stay ≤ 2147483647. An entry
 *   below ordinals.start reserves nothing: a warning.
 * - spec.roles: statefulset-roles.ts.
 */
import type { FieldPath} from "./field-error.ts";
import { type FieldError, duplicate, invalid, notSupported, tooMany } from "./field-error.ts";
import type { Reader} from "./json.ts";
import { type JsonObject, isObject } from "./json.ts";
import { nonNegative } from "./pod-fields.ts";
import { validateMaxUnavailable } from "./statefulset-spec.ts";
import { MAX_REPLICAS, MAX_RESERVE_ORDINALS } from "../api/statefulset.ts";
import { ordinalRange, parseReserveOrdinal, type OrdinalRange } from "../objects/ordinal-range.ts";
import { validateLifecycle } from "./statefulset-lifecycle.ts";
import { validateRoles } from "./statefulset-roles.ts";
import { validateUnorderedUpdate } from "./statefulset-priority.ts";

const POD_UPDATE_POLICIES = ["ReCreate", "InPlaceIfPossible", "InPlaceOnly"];

/** validateOrdinalRules checks the fields Ordinal adds to apps/v1 (spec is untyped). */
export function validateOrdinalRules(r: Reader, spec: JsonObject, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const replicas = r.int32(spec.replicas, p.child("replicas"));
  if (replicas !== undefined && replicas > MAX_REPLICAS)
    errs.push(invalid(p.child("replicas"), replicas, `must be less than or equal to ${MAX_REPLICAS}, the most pods Kubernetes supports in a whole cluster`));
  errs.push(...nonNegative(r.int32(spec.revisionHistoryLimit, p.child("revisionHistoryLimit")), p.child("revisionHistoryLimit")));
  errs.push(...validateLifecycle(r, spec.lifecycle, p.child("lifecycle")));
  errs.push(...validateRoles(r, spec.roles, p.child("roles")));
  errs.push(...validateReserveOrdinals(r, spec, p));
  const ss = r.obj(spec.scaleStrategy, p.child("scaleStrategy"));
  if (ss) errs.push(...validateMaxUnavailable(r, ss.maxUnavailable, p.child("scaleStrategy", "maxUnavailable")));
  const us = r.obj(spec.updateStrategy, p.child("updateStrategy")) ?? {};
  const ruPath = p.child("updateStrategy", "rollingUpdate");
  const ru = r.obj(us.rollingUpdate, ruPath);
  errs.push(...validateProgressDeadline(r, spec, ru, p));
  if (!ru) return errs;
  r.bool(ru.paused, ruPath.child("paused"));
  const policy = r.str(ru.podUpdatePolicy, ruPath.child("podUpdatePolicy"));
  if (policy !== undefined && !POD_UPDATE_POLICIES.includes(policy)) errs.push(notSupported(ruPath.child("podUpdatePolicy"), policy, POD_UPDATE_POLICIES));
  const ips = r.obj(ru.inPlaceUpdateStrategy, ruPath.child("inPlaceUpdateStrategy"));
  if (ips) {
    const gp = ruPath.child("inPlaceUpdateStrategy", "gracePeriodSeconds");
    errs.push(...nonNegative(r.int32(ips.gracePeriodSeconds, gp), gp));
  }
  errs.push(...validateUnorderedUpdate(r, ru.unorderedUpdate, ruPath.child("unorderedUpdate")));
  const prewarm = r.obj(ru.imagePrewarm, ruPath.child("imagePrewarm"));
  if (prewarm) {
    const pp = ruPath.child("imagePrewarm", "parallelism");
    const parallelism = r.int32(prewarm.parallelism, pp);
    if (parallelism !== undefined && parallelism < 1) errs.push(invalid(pp, parallelism, "must be greater than or equal to 1"));
  }
  return errs;
}

/** validateProgressDeadline checks progressDeadlineSeconds and rollingUpdate.rollbackOnFailure. */
function validateProgressDeadline(r: Reader, spec: JsonObject, ru: JsonObject | undefined, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const dp = p.child("progressDeadlineSeconds");
  const deadline = r.int32(spec.progressDeadlineSeconds, dp);
  const minReady = num(spec.minReadySeconds) ?? 0;
  if (deadline !== undefined && deadline <= 0) errs.push(invalid(dp, deadline, "must be greater than 0"));
  else if (deadline !== undefined && deadline <= minReady) errs.push(invalid(dp, deadline, "must be greater than minReadySeconds"));
  const rp = p.child("updateStrategy", "rollingUpdate", "rollbackOnFailure");
  const rollback = ru ? r.bool(ru.rollbackOnFailure, rp) : undefined;
  if (rollback && deadline === undefined)
    errs.push(invalid(rp, true, "needs spec.progressDeadlineSeconds: a rollout is rolled back once that deadline passes without progress"));
  return errs;
}

const MAX_ORDINAL = 2147483647;
const RESERVE_FORMAT = 'must be an ordinal (an integer ≥ 0) or a range "a-b" of ordinals with a ≤ b, each at most 2147483647';

/** validateReserveOrdinals checks spec.reserveOrdinals (see the decisions above). */
function validateReserveOrdinals(r: Reader, spec: JsonObject, p: FieldPath): FieldError[] {
  const path = p.child("reserveOrdinals");
  const list = r.arr(spec.reserveOrdinals, path);
  if (!list) return [];
  if (list.length > MAX_RESERVE_ORDINALS) return [tooMany(path, list.length, MAX_RESERVE_ORDINALS)];
  const errs: FieldError[] = [];
  const spans: { lo: number; hi: number; index: number }[] = [];
  list.forEach((entry, index) => {
    const span = typeof entry === "number" || typeof entry === "string" ? parseReserveOrdinal(entry) : undefined;
    if (!span || span[1] > MAX_ORDINAL) errs.push(invalid(path.index(index), entry, RESERVE_FORMAT));
    else spans.push({ lo: span[0], hi: span[1], index });
  });
  spans.sort((a, b) => a.lo - b.lo || a.index - b.index);
  // Sorted by lower bound, an entry overlaps an earlier one exactly when it starts at or below the highest end so far.
  let reach: (typeof spans)[number] | undefined;
  for (const s of spans) {
    if (reach && s.lo <= reach.hi) {
      const [first, later] = reach.index < s.index ? [reach, s] : [s, reach];
      const value = list[later.index];
      if (JSON.stringify(value) === JSON.stringify(list[first.index]) || (first.lo === later.lo && first.hi === later.hi)) errs.push(duplicate(path.index(later.index), value));
      else errs.push(invalid(path.index(later.index), value, `overlaps spec.reserveOrdinals[${first.index}] (${JSON.stringify(list[first.index])})`));
    }
    if (!reach || s.hi > reach.hi) reach = s;
  }
  if (errs.length === 0) {
    const range = rawOrdinalRange(spec, 0);
    if (range.end - 1 > MAX_ORDINAL)
      errs.push(invalid(path, `${spans.length} entries`, `leave the highest replica at ordinal ${range.end - 1}, beyond ${MAX_ORDINAL}: reserve fewer ordinals or lower spec.replicas or spec.ordinals.start`));
  }
  return errs;
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isInteger(v) ? v : undefined);

/**
 * rawOrdinalRange returns the ordinal range (objects/ordinal-range.ts) of an untyped spec, as the
 * planner would see it: an invalid start counts as 0 and an invalid replicas as `replicasIfInvalid`
 * (their own errors are reported elsewhere), entries of reserveOrdinals that do not parse reserve
 * nothing.
 */
export function rawOrdinalRange(spec: JsonObject, replicasIfInvalid: number): OrdinalRange {
  const ordinals = isObject(spec.ordinals) ? spec.ordinals : {};
  const start = num(ordinals.start);
  const replicas = num(spec.replicas);
  return ordinalRange({
    replicas: replicas !== undefined && replicas >= 0 ? replicas : replicasIfInvalid,
    ordinals: { start: start !== undefined && start >= 0 && start <= 2147483647 ? start : 0 },
    reserveOrdinals: Array.isArray(spec.reserveOrdinals) ? (spec.reserveOrdinals as (number | string)[]) : [],
  });
}

/** statefulSetWarnings returns advice for a set that is valid but probably not what was meant. */
export function statefulSetWarnings(spec: JsonObject, group: string): string[] {
  const warnings: string[] = [];
  const tspec = isObject(spec.template) && isObject(spec.template.spec) ? spec.template.spec : {};
  const us = isObject(spec.updateStrategy) ? spec.updateStrategy : {};
  const ru = isObject(us.rollingUpdate) ? us.rollingUpdate : undefined;
  const type = (typeof us.type === "string" && us.type) || "RollingUpdate";
  const pmp = (typeof spec.podManagementPolicy === "string" && spec.podManagementPolicy) || "OrderedReady";
  const replicas = num(spec.replicas) ?? 1;

  if (spec.serviceName === undefined || spec.serviceName === null || spec.serviceName === "")
    warnings.push("spec.serviceName is empty: the pods get no stable network identity (no <pod>.<service> DNS names); set it to a headless Service");
  const grace = num(tspec.terminationGracePeriodSeconds);
  if (grace === 0)
    warnings.push(
      "spec.template.spec.terminationGracePeriodSeconds is 0: pods are killed without a graceful shutdown, which is unsafe for stateful workloads (the same identity may run twice); use a positive value",
    );
  else if (grace !== undefined && grace < 0) warnings.push("spec.template.spec.terminationGracePeriodSeconds is negative: the apiserver treats it as 1 second");
  if (group === "apps.ordinal.dev" && isObject(spec.scaleStrategy) && spec.scaleStrategy.maxUnavailable != null && pmp === "OrderedReady")
    warnings.push("spec.scaleStrategy.maxUnavailable has effect only with podManagementPolicy Parallel: an OrderedReady set creates one pod at a time");
  if (group === "apps.ordinal.dev" && Array.isArray(spec.reserveOrdinals)) {
    const start = rawOrdinalRange(spec, 0).start;
    const below = spec.reserveOrdinals.filter((entry) => (parseReserveOrdinal(entry)?.[1] ?? Infinity) < start);
    if (below.length)
      warnings.push(`spec.reserveOrdinals ${below.slice(0, 5).map((e) => JSON.stringify(e)).join(", ")}${below.length > 5 ? ", …" : ""} below spec.ordinals.start (${start}) reserve nothing`);
  }
  if (type === "RollingUpdate" && ru) {
    const mu = ru.maxUnavailable;
    // Percentages scale with replicas, rounding up (GetScaledValueFromIntOrPercent).
    const several =
      (typeof mu === "number" && mu > 1) || (typeof mu === "string" && /^[0-9]+%$/.test(mu) && Math.ceil((Number(mu.slice(0, -1)) * replicas) / 100) > 1);
    // Ordinal's own sets honour maxUnavailable with both policies; apps/v1 (1.20) ignores it with OrderedReady.
    if (several && pmp === "OrderedReady" && group !== "apps.ordinal.dev")
      warnings.push(
        `spec.updateStrategy.rollingUpdate.maxUnavailable (${JSON.stringify(mu)}) has effect only with podManagementPolicy Parallel: an OrderedReady set updates one pod at a time`,
      );
    const partition = num(ru.partition) ?? 0;
    if (partition > 0 && partition >= replicas)
      warnings.push(`spec.updateStrategy.rollingUpdate.partition (${partition}) is not below spec.replicas (${replicas}): template changes will update no pod`);
    if (group === "apps.ordinal.dev" && isObject(ru.inPlaceUpdateStrategy) && (ru.podUpdatePolicy ?? "ReCreate") === "ReCreate")
      warnings.push("spec.updateStrategy.rollingUpdate.inPlaceUpdateStrategy has no effect with podUpdatePolicy ReCreate");
    if (group === "apps.ordinal.dev" && isObject(ru.imagePrewarm) && (ru.podUpdatePolicy ?? "ReCreate") === "ReCreate")
      warnings.push(
        "spec.updateStrategy.rollingUpdate.imagePrewarm with podUpdatePolicy ReCreate pulls onto the nodes the pods run on now; a recreated pod may be scheduled elsewhere (use InPlaceIfPossible)",
      );
  }
  return warnings;
}
