/**
 * Field-level validation errors, after k8s.io/apimachinery/pkg/util/validation/field (errors.go,
 * path.go). The types, constructors, path strings and message bodies are those of current
 * upstream, so `formatFieldError` prints exactly what the apiserver prints, e.g.
 * `spec.replicas: Invalid value: -1: must be greater than or equal to 0`.
 *
 * Differences from 1.20 that we follow (current upstream):
 * - ErrorBody renders non-scalar bad values with encoding/json (1.20 used `%#v`).
 * - TooLong says "may not be more than N bytes" and omits the value (1.20: "must have at most").
 * - FieldValueTypeInvalid exists (prints as "Invalid value").
 */

import { goFloat, goJSON, goQuote } from "./go-format.ts";

export type FieldErrorType =
  | "FieldValueNotFound"
  | "FieldValueRequired"
  | "FieldValueDuplicate"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "InternalError"
  | "FieldValueTypeInvalid";

export interface FieldError {
  type: FieldErrorType;
  /** The field path as field.Path.String() prints it: `spec.containers[0].name`, `metadata.labels[a/b]`. */
  field: string;
  badValue?: unknown;
  detail: string;
}

/** OMIT is the bad value that makes the body print no value (upstream's omitValue). */
export const OMIT: unique symbol = Symbol("omit");

/**
 * FieldPath builds field paths the way field.Path does; immutable, each step returns a new path
 * that points at its parent: one small object per step at any depth (validators build a path for
 * every field they read, errors or not), and toString walks the chain once.
 */
export class FieldPath {
  private constructor(
    private readonly parent: FieldPath | undefined,
    /** An index or key (printed in brackets) rather than a name. */
    private readonly isIndex: boolean,
    private readonly text: string,
  ) {}

  /** root starts a path: `FieldPath.root("spec", "template")` is `spec.template`. */
  static root(name: string, ...more: string[]): FieldPath {
    const p = new FieldPath(undefined, false, name);
    return more.length === 0 ? p : p.child(...more);
  }

  child(...names: string[]): FieldPath {
    if (names.length === 0) return this;
    let p = new FieldPath(this, false, names[0]);
    for (let i = 1; i < names.length; i++) p = new FieldPath(p, false, names[i]);
    return p;
  }

  index(i: number): FieldPath {
    return new FieldPath(this, true, String(i));
  }

  key(k: string): FieldPath {
    return new FieldPath(this, true, k);
  }

  /** toString prints like Go: names joined by dots, indexes and keys in brackets, no quoting. */
  toString(): string {
    const steps: FieldPath[] = [this];
    for (let p = this.parent; p !== undefined; p = p.parent) steps.push(p);
    let out = "";
    for (let i = 0; i < steps.length; i++) {
      const e = steps[steps.length - 1 - i];
      if (!e.isIndex && e.text.length > 0) {
        if (i > 0) out += ".";
        out += e.text;
      } else {
        out += `[${e.isIndex ? e.text : ""}]`;
      }
    }
    return out;
  }
}

/** fieldPath is shorthand for FieldPath.root. */
export const fieldPath = (name: string, ...more: string[]): FieldPath => FieldPath.root(name, ...more);

type P = FieldPath | string;
const str = (p: P): string => (typeof p === "string" ? p : p.toString());

export function required(path: P, detail = ""): FieldError {
  return { type: "FieldValueRequired", field: str(path), badValue: "", detail };
}

export function invalid(path: P, value: unknown, detail: string): FieldError {
  return { type: "FieldValueInvalid", field: str(path), badValue: value, detail };
}

/** typeInvalid reports a value of the wrong JSON type (printed as "Invalid value"). */
export function typeInvalid(path: P, value: unknown, detail: string): FieldError {
  return { type: "FieldValueTypeInvalid", field: str(path), badValue: value, detail };
}

export function notSupported(path: P, value: unknown, validValues: readonly string[]): FieldError {
  const detail = validValues.length > 0 ? "supported values: " + validValues.map(goQuote).join(", ") : "";
  return { type: "FieldValueNotSupported", field: str(path), badValue: value, detail };
}

export function forbidden(path: P, detail: string): FieldError {
  return { type: "FieldValueForbidden", field: str(path), badValue: "", detail };
}

export function duplicate(path: P, value: unknown): FieldError {
  return { type: "FieldValueDuplicate", field: str(path), badValue: value, detail: "" };
}

export function notFound(path: P, value: unknown): FieldError {
  return { type: "FieldValueNotFound", field: str(path), badValue: value, detail: "" };
}

