// Structural schemas of CRDs as apiextensions-apiserver applies them to custom resources:
// defaulting, pruning of unknown fields, and OpenAPI validation with kube-openapi's messages
// (`spec.replicas in body should be greater than or equal to 0`).

import { GoSyntax, invalid, notSupported, required, type FieldError } from "../errors.ts";
import { clone, isObject, type Obj } from "../json.ts";

/** Schema is the subset of JSONSchemaProps a structural schema uses. */
export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
}

const ROOT_KEEP = new Set(["apiVersion", "kind", "metadata"]);

function childSchema(s: Schema, key: string): Schema | undefined {
  if (s.properties?.[key]) return s.properties[key];
  if (isObject(s.additionalProperties)) return s.additionalProperties as Schema;
  return undefined;
}

/** applyDefaults fills `default`s of missing properties, recursively, in place. */
export function applyDefaults(value: unknown, s: Schema): void {
  if (Array.isArray(value)) {
    if (s.items) for (const v of value) applyDefaults(v, s.items);
    return;
  }
  if (!isObject(value)) return;
  for (const [k, ps] of Object.entries(s.properties ?? {})) {
    if (value[k] === undefined && ps.default !== undefined) value[k] = clone(ps.default);
  }
  for (const [k, v] of Object.entries(value)) {
    const cs = childSchema(s, k);
    if (cs) applyDefaults(v, cs);
  }
}

/** prune drops fields the schema does not specify (unless it preserves unknown fields), in place. */
export function prune(value: unknown, s: Schema, root = false): void {
  if (Array.isArray(value)) {
    if (s.items) for (const v of value) prune(v, s.items);
    return;
  }
  if (!isObject(value)) return;
  const preserve = s["x-kubernetes-preserve-unknown-fields"] === true;
  for (const k of Object.keys(value)) {
    if (root && ROOT_KEEP.has(k)) continue;
    const cs = childSchema(s, k);
    if (cs) prune(value[k], cs);
    else if (!preserve) delete value[k];
  }
}

function typeOk(v: unknown, s: Schema): boolean {
  if (s["x-kubernetes-int-or-string"]) return typeof v === "string" || Number.isInteger(v);
  switch (s.type) {
    case "integer":
      return Number.isInteger(v);
    case "number":
      return typeof v === "number";
    case "string":
      return typeof v === "string";
    case "boolean":
      return typeof v === "boolean";
    case "object":
      return isObject(v);
    case "array":
      return Array.isArray(v);
    default:
      return true;
  }
}

/** validate checks a value against a schema; path is the field path (`spec.replicas`). */
function validate(v: unknown, s: Schema, path: string): FieldError[] {
  if (v === null) return s.nullable || !s.type ? [] : [invalid(path, null, `${path} in body must be of type ${s.type}: "null"`)];
  if (!typeOk(v, s)) {
    const got = Array.isArray(v) ? "array" : isObject(v) ? "object" : Number.isInteger(v) ? "integer" : typeof v;
    const detail = `${path} in body must be of type ${s["x-kubernetes-int-or-string"] ? "integer,string" : s.type}: "${got}"`;
    return [invalid(path, new GoSyntax(JSON.stringify(got)), detail)];
  }
  const errs: FieldError[] = [];
  if (s.enum && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) errs.push(notSupported(path, v, s.enum.map(String)));
  if (typeof v === "number") {
    if (s.minimum !== undefined && (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum)) {
      errs.push(invalid(path, v, `${path} in body should be greater than ${s.exclusiveMinimum ? "" : "or equal to "}${s.minimum}`));
    }
    if (s.maximum !== undefined && (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum)) {
      errs.push(invalid(path, v, `${path} in body should be less than ${s.exclusiveMaximum ? "" : "or equal to "}${s.maximum}`));
    }
  }
  if (typeof v === "string") {
    if (s.minLength !== undefined && [...v].length < s.minLength) errs.push(invalid(path, v, `${path} in body should be at least ${s.minLength} chars long`));
    if (s.maxLength !== undefined && [...v].length > s.maxLength) errs.push({ type: "FieldValueTooLong", field: path, badValue: "", detail: `must have at most ${s.maxLength} characters` });
    if (s.pattern !== undefined && !new RegExp(s.pattern, "u").test(v)) errs.push(invalid(path, v, `${path} in body should match '${s.pattern}'`));
  }
  if (Array.isArray(v)) {
    if (s.minItems !== undefined && v.length < s.minItems) errs.push(invalid(path, v, `${path} in body should have at least ${s.minItems} items`));
    if (s.maxItems !== undefined && v.length > s.maxItems) errs.push({ type: "FieldValueTooMany", field: path, badValue: v.length, detail: `must have at most ${s.maxItems} items` });
    if (s.items) v.forEach((x, i) => errs.push(...validate(x, s.items!, `${path}[${i}]`)));
  }
  if (isObject(v)) {
    for (const r of s.required ?? []) if (v[r] === undefined) errs.push(required(path ? `${path}.${r}` : r));
    for (const [k, x] of Object.entries(v)) {
      const cs = childSchema(s, k);
      if (cs) errs.push(...validate(x, cs, path ? `${path}.${k}` : k));
    }
  }
  return errs;
}

/** validateRoot validates a custom resource against its openAPIV3Schema (metadata is the apiserver's). */
export function validateRoot(obj: Obj, s: Schema): FieldError[] {
  const errs: FieldError[] = [];
  for (const r of s.required ?? []) if (obj[r] === undefined) errs.push(required(r));
  for (const [k, v] of Object.entries(obj)) {
    if (ROOT_KEEP.has(k)) continue;
    const cs = childSchema(s, k);
    if (cs) errs.push(...validate(v, cs, k));
  }
  return errs;
}
