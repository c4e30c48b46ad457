/**
 * Typed reads of untyped JSON (an AdmissionReview's object) that never throw: a value of the wrong
 * type is recorded as a FieldValueTypeInvalid error worded like the apiserver's schema validation
 * (`spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`)
 * and read as absent, so validation can go on and report everything at once.
 */
import { type FieldError, type FieldPath, invalid, typeInvalid } from "./field-error.ts";

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** jsonType names a value's JSON type the way the OpenAPI validator does. */
export function jsonType(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** Reader collects type errors while reading. */
export class Reader {
  readonly errors: FieldError[] = [];

  private wrong(v: unknown, path: FieldPath, expected: string): undefined {
    const actual = jsonType(v);
    this.errors.push(typeInvalid(path, actual, `${path.toString()} in body must be of type ${expected}: ${JSON.stringify(actual)}`));
    return undefined;
  }

  /** obj reads an object; null/undefined read as undefined. */
  obj(v: unknown, path: FieldPath): JsonObject | undefined {
    if (v === undefined || v === null) return undefined;
    return isObject(v) ? v : this.wrong(v, path, "object");
  }

  arr(v: unknown, path: FieldPath): unknown[] | undefined {
    if (v === undefined || v === null) return undefined;
    return Array.isArray(v) ? v : this.wrong(v, path, "array");
  }

  str(v: unknown, path: FieldPath): string | undefined {
    if (v === undefined || v === null) return undefined;
    return typeof v === "string" ? v : this.wrong(v, path, "string");
  }

  bool(v: unknown, path: FieldPath): boolean | undefined {
    if (v === undefined || v === null) return undefined;
    return typeof v === "boolean" ? v : this.wrong(v, path, "boolean");
  }

  /** int32 reads an integer in int32 range (larger values are reported as the schema reports them). */
  int32(v: unknown, path: FieldPath): number | undefined {
    const n = this.int64(v, path);
    if (n === undefined) return undefined;
    if (n > INT32_MAX) {
      this.errors.push(invalid(path, n, `${path.toString()} in body should be less than or equal to ${INT32_MAX}`));
      return undefined;
    }
    if (n < INT32_MIN) {
      this.errors.push(invalid(path, n, `${path.toString()} in body should be greater than or equal to ${INT32_MIN}`));
      return undefined;
    }
    return n;
  }

  int64(v: unknown, path: FieldPath): number | undefined {
    if (v === undefined || v === null) return undefined;
    return typeof v === "number" && Number.isInteger(v) ? v : this.wrong(v, path, "integer");
  }

  /** strMap reads a map of strings (labels, annotations, selectors); bad entries are reported and skipped. */
  strMap(v: unknown, path: FieldPath): Record<string, string> | undefined {
    const o = this.obj(v, path);
    if (!o) return undefined;
    const out: Record<string, string> = {};
    for (const [k, val] of Object.entries(o)) {
      const s = this.str(val, path.key(k));
      if (s !== undefined) out[k] = s;
    }
    return out;
  }

  /** strList reads an array of strings; non-string items are reported and skipped. */
  strList(v: unknown, path: FieldPath): string[] | undefined {
    const a = this.arr(v, path);
    if (!a) return undefined;
    const out: string[] = [];
    a.forEach((item, i) => {
      const s = this.str(item, path.index(i));
      if (s !== undefined) out.push(s);
    });
    return out;
  }

  /** intOrString reads an IntOrString (maxUnavailable, probe ports). */
  intOrString(v: unknown, path: FieldPath): number | string | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v === "string") return v;
    if (typeof v === "number" && Number.isInteger(v)) return v;
    return this.wrong(v, path, "integer or string");
  }

  /** objList reads an array of objects, giving each with its index; bad items are reported and skipped. */
  objList(v: unknown, path: FieldPath): Array<{ item: JsonObject; index: number }> {
    const a = this.arr(v, path) ?? [];
    const out: Array<{ item: JsonObject; index: number }> = [];
    a.forEach((item, index) => {
      const o = this.obj(item, path.index(index));
      if (o) out.push({ item: o, index });
      else if (item === null || item === undefined) out.push({ item: {}, index });
    });
    return out;
  }
}
