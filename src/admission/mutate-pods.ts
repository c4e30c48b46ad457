import type { Pod } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import { getParentNameAndOrdinal } from "../objects/names.ts";
import { addReadinessGate, updateIdentity, updateStorage } from "../objects/pod.ts";
import { isObject } from "../validation/json.ts";
import { controllerRefOf, isOrdinalSetRef, ordinalSetOf } from "./membership.ts";
import { diff, encodePatch, type PatchOperation } from "./patch.ts";
import { allow, deny, type AdmissionRequest, type AdmissionResult } from "./types.ts";

/**
 * Finds a set by namespace and name; undefined when it does not exist. `uid`, when given, is the
 * uid the pod's controller reference names: a cached set with that uid may be returned (the
 * fields the identity patch reads are immutable for a given uid), anything else is fetched.
 */
export type LookupStatefulSet = (namespace: string, name: string, uid?: string) => Promise<StatefulSet | undefined>;

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
  // Copies exactly what updateIdentity, updateStorage and addReadinessGate write (metadata, its
  // labels map, spec, its readinessGates list; volumes are replaced whole), not the whole pod:
  // cloning a 4 KB pod was the largest cost of a mutate request.
  const copy = shallowCopy(pod);
  if (pod.metadata) {
    copy.metadata = shallowCopy(pod.metadata);
    if (isObject(pod.metadata.labels)) copy.metadata.labels = shallowCopy(pod.metadata.labels);
  }
  if (pod.spec) {
    copy.spec = shallowCopy(pod.spec);
    if (pod.spec.readinessGates) copy.spec.readinessGates = [...pod.spec.readinessGates];
  }
  updateIdentity(set, copy, ordinal);
  updateStorage(set, copy, ordinal);
  addReadinessGate(copy);
  return copy;
}

/**
 * shallowCopy returns a copy of a JSON object's own members, as `{ ...o }` does. Object.assign
 * onto `{}` is the cheap way to get it in V8: a spread copy of a JSON.parse'd object gets a map
 * of its own, so every key added to it afterwards (the identity labels, hostname, subdomain) builds
 * a new map, about half a microsecond each. A member named `__proto__` would set the copy's
 * prototype under Object.assign, so an object with one is spread.
 */
function shallowCopy<T extends object>(o: T): T {
  return Object.hasOwn(o, "__proto__") ? { ...o } : Object.assign({}, o);
}

/** identityPatch returns the JSON Patch that gives `pod` its identity in `set`; empty when it has it. */
export function identityPatch(set: StatefulSet, pod: Pod, ordinal: number): PatchOperation[] {
  return diff(pod, withOrdinalIdentity(set, pod, ordinal));
}

/**
 * mutatePod answers a pod CREATE: a pod of an Ordinal set gets its identity as a JSON Patch.
 * Pods that are not ours pass untouched; ours that cannot be placed pass, since refusing them would
 * not make them correct either: with a warning when the name is not `<set>-<n>` (the request alone
 * says so), without one when the set is not found. The answer reveals nothing of the set but what
 * the patch needs (G7 of issue 35: with WEBHOOK_AUTH=none anyone who reaches the webhook can send a
 * review naming any namespace's set; docs/security.md): no warning says whether the set exists, nor
 * its ordinal range (a pod outside it is patched like any other, and the reconciler deletes it).
 */
export async function mutatePod(req: AdmissionRequest, opts: MutatePodOptions): Promise<AdmissionResult> {
  if (req.operation !== "CREATE" || req.subResource) return { response: allow(req) };
  const pod = req.object as Pod;
  const setName = ordinalSetOf(pod);
  if (!setName) return { response: allow(req) };

  const namespace = pod.metadata?.namespace || req.namespace || "default";
  const podName = pod.metadata?.name || req.name || "";
  const parsed = getParentNameAndOrdinal(podName);
  // Only the canonical `<set>-<n>` is a member: "web-01" parses to ordinal 1 but is not web-1.
  if (!parsed || parsed.parent !== setName || podName !== `${setName}-${parsed.ordinal}`) {
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
  const ref = controllerRefOf(pod);
  const set = await opts.lookupStatefulSet(namespace, setName, ref && isOrdinalSetRef(ref) ? ref.uid : undefined);
  if (!set) return { response: allow(req) };
  const ops = identityPatch(set, pod, parsed.ordinal);
  const response = allow(req);
  if (ops.length > 0) {
    response.patchType = "JSONPatch";
    response.patch = encodePatch(ops);
  }
  return { response };
}

/**
 * mutatePodFailed is the answer when mutatePod throws: a pod of an Ordinal set is refused (500,
 * so the creator retries) rather than admitted without its identity, PVC volumes and readiness
 * gate; any other pod is admitted with a warning. Timeouts are not seen here: the webhook's
 * failurePolicy decides those.
 */
export function mutatePodFailed(req: AdmissionRequest, message: string): AdmissionResult {
  const setName = ordinalSetOf(req.object as Pod | undefined);
  if (!setName) return { response: allow(req, [`Ordinal's mutating webhook failed (${message}); the object was admitted unchanged`]) };
  return {
    response: deny(req, {
      code: 500,
      reason: "InternalError",
      message: `Ordinal's mutating webhook failed (${message}): a pod of StatefulSet ${setName} is refused rather than created without its identity; retry`,
    }),
  };
}
