import type { ImageList } from "../api/imagelist.ts";
import type { Pod } from "../api/k8s.ts";
import { PULLER_LABEL } from "../objects/constants.ts";
import { canonicalJson } from "./hash.ts";
import { wholeSeconds } from "./inplace-state.ts";

/**
 * Where a puller pod may go and what it may carry, decided from the pods of the ImageList's
 * namespace already bound to its node (issue 19.2): an ImageList names any node, but Ordinal
 * pre-warms only a node that runs a pod of that namespace (the scheduler or a person with pod
 * rights put it there), and the puller pod tolerates only what those pods tolerate. Never
 * `operator: Exists` unless such a pod has it: a puller pod reaches no node, and no taint, the
 * namespace's own pods do not.
 */

type PodSpec = NonNullable<Pod["spec"]>;
export type Toleration = NonNullable<PodSpec["tolerations"]>[number];

/** At most this many tolerations on a puller pod (the first in canonical order; more are dropped). */
export const MAX_PULLER_TOLERATIONS = 64;

export interface PullerTarget {
  /** True when the node runs a pod of the ImageList's namespace (puller pods and finished pods do not count). */
  eligible: boolean;
  /** The union of those pods' tolerations (deduplicated, canonical order, bounded). */
  tolerations: Toleration[];
}

/** countsForNode is true for a pod that shows the namespace runs on the node: not a puller pod, not finished. */
const countsForNode = (p: Pod): boolean => p.metadata?.labels?.[PULLER_LABEL] === undefined && p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed";

/** pullerTarget returns what the pods of the ImageList's namespace bound to its node allow a puller pod there. */
export function pullerTarget(nodePods: readonly Pod[]): PullerTarget {
  const pods = nodePods.filter(countsForNode);
  const byKey = new Map<string, Toleration>();
  for (const p of pods) for (const t of p.spec?.tolerations ?? []) byKey.set(canonicalJson(t), t);
  const tolerations = [...byKey].sort(([a], [b]) => (a < b ? -1 : 1)).slice(0, MAX_PULLER_TOLERATIONS).map(([, t]) => t);
  return { eligible: pods.length > 0, tolerations };
}

/** nodeNotEligibleMessage returns why nothing is pulled onto the ImageList's node. */
export const nodeNotEligibleMessage = (list: ImageList): string =>
  `node "${list.metadata.name ?? ""}" runs no pod of namespace "${list.metadata.namespace ?? ""}": Ordinal pre-warms only nodes that run this namespace's pods`;

type ImageListCondition = NonNullable<NonNullable<ImageList["status"]>["conditions"]>[number];

/** The condition that says whether the ImageList's node may be pre-warmed. */
const NODE_ELIGIBLE_CONDITION = "NodeEligible";

/**
 * withNodeEligible returns the ImageList's conditions with NodeEligible set from `eligible`
 * (others kept in order; lastTransitionTime moves only when the status changes).
 */
export function withNodeEligible(list: ImageList, eligible: boolean, now: Date): ImageListCondition[] {
  const prev = list.status?.conditions ?? [];
  const status = eligible ? "True" : "False";
  const old = prev.find((c) => c.type === NODE_ELIGIBLE_CONDITION);
  const next: ImageListCondition = {
    type: NODE_ELIGIBLE_CONDITION,
    status,
    lastTransitionTime: old?.status === status && old.lastTransitionTime ? old.lastTransitionTime : wholeSeconds(now),
    reason: eligible ? "NamespaceRunsOnNode" : "NoPodOfNamespace",
    message: eligible ? `node "${list.metadata.name ?? ""}" runs a pod of namespace "${list.metadata.namespace ?? ""}"` : nodeNotEligibleMessage(list),
  };
  return old ? prev.map((c) => (c === old ? next : c)) : [...prev, next];
}

/** At most this many pull secrets on a puller pod (the ImageList's 16 first, then the sets'). */
export const MAX_PULLER_PULL_SECRETS = 64;

/** SetPullSources are what one set's pods pull with: its template's imagePullSecrets and its ServiceAccount's. */
export interface SetPullSources {
  templateSecrets: readonly string[];
  serviceAccountSecrets: readonly string[];
}

/**
 * pullSecretsFor returns the names of the Secrets a puller pod of the ImageList uses: the list's
 * own spec.imagePullSecrets, then, for the sets whose rollouts added entries (`sets`), their
 * template's and ServiceAccount's (deduplicated, in that order, at most MAX_PULLER_PULL_SECRETS).
 * All are Secrets of the ImageList's namespace, which its pods could name anyway.
 */
export function pullSecretsFor(list: ImageList, sets: readonly SetPullSources[]): string[] {
  const names = new Set<string>();
  for (const s of list.spec.imagePullSecrets ?? []) names.add(s.name);
  for (const s of sets) for (const n of [...s.templateSecrets, ...s.serviceAccountSecrets]) names.add(n);
  return [...names].filter((n) => n !== "").slice(0, MAX_PULLER_PULL_SECRETS);
}
