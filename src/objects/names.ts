import type { StatefulSet } from "../api/statefulset.ts";

/** getPodName returns the name of the set's pod with the given ordinal: `<set>-<ordinal>`. */
export function getPodName(set: StatefulSet, ordinal: number): string {
  return `${set.metadata.name}-${ordinal}`;
}

/**
 * getParentNameAndOrdinal splits a pod name into set name and ordinal, or returns undefined when
 * the name does not end in `-<non-negative integer>` (upstream's statefulPodRegex).
 */
export function getParentNameAndOrdinal(podName: string): { parent: string; ordinal: number } | undefined {
  // Anchored at the start (upstream's regex is not): unanchored, a long name without a match is
  // tried from every position, quadratic work on a hostile name. The matches are the same.
  const m = /^(.*)-([0-9]+)$/.exec(podName);
  if (!m) return undefined;
  const ordinal = Number(m[2]);
  if (!Number.isSafeInteger(ordinal)) return undefined;
  return { parent: m[1], ordinal };
}

/** getOrdinal returns the ordinal of a pod name, or -1 when it has none. */
export function getOrdinal(podName: string): number {
  return getParentNameAndOrdinal(podName)?.ordinal ?? -1;
}

/** getClaimName returns the PVC name of a claim template for an ordinal: `<claim>-<set>-<ordinal>`. */
export function getClaimName(set: StatefulSet, claimTemplateName: string, ordinal: number): string {
  return `${claimTemplateName}-${set.metadata.name}-${ordinal}`;
}

/** isMemberOf is true when the pod's name is `<set>-<ordinal>` for this set. */
export function isMemberOf(set: StatefulSet, podName: string): boolean {
  return getParentNameAndOrdinal(podName)?.parent === set.metadata.name;
}

/** nameOf returns an object's metadata.name ("" when unset: objects the planner builds always have one). */
export const nameOf = (o: { metadata?: { name?: string } }): string => o.metadata?.name ?? "";

/** namespaceOf returns an object's metadata.namespace ("" when unset: objects read from the apiserver always have one). */
export const namespaceOf = (o: { metadata?: { namespace?: string } }): string => o.metadata?.namespace ?? "";

/** uidOf returns an object's metadata.uid ("" for an object not created yet). */
export const uidOf = (o: { metadata?: { uid?: string } }): string => o.metadata?.uid ?? "";

/** resourceVersionOf returns an object's metadata.resourceVersion ("" for an object not read from the apiserver). */
export const resourceVersionOf = (o: { metadata?: { resourceVersion?: string } }): string => o.metadata?.resourceVersion ?? "";

/** groupOf returns the API group of an apiVersion ("apps.ordinal.dev/v1" is "apps.ordinal.dev", the core "v1" is ""). */
export const groupOf = (apiVersion: string | undefined): string => {
  const v = apiVersion ?? "";
  const slash = v.indexOf("/");
  return slash === -1 ? "" : v.slice(0, slash);
};
