import { forbidden, type FieldError } from "../validation/field-error.ts";
import { isObject } from "../validation/json.ts";

/**
 * Bounds on the objects the validating hooks judge in full (StatefulSets, ImageLists). Validation
 * is linear but not cheap per value (a pod and its PVCs are built and validated from the
 * template), so an object far larger than any real one is refused before it is walked: no request
 * may hold the event loop (and with it every other webhook call and /healthz) for long.
 */

/** JSON values (scalars, arrays, objects) in spec and metadata (managedFields excluded) at most. */
export const MAX_OBJECT_VALUES = 5_000;
/** Longest string anywhere in the judged object (an image reference is at most 4 KiB of these). */
export const MAX_STRING_CHARS = 64 * 1024;

/**
 * The parts of an AdmissionReview that `oversized` measures, as key paths into the review (for
 * src/http/json-scan.ts): the object's spec, and its metadata but managedFields. One container
 * there with more than MAX_OBJECT_VALUES members is enough for oversized to refuse the object.
 */
export const MEASURED_PARTS = {
  measured: [
    ["request", "object", "spec"],
    ["request", "object", "metadata", "*"],
  ],
  unmeasured: [["request", "object", "metadata", "managedFields"]],
  maxMembers: MAX_OBJECT_VALUES,
};

/**
 * oversized returns a Forbidden error when the object has more than MAX_OBJECT_VALUES JSON values
 * or a string longer than MAX_STRING_CHARS (counting stops at the limit), else undefined.
 */
export function oversized(obj: unknown, kind: string): FieldError | undefined {
  if (!isObject(obj)) return undefined;
  let values = 0;
  let longest = 0;
  const stack: unknown[] = [obj.spec];
  if (isObject(obj.metadata)) for (const [k, v] of Object.entries(obj.metadata)) if (k !== "managedFields") stack.push(v);
  while (stack.length > 0 && values <= MAX_OBJECT_VALUES && longest <= MAX_STRING_CHARS) {
    const v = stack.pop();
    values++;
    if (typeof v === "string") longest = Math.max(longest, v.length);
    else if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (isObject(v)) for (const k in v) stack.push(v[k]);
  }
  if (values > MAX_OBJECT_VALUES) {
    return forbidden("spec", `a ${kind} with more than ${MAX_OBJECT_VALUES} JSON values is refused (far beyond any real one; Ordinal bounds the work of one admission request)`);
  }
  if (longest > MAX_STRING_CHARS) {
    return forbidden("spec", `a ${kind} with a string longer than ${MAX_STRING_CHARS} characters is refused (Ordinal bounds the work of one admission request)`);
  }
  return undefined;
}
