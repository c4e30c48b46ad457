/**
 * Scheduling fields of a pod spec: tolerations (ValidateTolerations) and
 * topologySpreadConstraints (validateTopologySpreadConstraints), upstream wording.
 */
import { type FieldError, type FieldPath, duplicate, invalid, notSupported, required } from "./field-error.ts";
import type { Reader } from "./json.ts";
import { validateLabelName, validateLabelSelector } from "./labels.ts";
import { isValidLabelValue } from "./names.ts";

/** validateTolerations is ValidateTolerations. */
export function validateTolerations(r: Reader, tolerations: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const { item: t, index } of r.objList(tolerations, path)) {
    const ip = path.index(index);
    const key = r.str(t.key, ip.child("key")) ?? "";
    const op = r.str(t.operator, ip.child("operator")) ?? "";
    const value = r.str(t.value, ip.child("value")) ?? "";
    const effect = r.str(t.effect, ip.child("effect")) ?? "";
    if (key) errs.push(...validateLabelName(key, ip.child("key")));
    if (!key && op !== "Exists")
      errs.push(invalid(ip.child("operator"), op, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && effect !== "NoExecute")
      errs.push(invalid(ip.child("effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    if (op === "Equal" || op === "") {
      const msgs = isValidLabelValue(value);
      if (msgs.length) errs.push(invalid(ip.child("operator"), value, msgs.join(";")));
    } else if (op === "Exists") {
      if (value) errs.push(invalid(ip.child("operator"), t, "value must be empty when `operator` is 'Exists'"));
    } else errs.push(notSupported(ip.child("operator"), op, ["Equal", "Exists"]));
    if (effect && !["NoSchedule", "PreferNoSchedule", "NoExecute"].includes(effect))
      errs.push(notSupported(ip.child("effect"), effect, ["NoSchedule", "PreferNoSchedule", "NoExecute"]));
  }
  return errs;
}

/** validateTopologySpread checks spec.topologySpreadConstraints. */
export function validateTopologySpread(r: Reader, constraints: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const list = r.objList(constraints, path);
  list.forEach(({ item: c, index }, i) => {
    const sp = path.index(index);
    const maxSkew = r.int32(c.maxSkew, sp.child("maxSkew")) ?? 0;
    if (maxSkew <= 0) errs.push(invalid(sp.child("maxSkew"), maxSkew, "must be greater than zero"));
    const key = r.str(c.topologyKey, sp.child("topologyKey")) ?? "";
    if (!key) errs.push(required(sp.child("topologyKey"), "can not be empty"));
    const when = r.str(c.whenUnsatisfiable, sp.child("whenUnsatisfiable")) ?? "";
    if (when !== "DoNotSchedule" && when !== "ScheduleAnyway")
      errs.push(notSupported(sp.child("whenUnsatisfiable"), when, ["DoNotSchedule", "ScheduleAnyway"]));
    if (list.slice(i + 1).some(({ item }) => item.topologyKey === c.topologyKey && item.whenUnsatisfiable === c.whenUnsatisfiable))
      errs.push(duplicate(sp.child("{topologyKey, whenUnsatisfiable}"), `{${key}, ${when}}`));
    if (c.labelSelector !== undefined && c.labelSelector !== null) errs.push(...validateLabelSelector(c.labelSelector, sp.child("labelSelector")));
  });
  return errs;
}
