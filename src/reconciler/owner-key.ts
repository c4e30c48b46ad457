import type { OwnerReference } from "../api/k8s.ts";
import { controllerOf } from "../core/ownership.ts";
import { groupOf, namespaceOf } from "../objects/names.ts";

/**
 * The key a pass groups owned objects by, as upstream matches a controller reference: an object
 * belongs to the controller of its own namespace whose API group, kind and UID its controller
 * reference names. UIDs are visible to anyone who can read a pod or an event, so a UID alone is
 * no proof: a pod in another namespace (or naming another kind) with the same UID is not ours.
 */

type OwnerFields = Pick<OwnerReference, "apiVersion" | "kind" | "uid">;

/** ownerKey returns the key of the objects in `namespace` that `owner` (apiVersion, kind, uid) controls. */
export const ownerKey = (namespace: string, owner: OwnerFields): string => JSON.stringify([namespace, groupOf(owner.apiVersion), owner.kind, owner.uid]);

/** controllerKeyOf returns the key of an object's controller (its own namespace and its controller reference); undefined for an orphan. */
export function controllerKeyOf(o: Parameters<typeof controllerOf>[0] & { metadata?: { namespace?: string } }): string | undefined {
  const ref = controllerOf(o);
  return ref && ownerKey(namespaceOf(o), ref);
}
