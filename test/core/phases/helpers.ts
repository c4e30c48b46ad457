/** Shared builders for the phase tests: a plan context for a set at one or two revisions. */
import type { PersistentVolumeClaim, Pod } from "../../../src/api/k8s.ts";
import type { StatefulSet } from "../../../src/api/statefulset.ts";
import type { Action } from "../../../src/core/actions.ts";
import { newPlanContext, type PlanContext } from "../../../src/core/plan-context.ts";
import { getStatefulSetRevisions } from "../../../src/core/revisions.ts";
import { countReplicas, type ReplicaCounts } from "../../../src/core/status.ts";
import { newSlots, type ReplicaSlots } from "../../../src/core/slots.ts";
import { NOW, claimFor, makeSet, pod, revisionOf, type PodState } from "../fixtures.ts";

export { NOW, claimFor, makeSet, pod, revisionOf };

/** ctxFor returns the plan context of `set` whose only revision is its own template. */
export function ctxFor(set: StatefulSet, claims: PersistentVolumeClaim[] = [], now = NOW): PlanContext {
  return newPlanContext(set, getStatefulSetRevisions(set, [revisionOf(set)]), claims, now);
}

/** podsIn returns the slots of the set's pods in the given states (null: no pod), at the set's revision; as many replicas as states. */
export function podsIn(set: StatefulSet, states: (PodState | null)[], revision = revisionOf(set).metadata?.name ?? ""): ReplicaSlots {
  return slotsOf(states.map((s, i) => (s ? pod(set, i, revision, s) : undefined)));
}

/** slotsOf returns the slots of an array of replicas by offset (undefined: missing); as many replicas as entries. */
export const slotsOf = (pods: readonly (Pod | undefined)[]): ReplicaSlots => newSlots(pods.length, pods.flatMap((p, i): [number, Pod][] => (p ? [[i, p]] : [])));

/** slotArray returns the slots as an array by offset, undefined where a pod is missing (small test sets only). */
export const slotArray = (slots: ReplicaSlots): (Pod | undefined)[] => Array.from({ length: slots.count }, (_, i) => slots.pods.get(i));

/** present returns the pods that exist, lowest offset first. */
export const present = (slots: ReplicaSlots): Pod[] => [...slots.pods.values()];

export const countsOf = (ctx: PlanContext, pods: Pod[]): ReplicaCounts =>
  countReplicas(pods, ctx.revisions.currentName, ctx.revisions.updateName, ctx.set.spec.minReadySeconds, ctx.now);

/** brief renders actions as short strings (events left out unless asked). */
export function brief(actions: Action[], withEvents = false): string[] {
  return actions.flatMap((a): string[] => {
    switch (a.type) {
      case "event":
        return withEvents ? [`event ${a.reason}`] : [];
      case "createPod":
        return [`createPod ${a.pod.metadata?.name}`];
      case "createClaim":
        return [`createClaim ${a.claim.metadata?.name}`];
      case "createRevision":
        return [`createRevision ${a.revision.metadata?.name}`];
      case "updateStatus":
        return ["updateStatus"];
      case "deletePod":
        return [`deletePod ${a.name} (${a.reason})`];
      case "updatePodInPlace":
        return [`updatePodInPlace ${a.name} ${(a.patch.spec.containers ?? []).map((c) => c.image).join(",")}`];
      case "setPodCondition": {
        // In-place gate writes carry a reason; ensureGateCondition's initial True does not.
        const g = a.conditions.find((c) => c.type === "InPlaceUpdateReady");
        return [g?.reason ? `gate ${a.name} ${g.status} ${g.reason}` : `setPodCondition ${a.name}`];
      }
      case "writeImageList":
        return [`${a.create ? "createImageList" : "patchImageList"} ${a.node}`];
      case "rollbackTemplate":
        return [`rollbackTemplate ${a.from} -> ${a.to}`];
      default:
        return [`${a.type} ${a.name}`];
    }
  });
}
