import { GROUP } from "../api/statefulset.ts";
import { validateImageList } from "../validation/index.ts";
import { denyInvalid } from "./invalid.ts";
import { oversized } from "./limits.ts";
import { allow, objectName, type AdmissionRequest, type AdmissionResult } from "./types.ts";

/**
 * validateImageListRequest answers a CREATE or UPDATE of an ImageList: every image reference must
 * parse under the distribution reference grammar; all bad entries are reported at once (422).
 */
export function validateImageListRequest(req: AdmissionRequest): AdmissionResult {
  if (req.operation !== "CREATE" && req.operation !== "UPDATE") return { response: allow(req) };
  if (req.subResource) return { response: allow(req) };
  const obj = req.object as { metadata?: { name?: string } };
  const tooBig = oversized(obj, "ImageList");
  const errors = tooBig ? [tooBig] : validateImageList(obj);
  if (errors.length === 0) return { response: allow(req) };
  return { response: denyInvalid(req, { group: GROUP, kind: "ImageList" }, objectName(req, obj), errors) };
}
