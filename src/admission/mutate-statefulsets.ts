import { ROLLING_UPDATE_DEFAULTS } from "../api/statefulset.ts";
import { isObject, type JsonObject } from "../validation/json.ts";
import { diff, encodePatch, type PatchOperation } from "./patch.ts";
import { allow, type AdmissionRequest, type AdmissionResult } from "./types.ts";

/** strategyOf returns the object's spec.updateStrategy when it is an object; safe on any JSON. */
function strategyOf(obj: unknown): JsonObject | undefined {
  const spec: unknown = isObject(obj) ? obj.spec : undefined;
  const strategy: unknown = isObject(spec) ? spec.updateStrategy : undefined;
  return isObject(strategy) ? strategy : undefined;
}

/** A type not given is the CRD's default, RollingUpdate. */
const typeOf = (strategy: JsonObject): unknown => strategy.type ?? "RollingUpdate";
const given = (v: unknown): boolean => v !== undefined && v !== null;

/**
 * strategyPatch returns the operations mutateStatefulSet applies (none: the set passes unchanged):
 *  - a RollingUpdate strategy written without `rollingUpdate` gets ROLLING_UPDATE_DEFAULTS, as
 *    apps/v1 defaults `rollingUpdate.partition` for that type only (a CRD default on rollingUpdate
 *    would be applied to OnDelete sets too, which must not have one);
 *  - an UPDATE from RollingUpdate to OnDelete that carries the old rollingUpdate over unchanged
 *    (`kubectl apply` of `type: OnDelete` merges into the stored strategy; apps/v1's retainKeys
 *    drops the stale member) loses it, instead of being refused for having one.
 */
function strategyPatch(req: AdmissionRequest): PatchOperation[] {
  const strategy = strategyOf(req.object);
  if (req.subResource || !strategy) return [];
  const path = "/spec/updateStrategy/rollingUpdate";
  if (typeOf(strategy) === "RollingUpdate") return given(strategy.rollingUpdate) ? [] : [{ op: "add", path, value: { ...ROLLING_UPDATE_DEFAULTS } }];
  const old = req.operation === "UPDATE" ? strategyOf(req.oldObject) : undefined;
  if (typeOf(strategy) !== "OnDelete" || !old || typeOf(old) !== "RollingUpdate" || !given(strategy.rollingUpdate) || !given(old.rollingUpdate)) return [];
  return diff({ r: old.rollingUpdate }, { r: strategy.rollingUpdate }).length === 0 ? [{ op: "remove", path }] : [];
}

/**
 * mutateStatefulSet answers a CREATE or UPDATE of an apps.ordinal.dev StatefulSet: the update
 * strategy's defaults as apps/v1 has them (strategyPatch), so `kubectl get osts` shows PAUSED false
 * for every RollingUpdate set. Anything else (a shape the validating hook refuses included) passes.
 */
export function mutateStatefulSet(req: AdmissionRequest): AdmissionResult {
  const ops = strategyPatch(req);
  const response = allow(req);
  if (ops.length > 0) {
    response.patchType = "JSONPatch";
    response.patch = encodePatch(ops);
  }
  return { response };
}
