import * as z from "zod/mini";
// For its side effect: English parse messages (zod/mini registers no locale of its own).
import "../api/zod.ts";
import { isObject } from "../validation/json.ts";

/**
 * AdmissionReview v1 (admission.k8s.io/v1), the envelope the apiserver posts to every webhook.
 * The request is checked with zod at the HTTP edge; handlers receive a parsed `AdmissionRequest`
 * and return an `AdmissionResponse`, which `reviewOf` wraps for the wire.
 */

const ADMISSION_API_VERSION = "admission.k8s.io/v1";
const ADMISSION_KIND = "AdmissionReview";

const GroupVersionKind = z.object({ group: z.string(), version: z.string(), kind: z.string() });
const GroupVersionResource = z.object({ group: z.string(), version: z.string(), resource: z.string() });

/** A Kubernetes object as JSON: any non-array object (its own schema is the handler's business). */
const ObjectJSON = z.custom<Record<string, unknown>>(isObject, { message: "expected a Kubernetes object" });

const Operation = z.enum(["CREATE", "UPDATE", "DELETE", "CONNECT"]);

export const AdmissionRequestSchema = z
  .looseObject({
    uid: z.string().check(z.minLength(1)),
    kind: GroupVersionKind,
    resource: GroupVersionResource,
    subResource: z.optional(z.string()),
    requestKind: z.optional(GroupVersionKind),
    requestResource: z.optional(GroupVersionResource),
    requestSubResource: z.optional(z.string()),
    name: z.optional(z.string()),
    namespace: z.optional(z.string()),
    operation: Operation,
    userInfo: z.looseObject({
      username: z.optional(z.string()),
      uid: z.optional(z.string()),
      groups: z.optional(z.array(z.string())),
    }),
    object: z.optional(z.nullable(ObjectJSON)),
    oldObject: z.optional(z.nullable(ObjectJSON)),
    dryRun: z.optional(z.boolean()),
    options: z.optional(z.unknown()),
  })
  // A plain check, not z.superRefine: superRefine puts a fresh closure on every parse's payload,
  // which makes V8 pretenure the payloads; from the old generation they then keep each request's
  // whole body alive through young collections (~15 µs of GC per webhook call on Node 20).
  .check((ctx) => {
    const r = ctx.value;
    if ((r.operation === "CREATE" || r.operation === "UPDATE") && !r.object)
      ctx.issues.push({ code: "custom", path: ["object"], message: `required for ${r.operation}`, input: r });
    if (r.operation === "UPDATE" && !r.oldObject) ctx.issues.push({ code: "custom", path: ["oldObject"], message: "required for UPDATE", input: r });
  });

export const AdmissionReviewSchema = z.looseObject({
  apiVersion: z.literal(ADMISSION_API_VERSION),
  kind: z.literal(ADMISSION_KIND),
  request: AdmissionRequestSchema,
});

export type AdmissionRequest = z.output<typeof AdmissionRequestSchema>;

/** The Status a denial carries; the apiserver shows `message` to the user and returns `code`. */
export interface AdmissionStatus {
  code?: number;
  reason?: string;
  message?: string;
  details?: { name?: string; group?: string; kind?: string; causes?: { reason?: string; message?: string; field?: string }[] };
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: AdmissionStatus;
  /** base64 of a JSON Patch (RFC 6902) against `request.object`. */
  patch?: string;
  patchType?: "JSONPatch";
  /** Shown by kubectl as `Warning: …`. */
  warnings?: string[];
}

export interface AdmissionReviewResponse {
  apiVersion: typeof ADMISSION_API_VERSION;
  kind: typeof ADMISSION_KIND;
  response: AdmissionResponse;
}

/**
 * What a handler decides: the response. (What the request wakes is not the handler's business:
 * the HTTP layer derives it from the request, wakes.ts.)
 */
export interface AdmissionResult {
  response: AdmissionResponse;
}

/** Warnings in one response at most, and characters of each (hostile input must not make them huge). */
const MAX_WARNINGS = 20;
const MAX_WARNING_CHARS = 1024;

/** boundedWarnings keeps the first MAX_WARNINGS warnings, each cut at MAX_WARNING_CHARS, and counts the rest. */
function boundedWarnings(warnings: string[]): { warnings?: string[] } {
  if (warnings.length === 0) return {};
  const cut = (w: string) => (w.length <= MAX_WARNING_CHARS ? w : `${w.slice(0, MAX_WARNING_CHARS)}… (cut)`);
  const kept = warnings.slice(0, MAX_WARNINGS).map(cut);
  if (warnings.length > MAX_WARNINGS) kept.push(`and ${warnings.length - MAX_WARNINGS} more warnings`);
  return { warnings: kept };
}

/** allow admits the request, with warnings (bounded) when there are any. */
export function allow(req: Pick<AdmissionRequest, "uid">, warnings: string[] = []): AdmissionResponse {
  return { uid: req.uid, allowed: true, ...boundedWarnings(warnings) };
}

/** deny refuses the request with a Status (`code` defaults to 403 Forbidden). */
export function deny(req: Pick<AdmissionRequest, "uid">, status: AdmissionStatus, warnings: string[] = []): AdmissionResponse {
  return {
    uid: req.uid,
    allowed: false,
    status: { code: 403, reason: "Forbidden", ...status },
    ...boundedWarnings(warnings),
  };
}

/** reviewOf wraps a response in the AdmissionReview envelope the apiserver expects back. */
export function reviewOf(response: AdmissionResponse): AdmissionReviewResponse {
  return { apiVersion: ADMISSION_API_VERSION, kind: ADMISSION_KIND, response };
}

/** objectName returns the object's metadata.name, else the request's name, else "". */
export function objectName(req: AdmissionRequest, obj: unknown): string {
  const name = (obj as { metadata?: { name?: unknown } } | undefined)?.metadata?.name;
  return typeof name === "string" && name !== "" ? name : (req.name ?? "");
}

/** A group/kind pair a route accepts (`group` "" is the core group). */
export interface GroupKind {
  group: string;
  kind: string;
}

export const gkString = (gk: GroupKind): string => (gk.group ? `${gk.kind}.${gk.group}` : gk.kind);
