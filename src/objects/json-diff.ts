import { cloneJSON } from "./clone.ts";

/**
 * jsonDiff: the JSON Patch (RFC 6902) from one JSON document to another, operation for operation
 * what fast-json-patch's `compare` returns (its algorithm, ported; the Worker does not carry the
 * library, whose observer and apply code the bundle would keep). Checked against the library on
 * random documents (test/objects/json-diff.test.ts).
 */

export interface JsonDiffOperation {
  op: "add" | "remove" | "replace";
  path: string;
  value?: unknown;
}

/**
 * jsonDiff returns the operations that turn `from` into `to`: keys escaped per RFC 6901 (`/` →
 * `~1`, `~` → `~0`), keys of an object walked from last to first, then keys it lacks added whole;
 * array items replaced, removed from the end, appended; values copied (undefined as null).
 */
export function jsonDiff(from: object, to: object): JsonDiffOperation[] {
  const ops: JsonDiffOperation[] = [];
  generate(from, to, ops, "");
  return ops;
}

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** keysOf is the library's _objectKeys: an array's indexes as strings, an object's own keys. */
const keysOf = (o: object): string[] => (Array.isArray(o) ? Array.from({ length: o.length }, (_, i) => String(i)) : Object.keys(o));

/** escapePathSegment is RFC 6901's escaping of one JSON Pointer segment (`~` → `~0`, `/` → `~1`). */
export const escapePathSegment = (k: string): string => (k.includes("/") || k.includes("~") ? k.replace(/~/g, "~0").replace(/\//g, "~1") : k);

/** copy is the library's _deepClone: objects copied, undefined as null, other values as they are. */
const copy = (v: unknown): unknown => (v === undefined ? null : typeof v === "object" ? cloneJSON(v) : v);

function generate(mirror: object, objIn: object, ops: JsonDiffOperation[], path: string): void {
  if (objIn === mirror) return;
  const toJSON = (objIn as { toJSON?: unknown }).toJSON;
  const obj = (typeof toJSON === "function" ? toJSON.call(objIn) : objIn) as Record<string, unknown>;
  const was = mirror as Record<string, unknown>;
  const newKeys = keysOf(obj);
  const oldKeys = keysOf(was);
  let deleted = false;
  for (let t = oldKeys.length - 1; t >= 0; t--) {
    const key = oldKeys[t];
    const oldVal = was[key];
    if (hasOwn(obj, key) && !(obj[key] === undefined && oldVal !== undefined && !Array.isArray(obj))) {
      const newVal = obj[key];
      if (typeof oldVal === "object" && oldVal !== null && typeof newVal === "object" && newVal !== null && Array.isArray(oldVal) === Array.isArray(newVal)) {
        generate(oldVal, newVal, ops, `${path}/${escapePathSegment(key)}`);
      } else if (oldVal !== newVal) {
        ops.push({ op: "replace", path: `${path}/${escapePathSegment(key)}`, value: copy(newVal) });
      }
    } else if (Array.isArray(was) === Array.isArray(obj)) {
      ops.push({ op: "remove", path: `${path}/${escapePathSegment(key)}` });
      deleted = true;
    } else {
      ops.push({ op: "replace", path, value: obj });
    }
  }
  if (!deleted && newKeys.length === oldKeys.length) return;
  for (const key of newKeys) {
    if (!hasOwn(was, key) && obj[key] !== undefined) ops.push({ op: "add", path: `${path}/${escapePathSegment(key)}`, value: copy(obj[key]) });
  }
}
