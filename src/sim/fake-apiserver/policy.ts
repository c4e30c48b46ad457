// policy/v1beta1 PodDisruptionBudgets and pods/eviction (1.20's eviction.go: the budget check
// before the delete), and authorization.k8s.io/v1 SubjectAccessReviews (1.20's validation, answered
// by the fake's authorizer: everything is allowed unless the test gives one, as the fake has no RBAC).

import { deleteObject, type DeleteOptions } from "./deletion.ts";
import { ApiError, badRequest, internalError, invalid, invalidError, successStatus, type FieldError } from "./errors.ts";
import { isObject, metaOf as meta, objectAt, objectsIn, str, type Obj } from "./json.ts";
import type { ResourceDef } from "./kinds/types.ts";
import { podDisruptionBudgets } from "./kinds/policy.ts";
import type { AccessAttributes, Authorizer, Engine, Result, WriteOptions } from "./rest.ts";
import { matchesLabels, selectorFromLabelSelector } from "./selectors.ts";

/** reviewAccess is POST subjectaccessreviews: 1.20's spec validation, then the authorizer's answer (nothing stored). */
export function reviewAccess(body: unknown, authorize: Authorizer): Result {
  if (!isObject(body)) throw badRequest("the object provided is unrecognized (must be of type SubjectAccessReview)");
  const spec = objectAt(body, "spec");
  const errs: FieldError[] = [];
  const ra = isObject(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
  if (ra && spec.nonResourceAttributes !== undefined) errs.push(invalid("spec.nonResourceAttributes", spec.nonResourceAttributes, "cannot be specified in combination with resourceAttributes"));
  if (!ra && spec.nonResourceAttributes === undefined) errs.push(invalid("spec.resourceAttributes", "null", "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  const groups = Array.isArray(spec.groups) ? spec.groups.map(str) : [];
  if (!str(spec.user) && groups.length === 0) errs.push(invalid("spec.user", str(spec.user), "at least one of user or group must be specified"));
  // 1.20 names no kind here: `.authorization.k8s.io "" is invalid: …`.
  if (errs.length) throw invalidError({ group: "authorization.k8s.io", kind: "" }, "", errs);
  const attrs: AccessAttributes = {
    user: str(spec.user),
    groups,
    verb: str(ra?.verb),
    group: str(ra?.group),
    resource: str(ra?.resource),
    subresource: str(ra?.subresource),
    namespace: str(ra?.namespace),
    name: str(ra?.name),
  };
  const answer = ra ? authorize(attrs) : { allowed: true };
  const status: Obj = { allowed: answer.allowed };
  if (answer.reason) status.reason = answer.reason;
  return { code: 201, body: { kind: "SubjectAccessReview", apiVersion: "authorization.k8s.io/v1", metadata: { creationTimestamp: null }, spec, status } };
}

/** isReady is the pod's Ready condition (what the disruption controller counts as healthy). */
const isReady = (pod: Obj): boolean => objectsIn(objectAt(pod, "status").conditions).some((c) => c.type === "Ready" && c.status === "True");

/** scaled is an intOrString against `total`: a number as is, "n%" rounded up. */
function scaled(v: unknown, total: number): number {
  if (typeof v === "number") return v;
  const pct = /^(\d+)%$/.exec(str(v));
  return pct ? Math.ceil((Number(pct[1]) * total) / 100) : 0;
}

/**
 * budgetOf is the disruption controller's status of a budget, computed now (the fake's controllers
 * run synchronously): the pods its selector matches are the expected ones (1.20 asks the pods'
 * controller for its scale where a percentage or maxUnavailable needs it: the same count for a set
 * whose pods all exist), those Ready and not terminating are healthy.
 */
function budgetOf(pdb: Obj, pods: Obj[]): { desiredHealthy: number; currentHealthy: number; disruptionsAllowed: number } {
  const spec = objectAt(pdb, "spec");
  const expected = pods.length;
  const currentHealthy = pods.filter((p) => isReady(p) && !meta(p).deletionTimestamp).length;
  const desiredHealthy = spec.maxUnavailable !== undefined ? Math.max(0, expected - scaled(spec.maxUnavailable, expected)) : scaled(spec.minAvailable ?? 1, expected);
  return { desiredHealthy, currentHealthy, disruptionsAllowed: Math.max(0, currentHealthy - desiredHealthy) };
}

/** Pods the eviction deletes without a budget check (canIgnorePDB): done, not yet running, or going already. */
function canIgnoreBudget(pod: Obj): boolean {
  const phase = str(objectAt(pod, "status").phase);
  return phase === "Succeeded" || phase === "Failed" || phase === "Pending" || !!meta(pod).deletionTimestamp;
}

/**
 * evict is POST pods/NAME/eviction with a policy/v1beta1 Eviction (1.20 knows no policy/v1 one):
 * the pod is deleted (with the Eviction's deleteOptions) unless the one budget that selects it
 * allows no disruption now: 429, "Cannot evict pod as it would violate the pod's disruption
 * budget." with a DisruptionBudget cause and no Retry-After. Two budgets: 500, as 1.20.
 */
export function evict(engine: Engine, podsDef: ResourceDef, namespace: string, name: string, body: unknown, opts: WriteOptions = {}): Result {
  if (!isObject(body)) throw badRequest("the object provided is unrecognized (must be of type Eviction)");
  const apiVersion = str(body.apiVersion);
  if (apiVersion !== "policy/v1beta1") {
    const version = apiVersion.split("/").pop() ?? "";
    throw badRequest(`Eviction in version "${version}" cannot be handled as a Eviction: no kind "Eviction" is registered for version "${apiVersion}" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"`);
  }
  if (str(meta(body).name) !== name) throw badRequest("name in URL does not match name in Eviction object");
  const options = (isObject(body.deleteOptions) ? body.deleteOptions : {}) as DeleteOptions;
  const pod = engine.get(podsDef, namespace, name);
  const remove = (): Result => {
    deleteObject(engine, podsDef, namespace, name, options, opts);
    return { code: 201, body: successStatus({}, 201) };
  };
  if (canIgnoreBudget(pod)) return remove();
  const podsIn = engine.store.list(podsDef, namespace);
  // An empty selector matches nothing here (1.20), not everything.
  const budgets = engine.store.list(podDisruptionBudgets, namespace).filter((b) => {
    const sel = selectorFromLabelSelector(objectAt(b, "spec").selector);
    return sel !== undefined && sel.length > 0 && matchesLabels(sel, meta(pod).labels);
  });
  if (budgets.length > 1) throw internalError("This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.");
  const pdb = budgets[0];
  if (pdb) {
    const sel = selectorFromLabelSelector(objectAt(pdb, "spec").selector)!;
    const b = budgetOf(pdb, podsIn.filter((p) => matchesLabels(sel, meta(p).labels)));
    if (b.disruptionsAllowed <= 0) {
      throw new ApiError({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "Cannot evict pod as it would violate the pod's disruption budget.",
        reason: "TooManyRequests",
        details: { causes: [{ reason: "DisruptionBudget", message: `The disruption budget ${str(meta(pdb).name)} needs ${b.desiredHealthy} healthy pods and has ${b.currentHealthy} currently` }] },
        code: 429,
      });
    }
  }
  return remove();
}
