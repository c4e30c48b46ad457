// Small helpers for plain JSON values (objects decoded from request bodies and stored objects).

import { sortKeys } from "../../core/hash.ts";
import { isObject } from "../../validation/json.ts";

/** A JSON object as the apiserver stores it. */
export type Obj = Record<string, unknown>;

/** isObject (the product's) reports whether v is a plain JSON object (not null, not an array). */
export { isObject };

/** clone returns a deep copy of a JSON value. */
export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** deepEqual compares two JSON values structurally; key order does not matter. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Obj;
  const bo = b as Obj;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  if (ak.length !== bk.length) return false;
  for (const k of ak) if (!deepEqual(ao[k], bo[k])) return false;
  return true;
}

/** getIn reads obj[path[0]][path[1]]...; undefined when any step is missing. */
export function getIn(obj: unknown, path: readonly string[]): unknown {
  let cur = obj;
  for (const p of path) {
    if (!isObject(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

/** setIn writes a value at path, creating intermediate objects. */
export function setIn(obj: Obj, path: readonly string[], value: unknown): void {
  let cur = obj;
  for (let i = 0; i < path.length - 1; i++) {
    const next = cur[path[i]!];
    if (!isObject(next)) cur[path[i]!] = {};
    cur = cur[path[i]!] as Obj;
  }
  cur[path[path.length - 1]!] = value;
}

/** objectAt returns obj[key] when it is an object, creating an empty one when absent. */
export function objectAt(obj: Obj, key: string): Obj {
  const v = obj[key];
  if (isObject(v)) return v;
  const created: Obj = {};
  obj[key] = created;
  return created;
}

/** objectsIn returns the objects of a list (none when v is not a list). */
export function objectsIn(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

/** metaOf returns an object's metadata, creating it when absent. */
export const metaOf = (o: Obj): Obj => objectAt(o, "metadata");

/** finalizersOf lists metadata.finalizers. */
export function finalizersOf(o: Obj): string[] {
  const f = metaOf(o).finalizers;
  return Array.isArray(f) ? f.map(str) : [];
}

/** setFinalizers writes metadata.finalizers, dropping the field when the list is empty. */
export function setFinalizers(o: Obj, finalizers: string[]): void {
  if (finalizers.length > 0) metaOf(o).finalizers = finalizers;
  else delete metaOf(o).finalizers;
}

/** fillNull sets the listed fields of every condition to null when absent (zero metav1.Time encodes as null). */
export function fillNull(conditions: unknown, ...fields: string[]): void {
  for (const c of objectsIn(conditions)) for (const f of fields) c[f] ??= null;
}

/** encodeBase64 encodes a UTF-8 string with Web APIs only. */
export function encodeBase64(s: string): string {
  let bin = "";
  for (const b of new TextEncoder().encode(s)) bin += String.fromCharCode(b);
  return btoa(bin);
}

const META_ORDER = [
  "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation", "creationTimestamp",
  "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences", "finalizers",
];

/** canonicalOrder orders keys as the apiserver writes them: Go struct order for built-ins, sorted for custom resources. */
export function canonicalOrder(o: Obj, custom: boolean): Obj {
  if (custom) return sortKeys(o) as Obj;
  const meta = metaOf(o);
  const ordered: Obj = {};
  for (const k of META_ORDER) if (meta[k] !== undefined) ordered[k] = meta[k];
  for (const [k, v] of Object.entries(meta)) if (!(k in ordered)) ordered[k] = v;
  const { kind, apiVersion, metadata: _m, ...rest } = o;
  return { kind, apiVersion, metadata: ordered, ...rest };
}

/** str returns v when it is a string, else ''. */
export function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}
