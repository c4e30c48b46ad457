import type { ImageList } from "../api/imagelist.ts";
import type { ControllerRevision, PersistentVolumeClaim, Pod } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import { SET_NAME_LABEL } from "../objects/constants.ts";
import { getParentNameAndOrdinal, namespaceOf, nameOf } from "../objects/names.ts";
import { newSetRef } from "../objects/pod.ts";
import { controllerKeyOf, ownerKey } from "./owner-key.ts";

/**
 * The per-pass index: what one pass read, grouped once so that each set finds its objects in
 * time proportional to their number, not to the namespace's (a converged pass costs O(objects +
 * sets), not O(sets × objects)):
 * - pods and revisions with a controller, by their namespace and the controller's API group, kind
 *   and UID (owner-key.ts: a pod in another namespace naming a set's UID is not the set's);
 * - orphan pods by namespace and the set name their name implies (`<set>-<ordinal>`: upstream
 *   adopts no other), orphan revisions by namespace (the planner matches them to the selector);
 * - claims by namespace and the `ordinal.dev/statefulset` label the claims we create carry;
 * - ImageLists by namespace and name (pre-warm writes replace them as the pass goes).
 */

export interface SetObjects {
  pods: Pod[];
  claims: PersistentVolumeClaim[];
  revisions: ControllerRevision[];
  /** The ImageLists of the set's namespace (pre-warm). */
  imageLists: ImageList[];
}

export interface PassIndex {
  /** objectsFor returns the objects the set owns or could adopt, its claims and its namespace's ImageLists. */
  objectsFor(set: StatefulSet): SetObjects;
  /** imageLists returns every ImageList of the pass, as last written. */
  imageLists(): ImageList[];
  /** imageListsIn returns the ImageLists of one namespace, as last written. */
  imageListsIn(namespace: string): ImageList[];
  /** putImageList replaces (or adds) an ImageList with the one a write returned, so later sets plan from it. */
  putImageList(list: ImageList): void;
}

const push = <K, V>(m: Map<K, V[]>, k: K, v: V) => {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
};

/** indexObjects returns the index of one pass's lists. */
export function indexObjects(
  pods: readonly Pod[],
  claims: readonly PersistentVolumeClaim[],
  revisions: readonly ControllerRevision[],
  imageLists: readonly ImageList[],
): PassIndex {
  const podsByOwner = new Map<string, Pod[]>();
  const orphanPods = new Map<string, Pod[]>();
  for (const p of pods) {
    const owner = controllerKeyOf(p);
    if (owner) push(podsByOwner, owner, p);
    else {
      const parsed = getParentNameAndOrdinal(nameOf(p));
      if (parsed) push(orphanPods, `${namespaceOf(p)}/${parsed.parent}`, p);
    }
  }
  const revsByOwner = new Map<string, ControllerRevision[]>();
  const orphanRevs = new Map<string, ControllerRevision[]>();
  for (const r of revisions) {
    const owner = controllerKeyOf(r);
    if (owner) push(revsByOwner, owner, r);
    else push(orphanRevs, namespaceOf(r), r);
  }
  const claimsBySet = new Map<string, PersistentVolumeClaim[]>();
  for (const c of claims) {
    const setName = c.metadata?.labels?.[SET_NAME_LABEL];
    if (setName !== undefined) push(claimsBySet, `${namespaceOf(c)}/${setName}`, c);
  }
  const listsByNs = new Map<string, Map<string, ImageList>>();
  const putImageList = (l: ImageList) => {
    const ns = namespaceOf(l);
    const m = listsByNs.get(ns) ?? new Map<string, ImageList>();
    m.set(nameOf(l), l);
    listsByNs.set(ns, m);
  };
  for (const l of imageLists) putImageList(l);
  const imageListsIn = (ns: string) => [...(listsByNs.get(ns)?.values() ?? [])];
  return {
    putImageList,
    imageListsIn,
    imageLists: () => [...listsByNs.values()].flatMap((m) => [...m.values()]),
    objectsFor(set) {
      const ns = namespaceOf(set);
      const key = `${ns}/${nameOf(set)}`;
      const owner = ownerKey(ns, newSetRef(set));
      return {
        pods: [...(podsByOwner.get(owner) ?? []), ...(orphanPods.get(key) ?? [])],
        claims: claimsBySet.get(key) ?? [],
        revisions: [...(revsByOwner.get(owner) ?? []), ...(orphanRevs.get(ns) ?? [])],
        imageLists: imageListsIn(ns),
      };
    },
  };
}
