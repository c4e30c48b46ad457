import { ApiError, type KubeClient } from "../kube/client.ts";
import { R } from "../kube/resources.ts";

/**
 * Deleting a chosen pod through the eviction API (pods/NAME/eviction), so PodDisruptionBudgets
 * hold: the apiserver deletes the pod only when the budget that selects it allows a disruption now,
 * and answers 429 otherwise (src/kube/client.ts: isDisruptionBudgetRefusal; the pass waits and
 * asks again). Kubernetes 1.20 takes a policy/v1beta1 Eviction and knows no policy/v1 one (1.22
 * added it); later versions take both, and one that dropped v1beta1 refuses it with a 400 naming
 * the version: then policy/v1 is sent, and remembered for the process.
 */

const VERSIONS = ["policy/v1beta1", "policy/v1"] as const;
let preferred = 0;

/** isVersionRefusal is true for the 400 of an apiserver that does not know this Eviction version. */
const isVersionRefusal = (e: unknown, version: string): boolean => e instanceof ApiError && e.code === 400 && e.message.includes(version);

/**
 * evictPod evicts the pod `name` whose uid is `uid` (a precondition: a pod made again since is not
 * evicted blindly), and, when given, whose resourceVersion is `resourceVersion` (a pod changed since
 * it was read — its role label moved — is not evicted: 409). Returns false when the pod is gone already (404), true when the apiserver
 * deleted it (or began to); throws the apiserver's refusal otherwise (429: a budget holds it).
 */
export async function evictPod(client: KubeClient, namespace: string | undefined, name: string, uid: string, resourceVersion?: string): Promise<boolean> {
  for (let tries = 0; tries < VERSIONS.length; tries++) {
    const apiVersion = VERSIONS[preferred];
    const eviction = { apiVersion, kind: "Eviction", metadata: { name, namespace }, deleteOptions: { preconditions: resourceVersion ? { uid, resourceVersion } : { uid } } };
    try {
      await client.createSubresource(R.pods, namespace, name, "eviction", eviction);
      return true;
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return false;
      if (!isVersionRefusal(e, apiVersion) || tries === VERSIONS.length - 1) throw e;
      preferred = 1 - preferred;
    }
  }
  return false;
}