export function tooLong(path: P, maxLength: number): FieldError {
  const detail = maxLength >= 0 ? `may not be more than ${maxLength} ${maxLength === 1 ? "byte" : "bytes"}` : "value is too long";
  return { type: "FieldValueTooLong", field: str(path), badValue: "<value omitted>", detail };
}

export function tooMany(path: P, actual: number, max: number): FieldError {
  const detail = max >= 0 ? `must have at most ${max} ${max === 1 ? "item" : "items"}` : "has too many items";
  return { type: "FieldValueTooMany", field: str(path), badValue: actual >= 0 ? actual : OMIT, detail };
}

export function internalError(path: P, err: unknown): FieldError {
  const detail = err instanceof Error ? err.message : String(err);
  return { type: "InternalError", field: str(path), badValue: detail, detail };
}

const TYPE_STRINGS: Record<FieldErrorType, string> = {
  FieldValueNotFound: "Not found",
  FieldValueRequired: "Required value",
  FieldValueDuplicate: "Duplicate value",
  FieldValueInvalid: "Invalid value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueForbidden: "Forbidden",
  FieldValueTooLong: "Too long",
  FieldValueTooMany: "Too many",
  InternalError: "Internal error",
  FieldValueTypeInvalid: "Invalid value",
};

/** showsValue: whether errorBody prints the bad value (not for these types, nor for OMIT). */
function showsValue(e: FieldError): boolean {
  switch (e.type) {
    case "FieldValueRequired":
    case "FieldValueForbidden":
    case "FieldValueTooLong":
    case "InternalError":
      return false;
    default:
      return e.badValue !== OMIT;
  }
}

/**
 * errorBody is the message without the field, as Error.ErrorBody() prints it; `formatValue` prints
 * the bad value (an older apiserver's format, in the fake).
 */
export function errorBody(e: FieldError, formatValue: (v: unknown) => string = formatBadValue): string {
  let s = TYPE_STRINGS[e.type] ?? `<unknown error ${goQuote(String(e.type))}>`;
  if (showsValue(e)) s += `: ${formatValue(e.badValue)}`;
  if (e.detail.length > 0) s += `: ${e.detail}`;
  return s;
}

/** formatFieldError prints `<field>: <body>` exactly as the apiserver does. */
export function formatFieldError(e: FieldError): string {
  return `${e.field}: ${errorBody(e)}`;
}

/**
 * formatBadValue renders a bad value like upstream's ErrorBody: numbers and booleans plain, strings
 * quoted with Go's %q, anything else as encoding/json would (keys in the object's own order, so
 * callers that pass Go maps should pass them with sorted keys; see sortedMap).
 */
export function formatBadValue(v: unknown): string {
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : goFloat(v);
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "boolean") return String(v);
  if (typeof v === "string") return goQuote(v);
  return goJSON(v);
}

/**
 * sameBody is errorBody(a) === errorBody(b), without printing either when the parts decide it:
 * after the same type string and the same printed value, the bodies are equal exactly when the
 * details are. Anything else is decided on the printed bodies.
 */
function sameBody(a: FieldError, b: FieldError): boolean {
  const ta = TYPE_STRINGS[a.type];
  if (ta !== undefined && ta === TYPE_STRINGS[b.type]) {
    const va = showsValue(a);
    if (va === showsValue(b)) {
      const sameValue =
        !va ||
        a.badValue === b.badValue ||
        (typeof a.badValue !== "string" && typeof b.badValue !== "string" && formatBadValue(a.badValue) === formatBadValue(b.badValue));
      if (sameValue) return a.detail === b.detail;
    }
  }
  return errorBody(a) === errorBody(b);
}

/**
 * ErrorSet de-duplicates field errors in linear time: filed by field, and within a field (from
 * its second error on) by a key of the error's bad value; `same` decides within one key. Long
 * strings are not joined into keys: a bad value is a key itself (its hash is computed once per
 * string), and a field with one error costs one map entry.
 */
export class ErrorSet {
  private readonly byField = new Map<string, FieldError | Map<unknown, FieldError[]>>();

  /**
   * @param keyOf the bucket of an error within its field (compared as Map keys are).
   * @param same whether two errors of one field and key are the same (errors of different keys never are).
   */
  constructor(
    private readonly keyOf: (e: FieldError) => unknown,
    private readonly same: (a: FieldError, b: FieldError) => boolean,
  ) {}

