import type { Pod } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import type { Action } from "../core/actions.ts";
import { ApiError, isAlreadyExists, type KubeClient } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import { recordEvent } from "./events.ts";
import type { Logger } from "./log.ts";

/**
 * executeActions carries out a plan's actions in order and stops at the first failure (the next
 * pass re-plans from what the cluster then holds). Returns how many actions were done and the
 * error that stopped it, if any. Pod and claim writes record upstream's events.
 */
export async function executeActions(
  client: KubeClient,
  set: StatefulSet,
  actions: Action[],
  now: Date,
  log: Logger,
): Promise<{ done: number; error?: Error }> {
  const ns = set.metadata.namespace;
  const setName = set.metadata.name ?? "";
  const event = async (type: "Normal" | "Warning", reason: string, message: string) => {
    try {
      await recordEvent(client, set, type, reason, message, now);
    } catch (e) {
      log.warn("event not recorded", { set: `${ns}/${setName}`, reason, error: String(e) });
    }
  };
  let done = 0;
  for (const a of actions) {
    try {
      await execute(client, set, a, event);
      done++;
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      log.info("action failed", { set: `${ns}/${setName}`, action: describe(a), error: error.message });
      const failure = failureEvent(a, setName, error);
      if (failure) await event("Warning", failure.reason, failure.message);
      return { done, error };
    }
  }
  return { done };
}

type EventFn = (type: "Normal" | "Warning", reason: string, message: string) => Promise<void>;

async function execute(client: KubeClient, set: StatefulSet, a: Action, event: EventFn): Promise<void> {
  const ns = set.metadata.namespace;
  const setName = set.metadata.name ?? "";
  switch (a.type) {
    case "createRevision":
      try {
        await client.create(R.controllerRevisions, ns, a.revision);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
        // A revision of that name exists that we do not own: bump collisionCount so the next
        // plan hashes differently (upstream's hash-collision handling).
        await client.patch(R.statefulSets, ns, setName, { status: { collisionCount: (set.status?.collisionCount ?? 0) + 1 } }, "merge", "status");
        throw e;
      }
      return;
    case "updateRevisionNumber":
      await client.patch(R.controllerRevisions, ns, a.name, { revision: a.revision }, "merge");
      return;
    case "deleteRevision":
      await client.delete(R.controllerRevisions, ns, a.name, a.uid ? { preconditions: { uid: a.uid } } : undefined);
      return;
    case "adoptPod":
    case "releasePod":
      await client.patch(R.pods, ns, a.name, { metadata: { uid: a.uid, ownerReferences: a.ownerReferences } }, "merge");
      return;
    case "adoptRevision":
    case "releaseRevision":
      await client.patch(R.controllerRevisions, ns, a.name, { metadata: { uid: a.uid, ownerReferences: a.ownerReferences } }, "merge");
      return;
    case "createClaim":
      try {
        await client.create(R.pvcs, ns, a.claim);
        await event("Normal", "SuccessfulCreate", `create Claim ${a.claim.metadata?.name} Pod ${a.pod} in StatefulSet ${setName} success`);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
      return;
    case "setClaimOwners":
      await client.patch(R.pvcs, ns, a.name, { metadata: { uid: a.uid, ownerReferences: a.ownerReferences } }, "merge");
      return;
    case "createPod":
      await client.create<Pod>(R.pods, ns, a.pod);
      await event("Normal", "SuccessfulCreate", `create Pod ${a.pod.metadata?.name} in StatefulSet ${setName} successful`);
      return;
    case "deletePod":
      await client.delete(R.pods, ns, a.name, { preconditions: { uid: a.uid } });
      await event("Normal", "SuccessfulDelete", `delete Pod ${a.name} in StatefulSet ${setName} successful`);
      return;
    case "repairPodLabels":
      await client.patch(R.pods, ns, a.name, { metadata: { uid: a.uid, labels: a.labels } }, "merge");
      return;
    case "setPodCondition":
      await client.patch(
        R.pods,
        ns,
        a.name,
        { metadata: { uid: a.uid, resourceVersion: a.resourceVersion }, status: { conditions: a.conditions } },
        "merge",
        "status",
      );
      return;
    case "updateStatus":
      await client.patch(R.statefulSets, ns, setName, { status: statusPatch(set, a.status) }, "merge", "status");
      return;
    case "event":
      await event(a.eventType, a.reason, a.message);
      return;
  }
}

/** statusPatch returns a merge patch that makes the stored status equal `next` (nulls remove keys). */
function statusPatch(set: StatefulSet, next: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...next };
  for (const k of Object.keys(set.status ?? {})) if (!(k in next)) patch[k] = null;
  return patch;
}

/** failureEvent returns the Failed<Verb> event upstream records for a failed pod or claim write. */
function failureEvent(a: Action, setName: string, e: Error): { reason: string; message: string } | undefined {
  const why = e instanceof ApiError ? e.message : String(e);
  switch (a.type) {
    case "createPod":
      return { reason: "FailedCreate", message: `create Pod ${a.pod.metadata?.name} in StatefulSet ${setName} failed error: ${why}` };
    case "deletePod":
      return { reason: "FailedDelete", message: `delete Pod ${a.name} in StatefulSet ${setName} failed error: ${why}` };
    case "createClaim":
      return { reason: "FailedCreate", message: `create Claim ${a.claim.metadata?.name} for Pod ${a.pod} in StatefulSet ${setName} failed error: ${why}` };
    case "repairPodLabels":
    case "setClaimOwners":
      return { reason: "FailedUpdate", message: `update ${a.type === "setClaimOwners" ? "Claim" : "Pod"} ${a.name} in StatefulSet ${setName} failed error: ${why}` };
    default:
      return undefined;
  }
}

/** describe returns a short text for an action (logs). */
export function describe(a: Action): string {
  switch (a.type) {
    case "createRevision":
      return `createRevision ${a.revision.metadata?.name}`;
    case "createClaim":
      return `createClaim ${a.claim.metadata?.name}`;
    case "createPod":
      return `createPod ${a.pod.metadata?.name}`;
    case "updateStatus":
      return "updateStatus";
    case "event":
      return `event ${a.reason}`;
    default:
      return `${a.type} ${a.name}`;
  }
}
