/** Builders for planner tests (test/support/fixtures.ts, with the planner tests' names and defaults). */
import type { PersistentVolumeClaim } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { NOW, claimTemplate, newClaim, newPod, newSet, revisionOf, type PodState } from "../support/fixtures.ts";

export { NOW, revisionOf, type PodState };

/** makeSet is `ns/web` (uid set-uid, generation 1): 3 replicas, image img:1, claim template `www`; `spec` and `meta` merged over it. */
export function makeSet(spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}, status?: Record<string, unknown>): StatefulSet {
  return newSet({ namespace: "ns", metadata: { uid: "set-uid", generation: 1, ...meta }, spec: { volumeClaimTemplates: [claimTemplate("www")], ...spec } }, status);
}

/** pod is newPod: the set's pod for `ordinal` at `revision` in the given state. */
export const pod = newPod;

/** claimFor is the set's `www` claim for `ordinal`, with `extra` metadata. */
export const claimFor = (set: StatefulSet, ordinal: number, extra: Record<string, unknown> = {}): PersistentVolumeClaim => newClaim(set, ordinal, "www", extra);
