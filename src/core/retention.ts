import type { OwnerReference, PersistentVolumeClaim, Pod } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import { getEndOrdinal, getStartOrdinal } from "../objects/names.ts";
import { newSetRef } from "../objects/pod.ts";

/**
 * persistentVolumeClaimRetentionPolicy through ownerReferences, as upstream does it: whenDeleted
 * Delete puts a (non-controller) reference to the set on every claim, whenScaled Delete puts one
 * to the pod on claims of scaled-down ordinals, so the garbage collector — never the
 * reconciler — deletes claims, and only when the policy says so.
 */

const hasRef = (claim: PersistentVolumeClaim, uid: string | undefined) =>
  !!uid && (claim.metadata?.ownerReferences ?? []).some((r) => r.uid === uid);

const podRef = (pod: Pod): OwnerReference => ({
  apiVersion: "v1",
  kind: "Pod",
  name: pod.metadata?.name ?? "",
  uid: pod.metadata?.uid ?? "",
});

const inRange = (set: StatefulSet, ordinal: number) => ordinal >= getStartOrdinal(set) && ordinal < getEndOrdinal(set);

/**
 * wantedClaimOwners returns the ownerReferences the claim should carry for this pod and ordinal
 * under the set's retention policy; references to other owners are kept as they are.
 */
export function wantedClaimOwners(set: StatefulSet, claim: PersistentVolumeClaim, pod: Pod | undefined, ordinal: number): OwnerReference[] {
  const policy = set.spec.persistentVolumeClaimRetentionPolicy ?? { whenDeleted: "Retain", whenScaled: "Retain" };
  const setUid = set.metadata.uid;
  const podUid = pod?.metadata?.uid;
  const others = (claim.metadata?.ownerReferences ?? []).filter((r) => r.uid !== setUid && (!podUid || r.uid !== podUid));
  const wantSet = policy.whenDeleted === "Delete" && !(policy.whenScaled === "Delete" && !inRange(set, ordinal));
  const wantPod = !!pod && policy.whenScaled === "Delete" && !inRange(set, ordinal);
  const existingSet = (claim.metadata?.ownerReferences ?? []).find((r) => r.uid === setUid);
  const existingPod = (claim.metadata?.ownerReferences ?? []).find((r) => podUid && r.uid === podUid);
  const refs = [...others];
  if (wantSet) refs.push(existingSet ?? newSetRef(set));
  if (wantPod && pod) refs.push(existingPod ?? podRef(pod));
  return refs;
}

/** claimOwnersMatch is true when the claim's references to the set and pod follow the policy. */
export function claimOwnersMatch(set: StatefulSet, claim: PersistentVolumeClaim, pod: Pod | undefined, ordinal: number): boolean {
  const wanted = wantedClaimOwners(set, claim, pod, ordinal);
  const podUid = pod?.metadata?.uid;
  return (
    hasRef(claim, set.metadata.uid) === wanted.some((r) => r.uid === set.metadata.uid) &&
    (!podUid || hasRef(claim, podUid) === wanted.some((r) => r.uid === podUid))
  );
}
