/** Shared builders for the phase tests: a plan context for a set at one or two revisions. */
import type { PersistentVolumeClaim, Pod } from "../../../src/api/k8s.ts";
import type { StatefulSet } from "../../../src/api/statefulset.ts";
import type { Action } from "../../../src/core/actions.ts";
import { newPlanContext, type PlanContext } from "../../../src/core/plan-context.ts";
import { getStatefulSetRevisions } from "../../../src/core/revisions.ts";
import { countReplicas, type ReplicaCounts } from "../../../src/core/status.ts";
import { NOW, claimFor, makeSet, pod, revisionOf, type PodState } from "../fixtures.ts";

export { NOW, claimFor, makeSet, pod, revisionOf };

/** ctxFor returns the plan context of `set` whose only revision is its own template. */
export function ctxFor(set: StatefulSet, claims: PersistentVolumeClaim[] = [], now = NOW): PlanContext {
  return newPlanContext(set, getStatefulSetRevisions(set, [revisionOf(set)]), claims, now);
}

/** podsIn returns the set's pods in the given states (null: no pod), at the set's revision. */
export function podsIn(set: StatefulSet, states: (PodState | null)[], revision = revisionOf(set).metadata?.name ?? ""): (Pod | undefined)[] {
  return states.map((s, i) => (s ? pod(set, i, revision, s) : undefined));
}

export const present = (pods: (Pod | undefined)[]): Pod[] => pods.filter((p): p is Pod => !!p);

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
      default:
        return [`${a.type} ${a.name}`];
    }
  });
}
