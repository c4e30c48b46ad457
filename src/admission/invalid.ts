import { formatInvalid, qualifiedKind, toStatusCauses, type FieldError } from "../validation/field-error.ts";
import { deny, type AdmissionRequest, type AdmissionResponse } from "./types.ts";

/**
 * denyInvalid refuses a request the way the apiserver refuses an invalid object: 422 Invalid, the
 * message `Kind.group "name" is invalid: [all errors]`, and one cause per error in details.
 */
export function denyInvalid(
  req: AdmissionRequest,
  gk: { group: string; kind: string },
  name: string,
  errors: readonly FieldError[],
  warnings: string[] = [],
): AdmissionResponse {
  return deny(
    req,
    {
      code: 422,
      reason: "Invalid",
      message: formatInvalid(qualifiedKind(gk.kind, gk.group), name, errors),
      details: { name, group: gk.group, kind: gk.kind, causes: toStatusCauses(errors) },
    },
    warnings,
  );
}
