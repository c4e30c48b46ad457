import type { OwnerReference, PersistentVolumeClaim, Pod, Volume } from "../api/k8s.ts";
import { API_VERSION, KIND, type StatefulSet } from "../api/statefulset.ts";
import {
  LIFECYCLE_STATE_LABEL,
  INPLACE_READY_CONDITION,
  POD_CONTROL_ANNOTATIONS,
  POD_CONTROL_LABELS,
  POD_INDEX_LABEL,
  POD_NAME_LABEL,
  REVISION_LABEL,
  SET_NAME_LABEL,
} from "./constants.ts";
import { cloneJSON } from "./clone.ts";
import { getClaimName, getPodName } from "./names.ts";

/**
 * Pod and PVC builders and the identity/storage predicates, after upstream's
 * stateful_set_utils.go. The mutating webhook, the planner and the validation of the pods a set
 * implies all use these, so a pod made by hand, by a restore tool or by the reconciler ends up
 * the same.
 */

/**
 * newSetRef returns a plain (non-controller) ownerReference to the set: the one a PVC carries
 * under a whenDeleted=Delete retention policy.
 */
export function newSetRef(set: StatefulSet): OwnerReference {
  return { apiVersion: API_VERSION, kind: KIND, name: set.metadata.name ?? "", uid: set.metadata.uid ?? "" };
}

/** newControllerRef returns the ownerReference a pod or revision of the set carries. */
export function newControllerRef(set: StatefulSet): OwnerReference {
  return { ...newSetRef(set), controller: true, blockOwnerDeletion: true };
}

/** withoutKeys returns a copy of `map` without `keys` (undefined when nothing is left of an undefined map). */
function withoutKeys(map: Record<string, string> | undefined, keys: readonly string[]): Record<string, string> | undefined {
  if (!map) return undefined;
  const out = { ...map };
  for (const k of keys) delete out[k];
  return out;
}

/**
 * newStatefulSetPod returns the pod for `ordinal` built from the set's template, with identity,
 * storage, the revision label, the InPlaceUpdateReady readiness gate and, with spec.lifecycle,
 * lifecycle state Normal. The template's control keys (POD_CONTROL_LABELS, POD_CONTROL_ANNOTATIONS:
 * refused by validation, but a set may have been stored past it) are not copied: a pod the
 * reconciler creates never asks for its own deletion. Pure: it copies the template.
 */
export function newStatefulSetPod(set: StatefulSet, ordinal: number, revision?: string): Pod {
  const tpl = cloneJSON(set.spec.template);
  const labels: Record<string, string> = withoutKeys(tpl.metadata?.labels, POD_CONTROL_LABELS) ?? {};
  const annotations = withoutKeys(tpl.metadata?.annotations, POD_CONTROL_ANNOTATIONS);
  if (revision) labels[REVISION_LABEL] = revision;
  // Kruise's Advanced StatefulSet creates pods in lifecycle state Normal.
  if (set.spec.lifecycle) labels[LIFECYCLE_STATE_LABEL] = "Normal";
  const pod: Pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: getPodName(set, ordinal),
      namespace: set.metadata.namespace,
      labels,
      ...(annotations ? { annotations } : {}),
      ownerReferences: [newControllerRef(set)],
    },
    spec: tpl.spec,
  };
  updateIdentity(set, pod, ordinal);
  updateStorage(set, pod, ordinal);
  addReadinessGate(pod);
  return pod;
}

/**
 * updateIdentity sets the pod's name-derived identity in place: pod-name, pod-index and set-name
 * labels, hostname and subdomain (serviceName). Returns the pod.
 */
export function updateIdentity(set: StatefulSet, pod: Pod, ordinal: number): Pod {
  const name = getPodName(set, ordinal);
  pod.metadata ??= {};
  pod.metadata.name = name;
  if (set.metadata.namespace) pod.metadata.namespace = set.metadata.namespace;
  pod.metadata.labels ??= {};
  pod.metadata.labels[POD_NAME_LABEL] = name;
  pod.metadata.labels[POD_INDEX_LABEL] = String(ordinal);
  pod.metadata.labels[SET_NAME_LABEL] = set.metadata.name ?? "";
  pod.spec ??= { containers: [] };
  pod.spec.hostname = name;
  if (set.spec.serviceName) pod.spec.subdomain = set.spec.serviceName;
  else delete pod.spec.subdomain;
  return pod;
}

/**
 * updateStorage points one volume per claim template at the ordinal's PVC, replacing a template
 * volume of the same name, claim volumes first in template order. Returns the pod.
 */
export function updateStorage(set: StatefulSet, pod: Pod, ordinal: number): Pod {
  const claims = set.spec.volumeClaimTemplates ?? [];
  if (claims.length === 0) return pod;
  pod.spec ??= { containers: [] };
  const claimNames = new Set(claims.map((c) => c.metadata.name));
  const volumes: Volume[] = claims.map((c) => ({
    name: c.metadata.name,
    persistentVolumeClaim: { claimName: getClaimName(set, c.metadata.name, ordinal) },
  }));
  for (const v of pod.spec.volumes ?? []) if (!claimNames.has(v.name)) volumes.push(v);
  pod.spec.volumes = volumes;
  return pod;
}

/** addReadinessGate adds the InPlaceUpdateReady readiness gate when missing. Returns the pod. */
export function addReadinessGate(pod: Pod): Pod {
  pod.spec ??= { containers: [] };
  const gates = (pod.spec.readinessGates ??= []);
  if (!gates.some((g) => g.conditionType === INPLACE_READY_CONDITION)) gates.push({ conditionType: INPLACE_READY_CONDITION });
  return pod;
}

/** identityMatches is true when the pod's name, labels, hostname and subdomain fit the ordinal. */
export function identityMatches(set: StatefulSet, pod: Pod, ordinal: number): boolean {
  const name = getPodName(set, ordinal);
  const labels = pod.metadata?.labels ?? {};
  return (
    pod.metadata?.name === name &&
    labels[POD_NAME_LABEL] === name &&
    labels[POD_INDEX_LABEL] === String(ordinal) &&
    labels[SET_NAME_LABEL] === set.metadata.name &&
    pod.spec?.hostname === name &&
    (pod.spec?.subdomain ?? "") === set.spec.serviceName
  );
}

/** storageMatches is true when every claim template's volume points at the ordinal's PVC. */
export function storageMatches(set: StatefulSet, pod: Pod, ordinal: number): boolean {
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  return (set.spec.volumeClaimTemplates ?? []).every(
    (c) => volumes.get(c.metadata.name)?.persistentVolumeClaim?.claimName === getClaimName(set, c.metadata.name, ordinal),
  );
}

/**
 * newClaims returns the PVCs the pod of `ordinal` needs, one per claim template, labelled with
 * the set's matchLabels (as upstream does) and our set-name label.
 */
export function newClaims(set: StatefulSet, ordinal: number): PersistentVolumeClaim[] {
  return (set.spec.volumeClaimTemplates ?? []).map((tpl) => {
    const labels = { ...(tpl.metadata.labels ?? {}), ...(set.spec.selector.matchLabels ?? {}) };
    labels[SET_NAME_LABEL] = set.metadata.name ?? "";
    const claim: PersistentVolumeClaim = {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: {
        name: getClaimName(set, tpl.metadata.name, ordinal),
        namespace: set.metadata.namespace,
        labels,
        ...(tpl.metadata.annotations ? { annotations: { ...tpl.metadata.annotations } } : {}),
      },
      spec: cloneJSON(tpl.spec),
    };
    return claim;
  });
}
