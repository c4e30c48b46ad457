// Status bodies exactly as kube-apiserver writes them (k8s.io/apimachinery/pkg/api/errors), and
// the Invalid status of field errors (k8s.io/apimachinery/pkg/util/validation/field).

import {
  duplicate,
  errorBody,
  forbidden as fieldForbidden,
  formatBadValue,
  invalid as fieldInvalid,
  notSupported,
  required,
  type FieldError,
} from "../../validation/field-error.ts";
import { goQuote } from "../../validation/go-format.ts";

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** Status is metav1.Status as it appears on the wire. */
export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure" | "Success";
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** GroupResource names a resource the way error messages do: `statefulsets.apps`. */
export interface GroupResource {
  group: string;
  resource: string;
}

/** ApiError carries a Status body and its HTTP code; handlers throw it, the router writes it. */
export class ApiError extends Error {
  readonly status: Status;
  readonly code: number;
  readonly headers: Record<string, string>;
  constructor(status: Status, headers: Record<string, string> = {}) {
    super(status.message ?? `status ${status.code ?? 500}`);
    this.name = "ApiError";
    this.status = status;
    this.code = status.code ?? 500;
    this.headers = headers;
  }
}

/** qualifiedResource formats `pods` or `statefulsets.apps`. */
function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

function failure(code: number, message: string, reason?: string, details?: StatusDetails): Status {
  const s: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message };
  if (reason) s.reason = reason;
  if (details) s.details = details;
  s.code = code;
  return s;
}

/** details builds StatusDetails, omitting empty fields in the order the apiserver writes them. */
export function details(name: string | undefined, group: string | undefined, kind: string | undefined, extra: Partial<StatusDetails> = {}): StatusDetails {
  const d: StatusDetails = {};
  if (name) d.name = name;
  if (group) d.group = group;
  if (kind) d.kind = kind;
  if (extra.uid) d.uid = extra.uid;
  if (extra.causes && extra.causes.length > 0) d.causes = extra.causes;
  if (extra.retryAfterSeconds) d.retryAfterSeconds = extra.retryAfterSeconds;
  return d;
}

export function notFound(gr: GroupResource, name: string): ApiError {
  return new ApiError(failure(404, `${qualifiedResource(gr)} "${name}" not found`, "NotFound", details(name, gr.group, gr.resource)));
}

export function alreadyExists(gr: GroupResource, name: string): ApiError {
  return new ApiError(failure(409, `${qualifiedResource(gr)} "${name}" already exists`, "AlreadyExists", details(name, gr.group, gr.resource)));
}

const OPTIMISTIC_LOCK_MESSAGE = "the object has been modified; please apply your changes to the latest version and try again";

/** conflict is NewConflict: `Operation cannot be fulfilled on pods "web-0": <message>`. */
export function conflict(gr: GroupResource, name: string, message: string = OPTIMISTIC_LOCK_MESSAGE): ApiError {
  return new ApiError(
    failure(409, `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${message}`, "Conflict", details(name, gr.group, gr.resource)),
  );
}

export function badRequest(message: string): ApiError {
  return new ApiError(failure(400, message, "BadRequest"));
}

export function forbidden(gr: GroupResource, name: string, message: string, causes: StatusCause[] = []): ApiError {
  return new ApiError(
    failure(403, `${qualifiedResource(gr)} "${name}" is forbidden: ${message}`, "Forbidden", details(name, gr.group, gr.resource, { causes })),
  );
}

export function methodNotAllowed(): ApiError {
  return new ApiError(failure(405, "the server does not allow this method on the requested resource", "MethodNotAllowed", {}));
}

export function resourceNotFound(): ApiError {
  return new ApiError(failure(404, "the server could not find the requested resource", "NotFound", {}));
}

export function unsupportedMediaType(): ApiError {
  return new ApiError(failure(415, "415: Unsupported Media Type", "UnsupportedMediaType", {}));
}

/** internalError is NewInternalError: `Internal error occurred: <msg>`. */
export function internalError(message: string): ApiError {
  return new ApiError(failure(500, `Internal error occurred: ${message}`, "InternalError", { causes: [{ message }] }));
}

