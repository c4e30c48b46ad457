import { StatefulSetSchema } from "../api/statefulset.ts";
import type { KubeClient } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import type { LookupStatefulSet } from "./mutate-pods.ts";

/**
 * lookupStatefulSetWith returns the mutating hook's set lookup over a KubeClient: one GET, parsed
 * with defaults filled (as the planner sees the set). A set that does not parse throws, which the
 * HTTP layer turns into an allow with a warning.
 */
export function lookupStatefulSetWith(client: KubeClient): LookupStatefulSet {
  return async (namespace, name) => {
    const raw = await client.get(R.statefulSets, namespace, name);
    return raw ? StatefulSetSchema.parse(raw) : undefined;
  };
}
