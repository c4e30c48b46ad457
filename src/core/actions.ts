import type { Container, ControllerRevision, OwnerReference, PersistentVolumeClaim, Pod, PodCondition } from "../api/k8s.ts";
import type { ImageList } from "../api/imagelist.ts";
import type { StatefulSetStatus } from "../api/statefulset.ts";

/**
 * What the planner asks the executor to do, in order. Each action names the object it touches;
 * the executor, the only writer, records one event per pod or claim write (success or failure).
 */
export type Action =
  | { type: "createRevision"; revision: ControllerRevision }
  | { type: "updateRevisionNumber"; name: string; revision: number }
  | { type: "deleteRevision"; name: string; uid?: string }
  | { type: "adoptPod"; name: string; uid: string; ownerReferences: OwnerReference[] }
  | { type: "releasePod"; name: string; uid: string; ownerReferences: OwnerReference[] }
  | { type: "adoptRevision"; name: string; uid: string; ownerReferences: OwnerReference[] }
  | { type: "releaseRevision"; name: string; uid: string; ownerReferences: OwnerReference[] }
  | { type: "createClaim"; claim: PersistentVolumeClaim; pod: string }
  | { type: "setClaimOwners"; name: string; uid: string; ownerReferences: OwnerReference[]; pod: string }
  /** Grow a claim to its template's storage request (volumeClaimUpdateStrategy OnPodRollingUpdate), before `pod` is updated or created. */
  | { type: "expandClaim"; name: string; uid: string; storage: string; template: string; pod: string }
  | { type: "createPod"; pod: Pod; reason: "create" | "recreate" }
  | { type: "deletePod"; name: string; uid: string; reason: "failed" | "scaleDown" | "update" | "heal" | "specifiedDelete"; /** the pod's revision (status counts; "" while an in-place update holds it) */ revision?: string; /** the pod was running and ready (status counts) */ ready?: boolean; /** spec.roles: the pod's resourceVersion as read, a precondition (its role may move meanwhile) */ resourceVersion?: string }
  | { type: "repairPodLabels"; name: string; uid: string; labels: Record<string, string | null> }
  /** Set these conditions (a strategic merge patch of pods/status: merged by type, the pod's others left as they are; uid and resourceVersion the preconditions). */
  | { type: "setPodCondition"; name: string; uid: string; resourceVersion: string; conditions: PodCondition[] }
  /** One strategic merge patch of the pod (its resourceVersion the precondition): new images, revision, state annotation. */
  | { type: "updatePodInPlace"; name: string; revision: string; patch: InPlacePodPatch }
  /**
   * Lifecycle hooks (lifecycle.ts): one merge patch of the pod (uid and resourceVersion the
   * preconditions) writing its state label and timestamp annotation; leaving Updated, the hook's
   * labels and the whole new finalizer list too.
   */
  | { type: "setLifecycleState"; name: string; uid: string; resourceVersion: string; state: string; time: string; labels?: Record<string, string>; finalizers?: string[] }
  /**
   * spec.roles.switchover (switchover.ts): write the request annotation (`at`, RFC 3339) or remove
   * it (null), one merge patch (uid and resourceVersion the preconditions); the executor records
   * the Normal event `reason` / `message` once done.
   */
  | { type: "setSwitchoverRequest"; name: string; uid: string; resourceVersion: string; at: string | null; reason: string; message: string }
  /** Remove the in-place update state annotation once the update is done. */
  | { type: "clearInPlaceState"; name: string; uid: string }
  | { type: "updateStatus"; status: StatefulSetStatus }
  /** rollbackOnFailure: put the last fully available revision's template back (JSON Patch of the set, guarded by its resourceVersion). */
  | { type: "rollbackTemplate"; from: string; to: string; patch: JsonPatchOp[] }
  /** Pre-warm: create the ImageList named after `node` in the set's namespace, or merge-patch it. */
  | { type: "writeImageList"; node: string; create?: ImageList; patch?: ImageListPatch }
  | { type: "event"; eventType: "Normal" | "Warning"; reason: string; message: string };


/**
 * assertNever ends a switch over Action["type"] (the executor's): once every action has its case,
 * `a` is `never` here, so a new action type without a case does not compile. Reached at run time
 * only by a value outside the type (it throws, naming the action's type).
 */
export function assertNever(a: never): never {
  throw new Error(`no case for action type ${JSON.stringify((a as { type?: unknown } | null)?.type)}`);
}

/**
 * The strategic merge patch of an in-place update: uid and resourceVersion as preconditions, label
 * and annotation changes (null removes), and the name and new image of each container it changes
 * (containers merge by name: the rest of each container, and the containers it does not name, stay
 * as stored, so a pass never needs to hold them: objects/projection.ts).
 */
export interface InPlacePodPatch {
  metadata: { uid: string; resourceVersion: string; labels: Record<string, string | null>; annotations: Record<string, string | null> };
  spec: { containers?: ContainerImage[]; initContainers?: ContainerImage[] };
}

/** A container's name and image (what an in-place update changes). */
type ContainerImage = Pick<Container, "name" | "image">;

/**
 * The merge patch of a pre-warm ImageList write: resourceVersion as precondition, the record of
 * Ordinal's entries (null removes it), entries added (options) or removed (null).
 */
export interface ImageListPatch {
  metadata: { resourceVersion: string; annotations: Record<string, string | null> };
  spec: { images: Record<string, { alwaysPull: boolean } | null> };
}

/** One RFC 6902 operation (the set's template rollback, rollback.ts). */
export interface JsonPatchOp {
  op: "add" | "replace" | "test";
  path: string;
  value: unknown;
}
