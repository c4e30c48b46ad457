/**
 * Bounds on what one webhook request may make the server do, checked at the HTTP edge before
 * any handler walks the object (the handlers, structuredClone and the JSON Patch diff recurse).
 * A StatefulSet's or ImageList's depth is read from the body's text along with the sizes of its
 * parts (src/http/json-scan.ts); other bodies' from the parsed value (exceedsDepth: cheaper for
 * a pod's few kilobytes).
 */

/**
 * Deepest JSON nesting accepted. Pods and StatefulSets nest about 15 levels (managedFields a few
 * more); anything past this is an attack or a bug, and deep enough to overflow recursive code.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * exceedsDepth is true when `value` nests arrays/objects deeper than `limit` levels. The
 * recursion stops at `limit`, so it is safe on any input JSON.parse returns; linear in its size
 * and allocation-free (it runs on every request).
 */
export function exceedsDepth(value: unknown, limit: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (limit <= 0) return true;
  if (Array.isArray(value)) {
    for (const v of value) if (typeof v === "object" && v !== null && exceedsDepth(v, limit - 1)) return true;
    return false;
  }
  for (const k in value) {
    const v = (value as Record<string, unknown>)[k];
    if (typeof v === "object" && v !== null && exceedsDepth(v, limit - 1)) return true;
  }
  return false;
}
