import type { Action } from "../core/actions.ts";
import { ApiError, isConflict, isDisruptionBudgetRefusal } from "../kube/client.ts";
import { nameOf } from "../objects/names.ts";

/** What the executor (executor.ts) records when a pod or claim write fails: upstream's Failed<Verb> events. */

/**
 * failureEvent returns the Failed<Verb> event upstream records for a failed pod or claim write
 * (undefined: no event, e.g. a conflict on the in-place gate, which the next pass redoes).
 */
export function failureEvent(a: Action, setName: string, e: Error): { reason: string; message: string } | undefined {
  const why = e instanceof ApiError ? e.message : String(e);
  switch (a.type) {
    case "createPod":
      return { reason: "FailedCreate", message: `create Pod ${nameOf(a.pod)} in StatefulSet ${setName} failed error: ${why}` };
    case "deletePod":
      // A pod changed since it was read (spec.roles: its role may have moved) is read again next pass.
      if (a.resourceVersion && isConflict(e)) return undefined;
      if (isDisruptionBudgetRefusal(e)) return { reason: "EvictionWaiting", message: `evict Pod ${a.name} in StatefulSet ${setName}: ${budgetWords(e)}; asked again next pass` };
      return { reason: "FailedDelete", message: `delete Pod ${a.name} in StatefulSet ${setName} failed error: ${why}` };
    case "createClaim":
      return { reason: "FailedCreate", message: `create Claim ${nameOf(a.claim)} for Pod ${a.pod} in StatefulSet ${setName} failed error: ${why}` };
    case "expandClaim":
      return { reason: "FailedResize", message: `resize Claim ${a.name} Pod ${a.pod} in StatefulSet ${setName} to ${a.storage} failed error: ${why}` };
    case "rollbackTemplate":
      // The set changed since it was read (a failed resourceVersion test is a 422): the next pass sees the change.
      return isConflict(e) || (e instanceof ApiError && e.code === 422) ? undefined : { reason: "FailedRollback", message: `roll back StatefulSet ${setName} from revision ${a.from} to ${a.to} failed error: ${why}` };
    case "updatePodInPlace":
      return { reason: "FailedUpdatePodInPlace", message: `failed to update pod ${a.name} in-place(revision ${a.revision}): ${why}` };
    case "repairPodLabels":
    case "setClaimOwners":
      return { reason: "FailedUpdate", message: `update ${a.type === "setClaimOwners" ? "Claim" : "Pod"} ${a.name} in StatefulSet ${setName} failed error: ${why}` };
    // The in-place gate, its state and ownership: a refusal (a webhook's deny, a forbidden write) is
    // as loud as a refused create; a conflict is a stale read the next pass redoes, not an event.
    case "setPodCondition":
    case "clearInPlaceState":
    case "setLifecycleState":
    case "setSwitchoverRequest":
    case "adoptPod":
    case "releasePod":
      return isConflict(e) ? undefined : { reason: "FailedUpdate", message: `update Pod ${a.name} in StatefulSet ${setName} failed error: ${why}` };
    default:
      return undefined;
  }
}

/** budgetWords returns an eviction's 429 in words: its message and the budget's cause ("The disruption budget web needs 3 healthy pods and has 3 currently"). */
export function budgetWords(e: ApiError): string {
  const causes = (e.status as { details?: { causes?: { message?: unknown }[] } } | undefined)?.details?.causes ?? [];
  const why = causes.map((c) => c?.message).filter((m): m is string => typeof m === "string");
  return [e.message, ...why].join(" ").slice(0, 512);
}

