/**
 * kube-system on Kubernetes 1.20: the hooks' namespaceSelector excludes kube-system by its
 * kubernetes.io/metadata.name label, which namespaces carry from 1.21 only. Before that, the
 * binding hook (which no label narrows) would see every pod binding in kube-system, so whatever
 * registers the webhooks labels kube-system with the opt-out label, as `ordinal manifests
 * --kube-version 1.20` does, or says why it could not.
 */
import { ApiError, isNotFound, type KubeClient, type ServerVersion } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import { WEBHOOKS_OPT_OUT_LABEL } from "./webhook-configs.ts";

/** The first minor version of Kubernetes 1 whose namespaces carry kubernetes.io/metadata.name. */
const NAME_LABEL_SINCE = 21;

/** What optOutKubeSystem did: nothing to do, the label written or already there, or the apiserver's refusal. */
export type KubeSystemOptOut = { done: "not needed" | "labelled" | "already labelled" } | { refused: string };

/** needsKubeSystemOptOut returns true for an apiserver older than 1.21 (minor "20", or "20+" as some distributions print it). */
export function needsKubeSystemOptOut(version: ServerVersion): boolean {
  const minor = Number.parseInt(version.minor, 10);
  return version.major === "1" && Number.isInteger(minor) && minor < NAME_LABEL_SINCE;
}

/**
 * optOutKubeSystem labels kube-system `ordinal.dev/webhooks=disabled` on an apiserver older than
 * 1.21 and returns what it did; a write the apiserver refuses (RBAC) is returned as `refused`,
 * never thrown: registration itself has succeeded, and the caller warns.
 */
export async function optOutKubeSystem(client: KubeClient, version: ServerVersion): Promise<KubeSystemOptOut> {
  if (!needsKubeSystemOptOut(version)) return { done: "not needed" };
  try {
    const ns = await client.get<{ metadata?: { labels?: Record<string, string> } }>(R.namespaces, undefined, "kube-system");
    if (!ns) return { done: "not needed" };
    if (ns.metadata?.labels?.[WEBHOOKS_OPT_OUT_LABEL] === "disabled") return { done: "already labelled" };
    await client.patch(R.namespaces, undefined, "kube-system", { metadata: { labels: { [WEBHOOKS_OPT_OUT_LABEL]: "disabled" } } }, "merge");
    return { done: "labelled" };
  } catch (e) {
    if (isNotFound(e)) return { done: "not needed" };
    if (e instanceof ApiError) return { refused: e.message };
    throw e;
  }
}

/** kubeSystemWarning is what a person reads when kube-system could not be labelled: what it costs and the command that fixes it. */
export const kubeSystemWarning = (refusal: string): string =>
  `warning: this apiserver is older than Kubernetes 1.21, where the webhooks cannot exclude kube-system by name, and kube-system could not be labelled ${WEBHOOKS_OPT_OUT_LABEL}=disabled (${refusal}): ` +
  `every pod binding in kube-system now waits for the binding hook (failurePolicy Ignore, timeout 1 s). Fix: kubectl label ns kube-system ${WEBHOOKS_OPT_OUT_LABEL}=disabled`;
