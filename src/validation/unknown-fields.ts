import { KNOWN_FIELDS } from "./known-fields.ts";
import { isObject } from "./json.ts";

/**
 * Typos in a template, found as the apiserver's strict decoding finds them in an apps/v1 object:
 * the CRD keeps spec.template and the claim templates as they are written
 * (x-kubernetes-preserve-unknown-fields), so without this `protocl: TCP` would be stored and
 * silently ignored. The field names come from Kubernetes' OpenAPI document (known-fields.ts,
 * generated); paths print as strict decoding prints them: `spec.template.spec.containers[0].ports[0].protocl`.
 */

/** A parsed row of KNOWN_FIELDS: field name → how its value is checked (undefined: not further). */
type Fields = Map<string, { type: string; shape: "object" | "list" | "map" } | undefined>;
const parsed = new Map<string, Fields>();

/** fieldsOf returns the fields of a known object type (parsed once). */
function fieldsOf(type: string): Fields {
  let f = parsed.get(type);
  if (f) return f;
  f = new Map();
  for (const entry of (KNOWN_FIELDS[type] ?? "").split(" ")) {
    const [name, t] = entry.split(":");
    if (t === undefined) f.set(name, undefined);
    else if (t.startsWith("[")) f.set(name, { type: t.slice(1, -1), shape: "list" });
    else if (t.startsWith("{")) f.set(name, { type: t.slice(1, -1), shape: "map" });
    else f.set(name, { type: t, shape: "object" });
  }
  parsed.set(type, f);
  return f;
}

/**
 * unknownFields appends to `out` the path of every field of `value` (an object of the known
 * `type`, at `path`) that the type does not have, depth first in document order, stopping at
 * `max` paths. Values of the wrong JSON type are left to validation (as strict decoding reports
 * them as other errors).
 */
function unknownFields(value: unknown, type: "V1PodTemplateSpec" | "V1PersistentVolumeClaim", path: string, out: string[], max: number): void {
  walk(value, type, path, out, max);
}

function walk(value: unknown, type: string, path: string, out: string[], max: number): void {
  if (!isObject(value)) return;
  const fields = fieldsOf(type);
  for (const [k, v] of Object.entries(value)) {
    if (out.length >= max) return;
    const at = path ? `${path}.${k}` : k;
    if (!fields.has(k)) {
      out.push(at);
      continue;
    }
    const f = fields.get(k);
    if (!f) continue;
    if (f.shape === "object") walk(v, f.type, at, out, max);
    else if (f.shape === "list" && Array.isArray(v)) v.forEach((item, i) => walk(item, f.type, `${at}[${i}]`, out, max));
    else if (f.shape === "map" && isObject(v)) for (const [key, item] of Object.entries(v)) walk(item, f.type, `${at}[${key}]`, out, max);
  }
}

/** The most unknown fields one answer names. */
const MAX_UNKNOWN_FIELDS = 20;

/**
 * templateUnknownFields returns the unknown fields of a StatefulSet's pod template and claim
 * templates (at most MAX_UNKNOWN_FIELDS). On an update, only fields the old object did not
 * already have count: a set stored with a typo before this check stays scalable and pausable.
 */
export function templateUnknownFields(obj: unknown, old?: unknown): string[] {
  const known = old === undefined ? undefined : new Set(collect(old, Infinity));
  const found = collect(obj, known ? Infinity : MAX_UNKNOWN_FIELDS);
  return known ? found.filter((p) => !known.has(p)).slice(0, MAX_UNKNOWN_FIELDS) : found;
}

function collect(obj: unknown, max: number): string[] {
  const out: string[] = [];
  const spec = isObject(obj) ? obj.spec : undefined;
  if (!isObject(spec)) return out;
  unknownFields(spec.template, "V1PodTemplateSpec", "spec.template", out, max);
  if (Array.isArray(spec.volumeClaimTemplates)) spec.volumeClaimTemplates.forEach((c, i) => unknownFields(c, "V1PersistentVolumeClaim", `spec.volumeClaimTemplates[${i}]`, out, max));
  return out;
}
