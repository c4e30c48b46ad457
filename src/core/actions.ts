import type { ControllerRevision, OwnerReference, PersistentVolumeClaim, Pod, PodCondition } from "../api/k8s.ts";
import type { StatefulSetStatus } from "../api/statefulset.ts";

/**
 * What the planner asks the executor to do, in order. Each action names the object it touches
 * and, for pods and claims, the event upstream would record. The executor is the only writer.
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
  | { type: "createPod"; pod: Pod; reason: "create" | "recreate" }
  | { type: "deletePod"; name: string; uid: string; reason: "failed" | "scaleDown" | "update" }
  | { type: "repairPodLabels"; name: string; uid: string; labels: Record<string, string | null> }
  | { type: "setPodCondition"; name: string; uid: string; resourceVersion: string; conditions: PodCondition[] }
  | { type: "updateStatus"; status: StatefulSetStatus }
  | { type: "event"; eventType: "Normal" | "Warning"; reason: string; message: string };

export type ActionType = Action["type"];
