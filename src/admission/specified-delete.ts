import type { Pod } from "../api/k8s.ts";
import { SPECIFIED_DELETE_LABEL } from "../objects/constants.ts";
import type { MayDeletePod } from "./delete-access.ts";
import { allow, deny, objectName, type AdmissionRequest, type AdmissionResult } from "./types.ts";

/**
 * The chosen-deletion webhook (specified-delete.validate.ordinal.dev, failurePolicy Fail): the
 * label `ordinal.dev/specified-delete` asks the reconciler to evict a pod, so it is honoured only
 * from someone who may delete that pod. A CREATE or UPDATE (pods, pods/status: 1.20 lets status
 * writes change labels) that adds it is allowed when the caller is the reconciler or the apiserver
 * answers a SubjectAccessReview "may delete this pod" with yes (delete-access.ts); refused (403)
 * when it says no, and refused too (500, "try again") when it cannot be asked. Removing the label,
 * or changing its value (any value counts), needs no permission.
 */

export interface ChosenDeleteOptions {
  /** `userInfo.username` of the reconciler (it may delete pods already). */
  reconcilerUsername: string;
  /** Asks the apiserver; absent (no apiserver client): every addition is refused, as unchecked. */
  mayDeletePod?: MayDeletePod;
}

const labelOf = (pod: unknown): string | undefined => (pod as Pod | null | undefined)?.metadata?.labels?.[SPECIFIED_DELETE_LABEL];

/** validateChosenDelete answers the chosen-deletion hook for one request (see the file's comment). */
export async function validateChosenDelete(req: AdmissionRequest, opts: ChosenDeleteOptions): Promise<AdmissionResult> {
  const ok = { response: allow(req) };
  if (req.kind.kind !== "Pod" || (req.operation !== "CREATE" && req.operation !== "UPDATE")) return ok;
  const sub = req.subResource ?? "";
  if (sub !== "" && sub !== "status") return ok;
  const before = req.operation === "UPDATE" ? labelOf(req.oldObject) : undefined;
  if (labelOf(req.object) === undefined || before !== undefined) return ok;
  const username = req.userInfo.username ?? "";
  if (username === opts.reconcilerUsername) return ok;
  const name = objectName(req, req.object);
  const namespace = req.namespace ?? "";
  const what = `choosing pod ${JSON.stringify(name)} for deletion (label ${SPECIFIED_DELETE_LABEL}) needs permission to delete it`;
  const cannotCheck = (why: string): AdmissionResult => ({
    response: deny(req, { code: 500, reason: "InternalError", message: `${what}, and Ordinal's webhook could not ask the apiserver (${why}): try again` }),
  });
  if (!opts.mayDeletePod) return cannotCheck("it has no apiserver client");
  let answer;
  try {
    answer = await opts.mayDeletePod({ ...req.userInfo }, namespace, name);
  } catch (e) {
    return cannotCheck(e instanceof Error ? e.message : String(e));
  }
  if (answer.allowed) return ok;
  const because = answer.reason ? ` (${answer.reason})` : "";
  return {
    response: deny(req, {
      code: 403,
      reason: "Forbidden",
      message: `pods ${JSON.stringify(name)} is forbidden: ${what}, and user ${JSON.stringify(username)} cannot delete pods in the namespace ${JSON.stringify(namespace)}${because}: ask someone who may, or remove the label`,
    }),
  };
}
