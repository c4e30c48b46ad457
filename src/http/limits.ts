/**
 * Bounds on what one webhook request may make the server do, checked at the HTTP edge before
 * any handler walks the object (the handlers, structuredClone and the JSON Patch diff recurse).
 * The depth is read from the body's text (src/http/json-scan.ts).
 */

/**
 * Deepest JSON nesting accepted. Pods and StatefulSets nest about 15 levels (managedFields a few
 * more); anything past this is an attack or a bug, and deep enough to overflow recursive code.
 */
export const MAX_JSON_DEPTH = 100;
