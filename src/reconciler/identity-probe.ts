import type { Pod } from "../api/k8s.ts";
import { ApiError, type KubeClient } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import { INPLACE_STATE_ANNOTATION, SET_NAME_LABEL } from "../objects/constants.ts";
import { parseIdentityRefusal, type IdentityRefusal } from "../objects/reconciler-identity.ts";

/**
 * Does Ordinal's pod webhook take us for the reconciler? One server-side dry run answers it
 * before any real write is refused: a pod that carries the set label (so it reaches the pod
 * hooks) and the in-place state annotation (which only the reconciler may write), created with
 * dryRun=All in the lease namespace. Nothing is stored; the webhooks see the request with our
 * user, as they see every write of ours.
 */

export type IdentityProbe =
  /** Admitted: the webhook takes us for the reconciler (or no webhook is registered, or it is down with failurePolicy Ignore). */
  | { ok: true }
  /** Refused for identity: whom the webhook expects, who we are. */
  | { ok: false; refusal: IdentityRefusal }
  /** Refused for another reason (RBAC, the namespace is missing…): the probe says nothing about identity. */
  | { ok: undefined; error: string };

/** The probe pod: never stored (dryRun), named to be recognised in audit logs. */
function probePod(): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName: "ordinal-identity-probe-",
      labels: { [SET_NAME_LABEL]: "ordinal-identity-probe" },
      annotations: { [INPLACE_STATE_ANNOTATION]: "{}" },
    },
    spec: { automountServiceAccountToken: false, containers: [{ name: "probe", image: "registry.k8s.io/pause:3.9" }] },
  };
}

/** probeReconcilerIdentity returns what Ordinal's webhook says of our identity (see IdentityProbe). */
export async function probeReconcilerIdentity(client: KubeClient, namespace: string): Promise<IdentityProbe> {
  try {
    await client.create(R.pods, namespace, probePod(), { dryRun: true });
    return { ok: true };
  } catch (e) {
    const refusal = e instanceof ApiError ? parseIdentityRefusal(e.message) : undefined;
    if (refusal) return { ok: false, refusal };
    return { ok: undefined, error: e instanceof Error ? e.message : String(e) };
  }
}