/** plainServerError is a 500 without a reason, as the storage layer produces for some failures. */
export function plainServerError(message: string): ApiError {
  return new ApiError(failure(500, message));
}

export function tooManyRequests(retryAfterSeconds: number): ApiError {
  return new ApiError(
    failure(429, "Too many requests, please try again later.", "TooManyRequests", { retryAfterSeconds }),
    { "retry-after": String(retryAfterSeconds) },
  );
}

export function serviceUnavailable(message = "the server is currently unable to handle the request"): ApiError {
  return new ApiError(failure(503, message, "ServiceUnavailable", {}));
}

export function timeoutError(): ApiError {
  return new ApiError(
    failure(504, "Timeout: request did not complete within requested timeout - context deadline exceeded", "Timeout", {}),
  );
}

export function expired(message: string): ApiError {
  return new ApiError(failure(410, message, "Expired"));
}

/** patchRejected is what a JSON patch that does not apply produces (1.20: no causes). */
export function patchRejected(): ApiError {
  return new ApiError(failure(422, "the server rejected our request due to an error in our request", "Invalid", {}));
}

/** successStatus is the body of a DELETE that removed an object of a kind that returns a Status. */
export function successStatus(d: StatusDetails, code?: number): Status {
  const s: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success" };
  if (Object.keys(d).length > 0) s.details = d;
  if (code !== undefined) s.code = code;
  return s;
}

// ---- field errors -------------------------------------------------------------------------------

// Field errors are the product's (src/validation/field-error.ts: the same types, constructors and
// message format as the apiserver); only how 1.20 prints a bad value that is neither a string, a
// number nor a boolean (Go's %#v) is the fake's own.
export type { FieldError };

/** GoSyntax is a bad value printed as given: a Go %#v rendering such as `0x0` or `""`. */
export class GoSyntax {
  constructor(readonly text: string) {}
}

/** goValue120 prints a bad value as 1.20's field.Error does: %q, %v, or %#v for slices and maps. */
function goValue120(v: unknown): string {
  if (v instanceof GoSyntax) return v.text;
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return `[]string{${v.map((x) => goQuote(x)).join(", ")}}`;
  if (typeof v === "object" && !Array.isArray(v) && Object.values(v).every((x) => typeof x === "string")) {
    const keys = Object.keys(v).sort();
    return `map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote((v as Record<string, string>)[k]!)}`).join(", ")}}`;
  }
  return typeof v === "object" ? JSON.stringify(v) : formatBadValue(v);
}

/** errorBody120 is 1.20's field.Error.ErrorBody(): the text after `<field>: `. */
const errorBody120 = (e: FieldError): string => errorBody(e, goValue120);

export { required, duplicate, notSupported, fieldForbidden as forbiddenField };

/** invalid is field.Invalid (the detail may be empty). */
export const invalid = (field: string, value: unknown, detail = ""): FieldError => fieldInvalid(field, value, detail);

/** GroupKind names a kind in Invalid messages: `Pod`, `StatefulSet.apps`. */
export interface GroupKind {
  group: string;
  kind: string;
}

/**
 * invalidError is NewInvalid: `Pod "web-0" is invalid: spec: Forbidden: ...`, several errors
 * aggregated as `[a, b]` with duplicate messages folded, each also listed as a cause.
 */
export function invalidError(gk: GroupKind, name: string, errs: readonly FieldError[]): ApiError {
  const messages = [...new Set(errs.map((e) => `${e.field}: ${errorBody120(e)}`))];
  const agg = messages.length === 1 ? messages[0]! : `[${messages.join(", ")}]`;
  const qualified = gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
  const causes = errs.map((e) => ({ reason: e.type, message: errorBody120(e), field: e.field }));
  return new ApiError(failure(422, `${qualified} "${name}" is invalid: ${agg}`, "Invalid", details(name, gk.group, gk.kind, { causes })));
}

/** isApiError narrows unknown errors. */
export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
