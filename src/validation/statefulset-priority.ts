/**
 * spec.updateStrategy.rollingUpdate.unorderedUpdate of an Ordinal StatefulSet (OpenKruise's
 * priorityStrategy, src/core/update-order.ts). Rules:
 * - unorderedUpdate has only priorityStrategy, and priorityStrategy only weightPriority and
 *   orderPriority (anything else is refused by name: the CRD would drop it silently);
 * - exactly one form: both set is refused (Kruise: "only one of weightPriority and orderPriority"),
 *   neither (an empty priorityStrategy, or empty lists) too: it would order nothing;
 * - at most MAX_PRIORITY_TERMS terms per form;
 * - weightPriority: weight an int32 from 0 to 100; matchSelector required, a valid label selector
 *   (the apiserver's rules and words), and not empty: an empty selector matches every pod, so its
 *   weight would change no pod's place (almost always a mistake);
 * - orderPriority: orderedKey a valid label key, no key twice (the second is never reached).
 */
import type { FieldPath } from "./field-error.ts";
import { type FieldError, duplicate, forbidden, invalid, required, tooMany } from "./field-error.ts";
import { type Reader, isObject } from "./json.ts";
import { validateLabelName, validateLabelSelector } from "./labels.ts";
import { MAX_PRIORITY_TERMS } from "../api/statefulset.ts";

const FORMS = ["weightPriority", "orderPriority"];

/** validateUnorderedUpdate returns what is wrong with rollingUpdate.unorderedUpdate (`v`, untyped), every problem at once. */
export function validateUnorderedUpdate(r: Reader, v: unknown, p: FieldPath): FieldError[] {
  const uu = r.obj(v, p);
  if (!uu) return [];
  const errs: FieldError[] = [];
  for (const key of Object.keys(uu)) if (key !== "priorityStrategy") errs.push(forbidden(p.child(key), "not supported: unorderedUpdate has priorityStrategy only"));
  const pp = p.child("priorityStrategy");
  const ps = r.obj(uu.priorityStrategy, pp);
  if (!ps) return errs;
  for (const key of Object.keys(ps)) if (!FORMS.includes(key)) errs.push(forbidden(pp.child(key), `not supported: priorityStrategy has ${FORMS.join(" or ")}`));
  const weights = r.arr(ps.weightPriority, pp.child("weightPriority")) ?? [];
  const orders = r.arr(ps.orderPriority, pp.child("orderPriority")) ?? [];
  if (weights.length && orders.length) errs.push(forbidden(pp, "only one of weightPriority and orderPriority may be set"));
  else if (!weights.length && !orders.length) errs.push(required(pp, "one of weightPriority or orderPriority (non-empty) is required"));
  errs.push(...validateWeights(r, weights, pp.child("weightPriority")));
  errs.push(...validateOrders(r, orders, pp.child("orderPriority")));
  return errs;
}

/** validateWeights checks weightPriority's terms. */
function validateWeights(r: Reader, terms: unknown[], p: FieldPath): FieldError[] {
  if (terms.length > MAX_PRIORITY_TERMS) return [tooMany(p, terms.length, MAX_PRIORITY_TERMS)];
  const errs: FieldError[] = [];
  for (const { item, index } of r.objList(terms, p)) {
    const tp = p.index(index);
    const weight = r.int32(item.weight, tp.child("weight"));
    if (item.weight === undefined || item.weight === null) errs.push(required(tp.child("weight")));
    else if (weight !== undefined && (weight < 0 || weight > 100)) errs.push(invalid(tp.child("weight"), weight, "must be between 0 and 100, inclusive"));
    const sp = tp.child("matchSelector");
    const sel = r.obj(item.matchSelector, sp);
    if (!sel) {
      if (item.matchSelector === undefined || item.matchSelector === null) errs.push(required(sp));
      continue;
    }
    errs.push(...validateLabelSelector(sel, sp));
    const terms = (isObject(sel.matchLabels) ? Object.keys(sel.matchLabels).length : 0) + (Array.isArray(sel.matchExpressions) ? sel.matchExpressions.length : 0);
    if (terms === 0) errs.push(invalid(sp, sel, "empty selector: it matches every pod, so its weight orders nothing"));
  }
  return errs;
}

/** validateOrders checks orderPriority's terms. */
function validateOrders(r: Reader, terms: unknown[], p: FieldPath): FieldError[] {
  if (terms.length > MAX_PRIORITY_TERMS) return [tooMany(p, terms.length, MAX_PRIORITY_TERMS)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const { item, index } of r.objList(terms, p)) {
    const kp = p.index(index).child("orderedKey");
    const key = r.str(item.orderedKey, kp);
    if (key === undefined) {
      if (item.orderedKey === undefined || item.orderedKey === null) errs.push(required(kp));
      continue;
    }
    errs.push(...validateLabelName(key, kp));
    if (seen.has(key)) errs.push(duplicate(kp, key));
    seen.add(key);
  }
  return errs;
}
