import type { ControllerRevision, OwnerReference, Pod } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import type { Action } from "./actions.ts";
import { groupOf, isMemberOf, nameOf, uidOf } from "../objects/names.ts";
import { newControllerRef, newSetRef } from "../objects/pod.ts";
import { compileSelector, type LabelMatcher } from "../validation/labels.ts";

/**
 * Adoption and release of pods and revisions (upstream's ControllerRefManager): an orphan that
 * matches the selector (and, for pods, is named `<set>-<n>`) is adopted; an object this set
 * controls that no longer matches is released. Objects another controller owns are ignored.
 */

interface Ownable {
  metadata?: {
    name?: string;
    uid?: string;
    labels?: Record<string, string>;
    ownerReferences?: OwnerReference[];
    deletionTimestamp?: unknown;
  };
}

/** controllerOf returns the controller ownerReference of an object, if any. */
export const controllerOf = (o: Ownable): OwnerReference | undefined => o.metadata?.ownerReferences?.find((r) => r.controller);

/** namesSet is true when the reference names the set: its API group, kind and UID (as upstream matches a controller reference). */
function namesSet(ref: OwnerReference, set: StatefulSet): boolean {
  const own = newSetRef(set);
  return ref.uid === own.uid && ref.kind === own.kind && groupOf(ref.apiVersion) === groupOf(own.apiVersion);
}

export interface Claimed<T> {
  /** Objects this set controls after the planned adoptions and releases. */
  owned: T[];
  actions: Action[];
}

/**
 * claimPods is upstream's getPodsForStatefulSet: the pods the set owns after adopting orphans
 * that match the selector and are named `<set>-<ordinal>` (isMemberOf), and releasing owned pods
 * that no longer match. `matches` is the set's compiled selector (compiled once per pass).
 */
export function claimPods(set: StatefulSet, pods: readonly Pod[], matches: LabelMatcher = compileSelector(set.spec.selector)): Claimed<Pod> {
  return claimObjects(set, pods, "Pod", matches, (p) => isMemberOf(set, nameOf(p)));
}

/** claimRevisions is upstream's ListRevisions + ClaimControllerRevisions: the revisions the set owns after adoption and release. */
export function claimRevisions(
  set: StatefulSet,
  revisions: readonly ControllerRevision[],
  matches: LabelMatcher = compileSelector(set.spec.selector),
): Claimed<ControllerRevision> {
  return claimObjects(set, revisions, "Revision", matches, () => true);
}

/**
 * claimObjects returns the objects the set owns after adopting matching orphans and releasing
 * non-matching owned ones. `isMember` narrows adoption (pods: name pattern). No adoption while
 * the set is being deleted. An object whose controller is another (group, kind or UID) is left alone.
 */
function claimObjects<T extends Ownable>(
  set: StatefulSet,
  objects: readonly T[],
  kind: "Pod" | "Revision",
  selectorMatches: LabelMatcher,
  isMember: (o: T) => boolean,
): Claimed<T> {
  const owned: T[] = [];
  const actions: Action[] = [];
  const setDeleting = set.metadata.deletionTimestamp != null;
  for (const o of objects) {
    const ref = controllerOf(o);
    const matches = selectorMatches(o.metadata?.labels) && isMember(o);
    const name = nameOf(o);
    const uid = uidOf(o);
    if (ref) {
      if (!namesSet(ref, set)) continue;
      if (matches || setDeleting) {
        owned.push(o);
        continue;
      }
      const ownerReferences = (o.metadata?.ownerReferences ?? []).filter((r) => r.uid !== set.metadata.uid);
      actions.push({ type: kind === "Pod" ? "releasePod" : "releaseRevision", name, uid, ownerReferences });
      continue;
    }
    if (!matches || setDeleting || o.metadata?.deletionTimestamp != null) continue;
    const ownerReferences = [...(o.metadata?.ownerReferences ?? []), newControllerRef(set)];
    actions.push({ type: kind === "Pod" ? "adoptPod" : "adoptRevision", name, uid, ownerReferences });
    owned.push({ ...o, metadata: { ...o.metadata, ownerReferences } });
  }
  return { owned, actions };
}
