import type { OwnerReference } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import type { Action } from "./actions.ts";
import { newControllerRef } from "./pod.ts";
import { selectorMatches } from "../validation/labels.ts";

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

export interface Claimed<T> {
  /** Objects this set controls after the planned adoptions and releases. */
  owned: T[];
  actions: Action[];
}

/**
 * claimObjects returns the objects the set owns after adopting matching orphans and releasing
 * non-matching owned ones. `isMember` narrows adoption (pods: name pattern). No adoption while
 * the set is being deleted.
 */
export function claimObjects<T extends Ownable>(
  set: StatefulSet,
  objects: T[],
  kind: "Pod" | "Revision",
  isMember: (o: T) => boolean,
): Claimed<T> {
  const owned: T[] = [];
  const actions: Action[] = [];
  const setDeleting = set.metadata.deletionTimestamp != null;
  for (const o of objects) {
    const ref = controllerOf(o);
    const matches = selectorMatches(set.spec.selector, o.metadata?.labels) && isMember(o);
    const name = o.metadata?.name ?? "";
    const uid = o.metadata?.uid ?? "";
    if (ref) {
      if (ref.uid !== set.metadata.uid) continue;
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
