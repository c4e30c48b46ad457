/**
 * spec.roles of an Ordinal StatefulSet (src/core/roles.ts, src/core/switchover.ts): the pod label
 * that carries each pod's role, the order roles are updated in, and the roles handed away first.
 *
 * Decisions:
 * - labelKey is a label key (qualified name) and not one of Ordinal's own pod labels (identity or
 *   control labels): the application writes the role, Ordinal only reads it.
 * - updateOrder: 1 to MAX_ROLES role values, each a non-empty label value, no duplicates (a role
 *   listed twice has no one rank).
 * - switchover.roles: 1 to MAX_ROLES values of updateOrder, no duplicates (a switchover for a role
 *   never ranked would be asked of pods the order knows nothing of); timeoutSeconds 1 to
 *   MAX_SWITCHOVER_SECONDS (a day).
 * - Other keys are refused by name, as the lifecycle hooks' are: the CRD would drop them silently.
 */
import { DEFAULT_SWITCHOVER_SECONDS, MAX_ROLES, MAX_SWITCHOVER_SECONDS } from "../api/statefulset.ts";
import { LIFECYCLE_STATE_LABEL, POD_CONTROL_LABELS, POD_INDEX_LABEL, POD_NAME_LABEL, REVISION_LABEL, SET_NAME_LABEL } from "../objects/constants.ts";
import { duplicate, type FieldError, type FieldPath, forbidden, invalid, required, tooMany } from "./field-error.ts";
import type { Reader } from "./json.ts";
import { validateLabelName } from "./labels.ts";
import { isValidLabelValue } from "./names.ts";

const ROLES_FIELDS = ["labelKey", "updateOrder", "switchover"];
const SWITCHOVER_FIELDS = ["roles", "timeoutSeconds"];
/** Labels Ordinal writes on its pods: a role label there would be Ordinal's own word, not the application's. */
const ORDINAL_LABELS = new Set([POD_NAME_LABEL, POD_INDEX_LABEL, REVISION_LABEL, SET_NAME_LABEL, LIFECYCLE_STATE_LABEL, ...POD_CONTROL_LABELS]);

/** validateRoles returns what is wrong with spec.roles (`v`, untyped), every problem at once. */
export function validateRoles(r: Reader, v: unknown, p: FieldPath): FieldError[] {
  const roles = r.obj(v, p);
  if (!roles) return [];
  const errs: FieldError[] = [];
  for (const key of Object.keys(roles)) if (!ROLES_FIELDS.includes(key)) errs.push(forbidden(p.child(key), `not supported: spec.roles has ${ROLES_FIELDS.join(", ")}`));
  const kp = p.child("labelKey");
  const key = r.str(roles.labelKey, kp);
  if (key === undefined || key === "") errs.push(required(kp, "the pod label the application writes each pod's role in (Patroni: spilo-role)"));
  else {
    errs.push(...validateLabelName(key, kp));
    if (ORDINAL_LABELS.has(key)) errs.push(invalid(kp, key, "is a label Ordinal writes on its pods: name the label the application writes each pod's role in"));
  }
  const order = roleList(r, roles.updateOrder, p.child("updateOrder"), errs);
  const sp = p.child("switchover");
  const switchover = r.obj(roles.switchover, sp);
  if (!switchover) return errs;
  for (const k of Object.keys(switchover)) if (!SWITCHOVER_FIELDS.includes(k)) errs.push(forbidden(sp.child(k), `not supported: spec.roles.switchover has ${SWITCHOVER_FIELDS.join(", ")}`));
  const rp = sp.child("roles");
  (roleList(r, switchover.roles, rp, errs) ?? []).forEach((role, i) => {
    if (order && role !== "" && !order.includes(role)) errs.push(invalid(rp.index(i), role, `must be one of spec.roles.updateOrder (${order.map((o) => JSON.stringify(o)).join(", ")})`));
  });
  const tp = sp.child("timeoutSeconds");
  const timeout = r.int32(switchover.timeoutSeconds, tp);
  if (timeout !== undefined && (timeout < 1 || timeout > MAX_SWITCHOVER_SECONDS))
    errs.push(invalid(tp, timeout, `must be between 1 and ${MAX_SWITCHOVER_SECONDS} seconds (default ${DEFAULT_SWITCHOVER_SECONDS})`));
  return errs;
}

/** roleList reads a required list of 1 to MAX_ROLES distinct role values (label values), reporting into `errs`; undefined when it is not a list. */
function roleList(r: Reader, v: unknown, p: FieldPath, errs: FieldError[]): string[] | undefined {
  const list = r.strList(v, p);
  if (!list || list.length === 0) {
    if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) errs.push(required(p, "list at least one role (label value)"));
    return list;
  }
  if (list.length > MAX_ROLES) errs.push(tooMany(p, list.length, MAX_ROLES));
  const seen = new Set<string>();
  list.forEach((role, i) => {
    if (role === "") errs.push(invalid(p.index(i), role, "a role is a non-empty label value"));
    for (const msg of isValidLabelValue(role)) errs.push(invalid(p.index(i), role, msg));
    if (seen.has(role)) errs.push(duplicate(p.index(i), role));
    seen.add(role);
  });
  return list;
}