  /** add records `e` and returns true, or returns false when an error the same as `e` was added before. */
  add(e: FieldError): boolean {
    const at = this.byField.get(e.field);
    if (at === undefined) {
      this.byField.set(e.field, e);
      return true;
    }
    const key = this.keyOf(e);
    let buckets: Map<unknown, FieldError[]>;
    if (at instanceof Map) buckets = at;
    else {
      const atKey = this.keyOf(at);
      if ((atKey === key || (atKey !== atKey && key !== key)) && this.same(at, e)) return false;
      buckets = new Map([[atKey, [at]]]);
      this.byField.set(e.field, buckets);
    }
    const bucket = buckets.get(key);
    if (bucket === undefined) buckets.set(key, [e]);
    else if (bucket.some((x) => this.same(x, e))) return false;
    else bucket.push(e);
    return true;
  }
}

/** The bucket key of a printed bad value: the string itself (goQuote is one-to-one), else its printed form. */
const valueKey = (e: FieldError): unknown => (!showsValue(e) ? OMIT : typeof e.badValue === "string" ? e.badValue : `\u0000${formatBadValue(e.badValue)}`);

/**
 * uniqueByMessage returns the errors whose formatFieldError message no earlier error printed
 * (ToAggregate's de-duplication), in order; linear, and printing only what it must.
 *
 * A message is `field: body`. When the field has no ": " in it the message's first ": " is right
 * after the field, so two such messages are equal exactly when the fields and the bodies are; and
 * equal bodies have the same type string, printed value and detail (a quoted string, a number or
 * JSON text cannot be continued by ": " into another). So errors are filed by field and value
 * (ErrorSet) and compared only within their bucket (sameBody). A field with ": " in it (a user's map
 * key) is cut like a message instead, and its body compared as text with the bodies of its head.
 */
export function uniqueByMessage(errors: readonly FieldError[]): FieldError[] {
  const plain = new ErrorSet(valueKey, sameBody);
  /** Per head with cut messages: their bodies, and the bodies of the plain errors of that head. */
  const cut = new Map<string, { cutBodies: Set<string>; plainBodies: Set<string> }>();
  const plainByHead = new Map<string, FieldError[]>();
  const out: FieldError[] = [];
  for (const e of errors) {
    if (!e.field.includes(": ")) {
      const c = cut.get(e.field);
      const body = c ? errorBody(e) : "";
      if (c?.cutBodies.has(body) || !plain.add(e)) continue;
      c?.plainBodies.add(body);
      const same = plainByHead.get(e.field);
      if (same) same.push(e);
      else plainByHead.set(e.field, [e]);
      out.push(e);
      continue;
    }
    const msg = formatFieldError(e);
    const at = msg.indexOf(": ");
    const head = msg.slice(0, at);
    const body = msg.slice(at + 2);
    let c = cut.get(head);
    if (!c) cut.set(head, (c = { cutBodies: new Set(), plainBodies: new Set((plainByHead.get(head) ?? []).map((e) => errorBody(e))) }));
    if (c.cutBodies.has(body) || c.plainBodies.has(body)) continue;
    c.cutBodies.add(body);
    out.push(e);
  }
  return out;
}

/**
 * aggregateMessage is errors.NewAggregate(list).Error() after ToAggregate's de-duplication: one
 * message alone, several in brackets joined by ", ", identical messages once.
 */
export function aggregateMessage(errors: readonly FieldError[]): string {
  const list = uniqueByMessage(errors).map(formatFieldError);
  if (list.length === 0) return "";
  if (list.length === 1) return list[0];
  return `[${list.join(", ")}]`;
}

/** qualifiedKind is schema.GroupKind.String(): `StatefulSet.apps`, or the bare kind for the core group. */
export function qualifiedKind(kind: string, group: string): string {
  return group ? `${kind}.${group}` : kind;
}

/**
 * formatInvalid is the Status message of apierrors.NewInvalid:
 * `StatefulSet.apps.ordinal.dev "web" is invalid: [err1, err2]` (one error: no brackets).
 * `kind` is the qualified kind (see qualifiedKind).
 */
export function formatInvalid(kind: string, name: string, errors: readonly FieldError[]): string {
  const agg = aggregateMessage(errors);
  return agg ? `${kind} ${goQuote(name)} is invalid: ${agg}` : `${kind} ${goQuote(name)} is invalid`;
}

/** StatusCause is the metav1.StatusCause the apiserver puts in status.details.causes for each error. */
export interface StatusCause {
  reason: FieldErrorType;
  message: string;
  field: string;
}

/** toStatusCauses returns the details.causes of the 422 Status for these errors. */
export function toStatusCauses(errors: readonly FieldError[]): StatusCause[] {
  return errors.map((e) => ({ reason: e.type, message: errorBody(e), field: e.field }));
}
