import type { Pod } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import { getEndOrdinal, getParentNameAndOrdinal, getStartOrdinal } from "../core/names.ts";
import { addReadinessGate, updateIdentity, updateStorage } from "../core/pod.ts";
import { ordinalSetOf } from "./membership.ts";
import { diff, encodePatch, type PatchOperation } from "./patch.ts";
import { allow, type AdmissionRequest, type AdmissionResult } from "./types.ts";

/** Finds a set by namespace and name; undefined when it does not exist. */
export type LookupStatefulSet = (namespace: string, name: string) => Promise<StatefulSet | undefined>;

export interface MutatePodOptions {
  lookupStatefulSet?: LookupStatefulSet;
}

/**
 * withOrdinalIdentity returns a copy of the pod with what the planner gives every pod of the set:
 * identity (name, pod-name / pod-index / set-name labels, hostname, subdomain), one PVC volume per
 * claim template, and the InPlaceUpdateReady readiness gate. The same functions build the
 * reconciler's pods, so both end up equal.
 */
export function withOrdinalIdentity(set: StatefulSet, pod: Pod, ordinal: number): Pod {
  const copy = structuredClone(pod);
  updateIdentity(set, copy, ordinal);
  updateStorage(set, copy, ordinal);
  addReadinessGate(copy);
  return copy;
}

/** identityPatch returns the JSON Patch that gives `pod` its identity in `set`; empty when it has it. */
export function identityPatch(set: StatefulSet, pod: Pod, ordinal: number): PatchOperation[] {
  return diff(pod, withOrdinalIdentity(set, pod, ordinal));
}

/**
 * mutatePod answers a pod CREATE: a pod of an Ordinal set gets its identity as a JSON Patch.
 * Pods that are not ours pass untouched; ours that cannot be placed (no `<set>-<n>` name, set not
 * found) pass with a warning, since refusing them would not make them correct either.
 */
export async function mutatePod(req: AdmissionRequest, opts: MutatePodOptions): Promise<AdmissionResult> {
  if (req.operation !== "CREATE" || req.subResource) return { response: allow(req) };
  const pod = req.object as Pod;
  const setName = ordinalSetOf(pod);
  if (!setName) return { response: allow(req) };

  const namespace = pod.metadata?.namespace || req.namespace || "default";
  const podName = pod.metadata?.name || req.name || "";
  const parsed = getParentNameAndOrdinal(podName);
  if (!parsed || parsed.parent !== setName) {
    const shown = podName ? `"${podName}"` : "(none yet: generateName is not supported)";
    return {
      response: allow(req, [
        `pod name ${shown} is not "${setName}-<ordinal>": Ordinal cannot give it an identity in StatefulSet ${setName}; name pods of the set ${setName}-0, ${setName}-1, …`,
      ]),
    };
  }
  if (!opts.lookupStatefulSet) {
    return { response: allow(req, [`Ordinal cannot look up StatefulSet ${namespace}/${setName} (no apiserver client configured): pod ${podName} was created without its identity`]) };
  }
  const set = await opts.lookupStatefulSet(namespace, setName);
  if (!set) {
    return {
      response: allow(req, [
        `Ordinal StatefulSet ${namespace}/${setName} not found: pod ${podName} was created without its identity (labels, volumes, readiness gate); create the set first`,
      ]),
    };
  }

  const warnings: string[] = [];
  const start = getStartOrdinal(set);
  const end = getEndOrdinal(set);
  if (parsed.ordinal < start || parsed.ordinal >= end) {
    warnings.push(`pod ${podName}: ordinal ${parsed.ordinal} is outside StatefulSet ${setName}'s range [${start}, ${end}); the reconciler will not keep it`);
  }
  const ops = identityPatch(set, pod, parsed.ordinal);
  const response = allow(req, warnings);
  if (ops.length > 0) {
    response.patchType = "JSONPatch";
    response.patch = encodePatch(ops);
  }
  return { response };
}
