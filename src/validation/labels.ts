/**
 * Labels and label selectors: ValidateLabels / ValidateLabelSelector of
 * apimachinery/pkg/apis/meta/v1/validation, LabelSelectorAsSelector of metav1, and the matching and
 * canonical string form of apimachinery/pkg/labels (selector.go).
 *
 * Current upstream validates matchExpressions values as label values (1.20 did not).
 */
import { type FieldError, FieldPath, forbidden, invalid, required } from "./field-error.ts";
import { byteOrder } from "./go-format.ts";
import { Reader } from "./json.ts";
import { isQualifiedName, isValidLabelValue } from "./names.ts";

interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

type P = FieldPath | string;
const asPath = (p: P): FieldPath => (typeof p === "string" ? FieldPath.root(p) : p);

/** validateLabelName checks a label key (qualified name); errors are reported at `path` itself. */
export function validateLabelName(name: string, path: P): FieldError[] {
  return isQualifiedName(name).map((msg) => invalid(asPath(path), name, msg));
}

/** validateLabels checks every key and value; like upstream, errors carry the map's path, not a key. */
export function validateLabels(labels: Record<string, string> | undefined, path: P): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    errs.push(...validateLabelName(k, path));
    for (const msg of isValidLabelValue(v)) errs.push(invalid(asPath(path), v, msg));
  }
  return errs;
}

/**
 * validateLabelSelector is ValidateLabelSelector with AllowInvalidLabelValueInSelector=false (what
 * workloads use). The selector is untyped: wrong types are reported, never thrown.
 */
export function validateLabelSelector(selector: unknown, path: P): FieldError[] {
  const p = asPath(path);
  const r = new Reader();
  const sel = r.obj(selector, p);
  const errs: FieldError[] = [];
  if (sel) {
    errs.push(...validateLabels(r.strMap(sel.matchLabels, p.child("matchLabels")), p.child("matchLabels")));
    for (const { item, index } of r.objList(sel.matchExpressions, p.child("matchExpressions"))) {
      const ep = p.child("matchExpressions").index(index);
      const op = r.str(item.operator, ep.child("operator")) ?? "";
      const values = r.strList(item.values, ep.child("values")) ?? [];
      switch (op) {
        case "In":
        case "NotIn":
          if (values.length === 0) errs.push(required(ep.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"));
          break;
        case "Exists":
        case "DoesNotExist":
          if (values.length > 0) errs.push(forbidden(ep.child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
          break;
        default:
          errs.push(invalid(ep.child("operator"), op, "not a valid selector operator"));
      }
      errs.push(...validateLabelName(r.str(item.key, ep.child("key")) ?? "", ep.child("key")));
      values.forEach((v, i) => {
        for (const msg of isValidLabelValue(v)) errs.push(invalid(ep.child("values").index(i), v, msg));
      });
    }
  }
  return [...r.errors, ...errs];
}

/** A parsed selector requirement (labels.Requirement). */
export interface Requirement {
  key: string;
  operator: "=" | "in" | "notin" | "exists" | "!";
  values: string[];
}

/**
 * labelSelectorAsRequirements is metav1.LabelSelectorAsSelector: `nothing` for an absent selector,
 * `everything` for an empty one, else the requirements sorted by key, or an error message when a
 * key, value or operator is invalid.
 */
export function labelSelectorAsRequirements(
  selector: LabelSelector | undefined | null,
): { kind: "nothing" } | { kind: "everything" } | { kind: "requirements"; requirements: Requirement[] } | { kind: "error"; error: string } {
  if (selector === undefined || selector === null) return { kind: "nothing" };
  const ml = selector.matchLabels ?? {};
  const me = selector.matchExpressions ?? [];
  if (Object.keys(ml).length + me.length === 0) return { kind: "everything" };
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(ml)) {
    const err = requirementError(k, "=", [v]);
    if (err) return { kind: "error", error: err };
    reqs.push({ key: k, operator: "=", values: [v] });
  }
  for (const expr of me) {
    const op = OPERATORS.get(expr.operator);
    if (!op) return { kind: "error", error: `"${expr.operator}" is not a valid label selector operator` };
    const values = [...(expr.values ?? [])];
    const err = requirementError(expr.key, op, values);
    if (err) return { kind: "error", error: err };
    reqs.push({ key: expr.key, operator: op, values });
  }
  reqs.sort((a, b) => byteOrder(a.key, b.key));
  return { kind: "requirements", requirements: reqs };
}

const OPERATORS = new Map<string, Requirement["operator"]>([
  ["In", "in"],
  ["NotIn", "notin"],
  ["Exists", "exists"],
  ["DoesNotExist", "!"],
]);

function requirementError(key: string, op: Requirement["operator"], values: string[]): string | undefined {
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length) return `key: Invalid value: "${key}": ${keyErrs.join("; ")}`;
  if ((op === "in" || op === "notin") && values.length === 0) return "for 'in', 'notin' operators, values set can't be empty";
  if (op === "=" && values.length !== 1) return "exact-match compatibility requires one single value";
  if ((op === "exists" || op === "!") && values.length !== 0) return "values set must be empty for exists and does not exist";
  for (const v of values) {
    const errs = isValidLabelValue(v);
    if (errs.length) return `values: Invalid value: "${v}": ${errs.join("; ")}`;
  }
  return undefined;
}

function requirementMatches(r: Requirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  switch (r.operator) {
    case "=":
    case "in":
      return has && r.values.includes(labels[r.key]);
    case "notin":
      return !has || !r.values.includes(labels[r.key]);
    case "exists":
      return has;
    case "!":
      return !has;
  }
}

/** A compiled label selector: true when the labels match. */
export type LabelMatcher = (labels: Record<string, string> | undefined | null) => boolean;

/**
 * compileSelector parses and validates the selector once and returns its matcher, with metav1
 * semantics: an absent selector matches nothing, an empty one everything, an invalid one nothing.
 * Use it when one selector is tested against many objects (a reconcile pass).
 */
export function compileSelector(selector: LabelSelector | undefined | null): LabelMatcher {
  const parsed = labelSelectorAsRequirements(selector);
  switch (parsed.kind) {
    case "nothing":
    case "error":
      return () => false;
    case "everything":
      return () => true;
    case "requirements": {
      const reqs = parsed.requirements;
      return (labels) => reqs.every((r) => requirementMatches(r, labels ?? {}));
    }
  }
}

/** selectorMatches is compileSelector(selector)(labels), for one-off checks. */
export function selectorMatches(selector: LabelSelector | undefined | null, labels: Record<string, string> | undefined | null): boolean {
  return compileSelector(selector)(labels);
}

function requirementString(r: Requirement): string {
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort(byteOrder).join(",");
  switch (r.operator) {
    case "=":
      return `${r.key}=${values}`;
    case "in":
      return `${r.key} in (${values})`;
    case "notin":
      return `${r.key} notin (${values})`;
    case "exists":
      return r.key;
    case "!":
      return `!${r.key}`;
  }
}

/**
 * selectorToString is labels.Selector.String(): requirements sorted by key, joined by commas, e.g.
 * `app=web,tier in (a,b)`. Empty for an absent, empty or invalid selector (as upstream prints
 * Everything() and Nothing()).
 */
export function selectorToString(selector: LabelSelector | undefined | null): string {
  const parsed = labelSelectorAsRequirements(selector);
  return parsed.kind === "requirements" ? parsed.requirements.map(requirementString).join(",") : "";
}
