// Status bodies exactly as kube-apiserver writes them (k8s.io/apimachinery/pkg/api/errors), and
// field errors (k8s.io/apimachinery/pkg/util/validation/field) with their message formats.

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

type FieldErrorType = "Required" | "Invalid" | "Forbidden" | "NotSupported" | "Duplicate" | "TooLong" | "TooMany" | "NotFound";

/** FieldError is field.Error: a path, a type, the bad value and a detail. */
export interface FieldError {
  type: FieldErrorType;
  field: string;
  value?: unknown;
  /** valueRepr overrides how the bad value is printed (Go's %#v), e.g. `0x0`. */
  valueRepr?: string;
  detail?: string;
}

const TYPE_TEXT: Record<FieldErrorType, string> = {
  Required: "Required value",
  Invalid: "Invalid value",
  Forbidden: "Forbidden",
  NotSupported: "Unsupported value",
  Duplicate: "Duplicate value",
  TooLong: "Too long",
  TooMany: "Too many",
  NotFound: "Not found",
};

const CAUSE_REASON: Record<FieldErrorType, string> = {
  Required: "FieldValueRequired",
  Invalid: "FieldValueInvalid",
  Forbidden: "FieldValueForbidden",
  NotSupported: "FieldValueNotSupported",
  Duplicate: "FieldValueDuplicate",
  TooLong: "FieldValueTooLong",
  TooMany: "FieldValueTooMany",
  NotFound: "FieldValueNotFound",
};

/** goValue prints a value roughly as Go's %q / %v / %#v would in a field error. */
function goValue(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) {
    return `[]string{${v.map((x) => JSON.stringify(x)).join(", ")}}`;
  }
  if (typeof v === "object" && Object.values(v).every((x) => typeof x === "string")) {
    const keys = Object.keys(v).sort();
    return `map[string]string{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify((v as Record<string, string>)[k])}`).join(", ")}}`;
  }
  return JSON.stringify(v);
}

/** errorBody is field.Error.ErrorBody(): the text after `<field>: `. */
function errorBody(e: FieldError): string {
  let s: string;
  if (e.type === "Required" || e.type === "Forbidden" || e.type === "TooLong") {
    s = TYPE_TEXT[e.type];
  } else {
    s = `${TYPE_TEXT[e.type]}: ${e.valueRepr ?? goValue(e.value)}`;
  }
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

export const required = (field: string, detail?: string): FieldError => ({ type: "Required", field, detail });
export const invalid = (field: string, value: unknown, detail?: string): FieldError => ({ type: "Invalid", field, value, detail });
export const forbiddenField = (field: string, detail?: string): FieldError => ({ type: "Forbidden", field, detail });
export const duplicate = (field: string, value: unknown): FieldError => ({ type: "Duplicate", field, value });
export const fieldNotFound = (field: string, value: unknown): FieldError => ({ type: "NotFound", field, value });
export function notSupported(field: string, value: unknown, supported: readonly string[]): FieldError {
  return { type: "NotSupported", field, value, detail: `supported values: ${supported.map((s) => JSON.stringify(s)).join(", ")}` };
}

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
  const messages: string[] = [];
  for (const e of errs) {
    const m = `${e.field}: ${errorBody(e)}`;
    if (!messages.includes(m)) messages.push(m);
  }
  const agg = messages.length === 1 ? messages[0]! : `[${messages.join(", ")}]`;
  const qualified = gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
  const causes = errs.map((e) => ({ reason: CAUSE_REASON[e.type], message: errorBody(e), field: e.field }));
  return new ApiError(failure(422, `${qualified} "${name}" is invalid: ${agg}`, "Invalid", details(name, gk.group, gk.kind, { causes })));
}

/** isApiError narrows unknown errors. */
export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
