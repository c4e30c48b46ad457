import type { OwnerReference, PersistentVolumeClaim, Pod } from "../api/k8s.ts";
import { inOrdinalRange } from "../objects/ordinal-range.ts";
import type { SetView } from "./plan-context.ts";
import { newSetRef } from "../objects/pod.ts";

/**
 * persistentVolumeClaimRetentionPolicy through ownerReferences, as upstream does it: whenDeleted
 * Delete puts a (non-controller) reference to the set on every claim, whenScaled Delete puts one
 * to the pod on claims of scaled-down ordinals, so the garbage collector — never the
 * reconciler — deletes claims, and only when the policy says so.
 */

/** ownerRefsOf returns the claim's ownerReferences ([] when it has none). */
const ownerRefsOf = (claim: PersistentVolumeClaim): OwnerReference[] => claim.metadata?.ownerReferences ?? [];

const hasRef = (claim: PersistentVolumeClaim, uid: string | undefined) => !!uid && ownerRefsOf(claim).some((r) => r.uid === uid);

const podRef = (pod: Pod): OwnerReference => ({
  apiVersion: "v1",
  kind: "Pod",
  name: pod.metadata?.name ?? "",
  uid: pod.metadata?.uid ?? "",
});

/** The set and its ordinals (a SetView, or a PlanContext): a claim of an ordinal that is not the set's (scaled down or reserved) follows whenScaled. */
type ClaimOwner = Pick<SetView, "set" | "range">;

/**
 * wantedClaimOwners returns the ownerReferences the claim should carry for this pod and ordinal
 * under the set's retention policy; references to other owners are kept as they are.
 */
export function wantedClaimOwners(owner: ClaimOwner, claim: PersistentVolumeClaim, pod: Pod | undefined, ordinal: number): OwnerReference[] {
  const { set } = owner;
  const scaled = !inOrdinalRange(owner.range, ordinal);
  // No policy is Retain/Retain: neither is Delete.
  const { whenDeleted, whenScaled } = set.spec.persistentVolumeClaimRetentionPolicy ?? {};
  const setUid = set.metadata.uid;
  const podUid = pod?.metadata?.uid;
  const others = ownerRefsOf(claim).filter((r) => r.uid !== setUid && (!podUid || r.uid !== podUid));
  const wantSet = whenDeleted === "Delete" && !(whenScaled === "Delete" && scaled);
  const wantPod = !!pod && whenScaled === "Delete" && scaled;
  const existingSet = ownerRefsOf(claim).find((r) => r.uid === setUid);
  const existingPod = ownerRefsOf(claim).find((r) => podUid && r.uid === podUid);
  const refs = [...others];
  if (wantSet) refs.push(existingSet ?? newSetRef(set));
  if (wantPod && pod) refs.push(existingPod ?? podRef(pod));
  return refs;
}

/** claimOwnersMatch is true when the claim's references to the set and pod follow the policy. */
export function claimOwnersMatch(owner: ClaimOwner, claim: PersistentVolumeClaim, pod: Pod | undefined, ordinal: number): boolean {
  const { set } = owner;
  const wanted = wantedClaimOwners(owner, claim, pod, ordinal);
  const podUid = pod?.metadata?.uid;
  return (
    hasRef(claim, set.metadata.uid) === wanted.some((r) => r.uid === set.metadata.uid) &&
    (!podUid || hasRef(claim, podUid) === wanted.some((r) => r.uid === podUid))
  );
}
