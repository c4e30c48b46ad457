import { errorBody, formatFieldError, qualifiedKind, type FieldError } from "../validation/field-error.ts";
import { goQuote } from "../validation/go-format.ts";
import { deny, type AdmissionRequest, type AdmissionResponse } from "./types.ts";

/** Errors listed in a denial at most; the rest are counted ("and N more"). */
export const MAX_REPORTED_ERRORS = 100;
/** Characters of one error's text at most (a long bad value is cut, not echoed whole). */
export const MAX_ERROR_CHARS = 1024;

/** clip cuts text longer than `max` characters and says how long it was. */
function clip(text: string, max = MAX_ERROR_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters, cut)`;
}

/**
 * denyInvalid refuses a request the way the apiserver refuses an invalid object: 422 Invalid, the
 * message `Kind.group "name" is invalid: [all errors]`, and one cause per error in details. The
 * answer is bounded whatever the input: identical messages once, at most MAX_REPORTED_ERRORS
 * errors (then "and N more errors"), each cut at MAX_ERROR_CHARS, the name cut likewise; so a
 * hostile object cannot make the response (or the apiserver's event and log lines) huge.
 */
export function denyInvalid(
  req: AdmissionRequest,
  gk: { group: string; kind: string },
  name: string,
  errors: readonly FieldError[],
  warnings: string[] = [],
): AdmissionResponse {
  const messages = new Map<string, FieldError>();
  let scanned = 0;
  for (const e of errors) {
    if (messages.size === MAX_REPORTED_ERRORS) break;
    scanned++;
    const shortened = typeof e.badValue === "string" && e.badValue.length > MAX_ERROR_CHARS ? { ...e, badValue: `${e.badValue.slice(0, MAX_ERROR_CHARS)}…` } : e;
    const msg = clip(formatFieldError(shortened));
    if (!messages.has(msg)) messages.set(msg, shortened);
  }
  const shown = [...messages];
  const more = errors.length - scanned;
  const list = shown.map(([msg]) => msg);
  if (more > 0) list.push(`and up to ${more} more ${more === 1 ? "error" : "errors"}`);
  const shownName = clip(name, 253);
  const head = `${qualifiedKind(gk.kind, gk.group)} ${goQuote(shownName)} is invalid`;
  const message = list.length === 0 ? head : `${head}: ${list.length === 1 ? list[0] : `[${list.join(", ")}]`}`;
  return deny(
    req,
    {
      code: 422,
      reason: "Invalid",
      message,
      details: {
        name: shownName,
        group: gk.group,
        kind: gk.kind,
        causes: shown.map(([, e]) => ({ reason: e.type, message: clip(errorBody(e)), field: clip(e.field, 256) })),
      },
    },
    warnings,
  );
}

/**
 * denyUnknownFields refuses fields the object's type does not have, in the words of the
 * apiserver's strict decoding (`strict decoding error: unknown field "spec.template…protocl"`,
 * 400 BadRequest): what `kubectl apply --validate=strict` shows for an apps/v1 StatefulSet. Each
 * path is cut at 256 characters (keys come from the request).
 */
export function denyUnknownFields(req: AdmissionRequest, paths: readonly string[]): AdmissionResponse {
  const list = paths.map((p) => `unknown field ${goQuote(clip(p, 256))}`).join(", ");
  return deny(req, { code: 400, reason: "BadRequest", message: `strict decoding error: ${list}` });
}
