import type { PersistentVolumeClaim, Pod, PodCondition } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import type { Action } from "./actions.ts";
import { INPLACE_READY_CONDITION, POD_INDEX_LABEL, POD_NAME_LABEL, SET_NAME_LABEL } from "../objects/constants.ts";
import { getClaimName, getPodName, nameOf, resourceVersionOf, uidOf } from "../objects/names.ts";
import type { PlanContext } from "./plan-context.ts";
import { newClaims } from "../objects/pod.ts";
import { isTerminating } from "./pod-state.ts";
import { claimOwnersMatch, wantedClaimOwners } from "./retention.ts";

/**
 * The small repairs the replica and scale-down phases plan on a pod they keep: missing claims,
 * claim owners per the retention policy, the InPlaceUpdateReady condition, identity labels.
 * Each returns actions (possibly none) and never changes its inputs.
 */

/**
 * missingClaims returns the claims the pod of `ordinal` needs that do not exist yet (with the
 * owners the retention policy wants), and `stale` when one exists but is terminating: the pod
 * must wait for it to be gone.
 */
export function missingClaims(ctx: PlanContext, ordinal: number): { create: PersistentVolumeClaim[]; stale: boolean } {
  const create: PersistentVolumeClaim[] = [];
  let stale = false;
  for (const claim of newClaims(ctx.set, ordinal)) {
    const existing = ctx.claims.get(nameOf(claim));
    if (!existing) {
      const ownerReferences = wantedClaimOwners(ctx, claim, undefined, ordinal);
      create.push(ownerReferences.length ? { ...claim, metadata: { ...claim.metadata, ownerReferences } } : claim);
    } else if (existing.metadata?.deletionTimestamp != null) stale = true;
  }
  return { create, stale };
}

/** createClaims returns createClaim actions for `claims`, on behalf of pod `podName`. */
export const createClaims = (claims: PersistentVolumeClaim[], podName: string): Action[] =>
  claims.map((claim) => ({ type: "createClaim", claim, pod: podName }));

/** fixClaimOwners returns setClaimOwners for the pod's existing claims whose owners do not follow the retention policy. */
export function fixClaimOwners(ctx: PlanContext, pod: Pod, ordinal: number): Action[] {
  const actions: Action[] = [];
  for (const tpl of ctx.set.spec.volumeClaimTemplates ?? []) {
    const claim = ctx.claims.get(getClaimName(ctx.set, tpl.metadata.name, ordinal));
    if (!claim || claim.metadata?.deletionTimestamp != null) continue;
    if (claimOwnersMatch(ctx, claim, pod, ordinal)) continue;
    actions.push({
      type: "setClaimOwners",
      name: nameOf(claim),
      uid: uidOf(claim),
      ownerReferences: wantedClaimOwners(ctx, claim, pod, ordinal),
      pod: nameOf(pod),
    });
  }
  return actions;
}

/**
 * ensureGateCondition returns setting InPlaceUpdateReady True on a pod that carries the gate but
 * has no such condition yet, so new pods can become Ready (the kubelet ANDs readiness gates).
 */
export function ensureGateCondition(pod: Pod, now: Date): Action[] {
  const gated = pod.spec?.readinessGates?.some((g) => g.conditionType === INPLACE_READY_CONDITION);
  const conditions = pod.status?.conditions ?? [];
  if (!gated || isTerminating(pod) || conditions.some((c) => c.type === INPLACE_READY_CONDITION)) return [];
  const cond: PodCondition = { type: INPLACE_READY_CONDITION, status: "True", lastTransitionTime: now.toISOString() as unknown as Date };
  return [
    {
      type: "setPodCondition",
      name: nameOf(pod),
      uid: uidOf(pod),
      resourceVersion: resourceVersionOf(pod),
      conditions: [cond],
    },
  ];
}

/**
 * ensureGateConditions returns ensureGateCondition for every pod, before any phase may halt: a
 * pod that lacks the condition can never become Ready, and OrderedReady would wait on it forever
 * (e.g. a condemned pod below a failed one: scale-down waits for it to be the first unhealthy).
 */
export const ensureGateConditions = (pods: readonly Pod[], now: Date): Action[] => pods.flatMap((p) => ensureGateCondition(p, now));

/** repairIdentity returns restoring the identity labels a pod lost (spec fields cannot change in place). */
export function repairIdentity(set: StatefulSet, pod: Pod, ordinal: number): Action[] {
  const name = getPodName(set, ordinal);
  const want: Record<string, string> = {
    [POD_NAME_LABEL]: name,
    [POD_INDEX_LABEL]: String(ordinal),
    [SET_NAME_LABEL]: set.metadata.name ?? "",
  };
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(want)) if (pod.metadata?.labels?.[k] !== v) labels[k] = v;
  return Object.keys(labels).length ? [{ type: "repairPodLabels", name, uid: uidOf(pod), labels }] : [];
}
