import { jsonDiff } from "../objects/json-diff.ts";

/**
 * JSON Patch (RFC 6902) helpers for the mutating webhook: the mutation edits a copy, `diff`
 * compares it with the original, and `encodePatch` gives the base64 the AdmissionResponse carries.
 */

export interface PatchOperation {
  op: "add" | "remove" | "replace" | "move" | "copy" | "test";
  path: string;
  value?: unknown;
  from?: string;
}

/**
 * diff returns the operations that turn `from` into `to`: keys escaped per RFC 6901 (`/` → `~1`,
 * `~` → `~0`), absent maps added whole, array items replaced, removed from the end, appended.
 */
export function diff(from: object, to: object): PatchOperation[] {
  return jsonDiff(from, to);
}

/** encodePatch returns the base64 of the patch's JSON (UTF-8), as AdmissionResponse.patch. */
export function encodePatch(ops: PatchOperation[]): string {
  const json = JSON.stringify(ops);
  // ASCII (the usual case) is its own UTF-8: btoa takes it as is.
  return ASCII.test(json) ? btoa(json) : base64(new TextEncoder().encode(json));
}

/** JSON.stringify output escapes control characters, so printable ASCII is the whole ASCII case. */
const ASCII = /^[\x20-\x7e]*$/;

/** decodePatch is encodePatch's inverse (tests and logs). */
export function decodePatch(b64: string): PatchOperation[] {
  const bin = atob(b64);
  const bytes = Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
  return JSON.parse(new TextDecoder().decode(bytes)) as PatchOperation[];
}

/** base64 of bytes with Web APIs only (btoa takes a binary string; built in chunks). */
export function base64(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

