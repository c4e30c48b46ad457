import type { PersistentVolumeClaim, Pod } from "../api/k8s.ts";
import type { StatefulSet, VolumeClaimStatus } from "../api/statefulset.ts";
import type { Action } from "./actions.ts";
import { getClaimName, nameOf, uidOf } from "../objects/names.ts";
import { storageMatches } from "../objects/pod.ts";
import { compareQuantities, parseQuantity, type Quantity } from "../validation/quantity.ts";
import { updateStrategyOf } from "./update-strategy.ts";

/**
 * Claim templates that change (spec.volumeClaimUpdateStrategy), calculated per pod as Kruise
 * calculates an in-place update: what the pod's claims and volumes lack against the templates
 * (calculateClaimUpdate), applied by the rolling update in its order (rolling-update.ts) and by
 * the replicas phase before a missing pod is created (replicas.ts). Revisions hold the pod
 * template only (as upstream's): a claim template change makes no new revision, so a pod whose
 * claims lag behind is a rollout candidate of its own, whatever its revision.
 */

/** StorageClasses by name: true when the class allows volume expansion (`allowVolumeExpansion: true`). */
export type ExpansionByClass = ReadonlyMap<string, boolean>;

/** updatesClaimsOnRollout is true when the set's claims follow their templates (OnPodRollingUpdate). */
const updatesClaimsOnRollout = (set: StatefulSet): boolean => set.spec.volumeClaimUpdateStrategy?.type === "OnPodRollingUpdate";

/** One claim to grow: the PVC, the template it comes from, and the storage request to write. */
interface ClaimExpansion {
  claim: string;
  uid: string;
  template: string;
  storage: string;
}

/** What one pod's claims and volumes lack against the claim templates. */
export interface ClaimUpdate {
  /** Claims smaller than their template, bound, whose StorageClass allows expansion: grow them. */
  expand: ClaimExpansion[];
  /** Claims smaller than their template that cannot grow, each with why (reported, never retried by a write). */
  refused: string[];
  /** Claims smaller than their template that are not Bound yet: they grow once bound (reported: the rollout waits on them). */
  unbound: string[];
  /** The pod lacks a template's volume (a template was added): only a recreated pod mounts it. */
  remount: boolean;
  /** A claim asks for more than its capacity: its expansion is under way (the pod counts as unavailable). */
  resizing: boolean;
}

/** storageOf returns a claim spec's (or template spec's) storage request, parsed; undefined when absent or unparsable. */
function storageOf(spec: { resources?: { requests?: Record<string, unknown> } } | undefined): Quantity | undefined {
  const v = spec?.resources?.requests?.storage;
  if (typeof v !== "string" && typeof v !== "number") return undefined;
  const q = parseQuantity(v);
  return q.ok ? q.quantity : undefined;
}

/** capacityOf returns a claim's status.capacity.storage, parsed; undefined when not reported. */
function capacityOf(claim: PersistentVolumeClaim): Quantity | undefined {
  const v = (claim.status?.capacity as Record<string, unknown> | undefined)?.storage;
  if (typeof v !== "string" && typeof v !== "number") return undefined;
  const q = parseQuantity(v);
  return q.ok ? q.quantity : undefined;
}

/** isResizing is true when a bound claim's request is above its reported capacity. */
function isResizing(claim: PersistentVolumeClaim): boolean {
  const want = storageOf(claim.spec);
  const have = capacityOf(claim);
  return claim.status?.phase === "Bound" && !!want && !!have && compareQuantities(have, want) < 0;
}

const isLive = (c: PersistentVolumeClaim | undefined): c is PersistentVolumeClaim => !!c && c.metadata?.deletionTimestamp == null;

/**
 * calculateClaimUpdate returns what the pod of `ordinal` (`pod` undefined: not created yet) lacks:
 * claims to expand, expansions refused (no StorageClass, a class not found, or one without
 * allowVolumeExpansion), whether the pod must be recreated to mount an added template, and
 * whether an expansion is still under way. A claim that is missing is the replicas phase's to
 * create; one not yet bound cannot grow (the apiserver refuses it) and is left until it is bound,
 * named in `unbound`. `classes` undefined means the StorageClasses were not read: nothing is
 * expanded or refused.
 */
export function calculateClaimUpdate(
  set: StatefulSet,
  claims: ReadonlyMap<string, PersistentVolumeClaim>,
  classes: ExpansionByClass | undefined,
  ordinal: number,
  pod?: Pod,
): ClaimUpdate {
  const u: ClaimUpdate = { expand: [], refused: [], unbound: [], remount: !!pod && !storageMatches(set, pod, ordinal), resizing: false };
  for (const tpl of set.spec.volumeClaimTemplates ?? []) {
    const claim = claims.get(getClaimName(set, tpl.metadata.name, ordinal));
    if (!isLive(claim)) continue;
    if (isResizing(claim)) u.resizing = true;
    const want = storageOf(tpl.spec);
    const have = storageOf(claim.spec);
    if (!want || !have || compareQuantities(have, want) >= 0) continue;
    const storage = String(tpl.spec.resources?.requests?.storage);
    if (claim.status?.phase !== "Bound") {
      u.unbound.push(`claim ${nameOf(claim)} is not Bound (${claim.status?.phase ?? "no phase yet"}): it grows to ${storage} once it is`);
      continue;
    }
    if (!classes) continue;
    const className = claim.spec?.storageClassName ?? "";
    const allowed = classes.get(className);
    if (allowed) u.expand.push({ claim: nameOf(claim), uid: uidOf(claim), template: tpl.metadata.name, storage });
    else if (!className) u.refused.push(`claim ${nameOf(claim)} has no StorageClass: it cannot be expanded`);
    else if (allowed === undefined) u.refused.push(`claim ${nameOf(claim)}: StorageClass "${className}" not found`);
    else u.refused.push(`claim ${nameOf(claim)}: StorageClass "${className}" does not allow volume expansion (allowVolumeExpansion is not true)`);
  }
  return u;
}

/** needsClaimRollout is true when the rollout has something to do for the pod's claims: expand one, or recreate the pod to mount one. */
export const needsClaimRollout = (u: ClaimUpdate): boolean => u.expand.length > 0 || u.remount;

/**
 * claimsToExpand is true when some claim of the set is smaller than its template under
 * OnPodRollingUpdate: only then does the pass read StorageClasses (one list), so a pass over sets
 * whose claims match their templates costs no request more.
 */
export function claimsToExpand(set: StatefulSet, claims: readonly PersistentVolumeClaim[]): boolean {
  if (!updatesClaimsOnRollout(set)) return false;
  const wanted = new Map((set.spec.volumeClaimTemplates ?? []).map((t) => [t.metadata.name, storageOf(t.spec)]));
  const prefix = `-${set.metadata.name ?? ""}-`;
  return claims.some((c) => {
    const name = nameOf(c);
    const at = name.lastIndexOf(prefix);
    const want = at > 0 ? wanted.get(name.slice(0, at)) : undefined;
    const have = storageOf(c.spec);
    return !!want && !!have && compareQuantities(have, want) < 0;
  });
}

/**
 * volumeClaimStatus returns status.volumeClaims (Kruise's meaning): per template, the replicas
 * among `replicas` (ordinal, pod) whose claim exists, requests at least the template's storage
 * and is mounted by the pod (a template added since the pod was made is not yet compatible: Kruise
 * never adds one) — compatibleReplicas —, and of those, whose claim's capacity has reached its
 * request (compatibleReadyReplicas; a claim that reports no capacity is not being resized and
 * counts as ready). Undefined for a set without claim templates.
 */
export function volumeClaimStatus(
  set: StatefulSet,
  replicas: Iterable<readonly [number, Pod]>,
  claims: ReadonlyMap<string, PersistentVolumeClaim>,
): VolumeClaimStatus[] | undefined {
  const templates = set.spec.volumeClaimTemplates ?? [];
  if (!templates.length) return undefined;
  const out = templates.map((t) => ({ volumeClaimName: t.metadata.name, compatibleReplicas: 0, compatibleReadyReplicas: 0 }));
  for (const [ordinal, pod] of replicas) countCompatibleClaims(set, out, ordinal, pod, claims);
  return out;
}

/**
 * countCompatibleClaims adds one replica (its ordinal and pod) to `out` (one entry per template, in
 * order): a template's claim counts as compatible when it is live, at least the template's size,
 * and mounted by the pod; as ready too unless it is resizing.
 */
export function countCompatibleClaims(set: StatefulSet, out: VolumeClaimStatus[], ordinal: number, pod: Pod, claims: ReadonlyMap<string, PersistentVolumeClaim>): void {
  const mounted = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v.persistentVolumeClaim?.claimName]));
  (set.spec.volumeClaimTemplates ?? []).forEach((t, i) => {
    const name = getClaimName(set, t.metadata.name, ordinal);
    const claim = claims.get(name);
    const have = isLive(claim) ? storageOf(claim.spec) : undefined;
    const want = storageOf(t.spec);
    if (!out[i] || !claim || !have || (want && compareQuantities(have, want) < 0) || mounted.get(t.metadata.name) !== name) return;
    out[i].compatibleReplicas++;
    if (!isResizing(claim)) out[i].compatibleReadyReplicas++;
  });
}

/**
 * claimsBehind returns the first claim template of status.volumeClaims whose claims lag under
 * OnPodRollingUpdate, with how many pods should have theirs (`want`: spec.replicas minus the
 * partition, the pods the rollout updates): fewer of them have their claim at the template's
 * size, mounted and done resizing. Undefined when none lags, or the claims are not the rollout's.
 */
export function claimsBehind(set: StatefulSet, volumeClaims: readonly VolumeClaimStatus[] | undefined): { behind: VolumeClaimStatus; want: number } | undefined {
  if (!updatesClaimsOnRollout(set)) return undefined;
  const want = Math.max(0, set.spec.replicas - updateStrategyOf(set).partition);
  const behind = (volumeClaims ?? []).find((v) => v.compatibleReadyReplicas < want);
  return behind && { behind, want };
}

/** ClaimUpdates returns calculateClaimUpdate of an ordinal (and its pod, if any), each calculated once per plan. */
export type ClaimUpdates = (ordinal: number, pod?: Pod) => ClaimUpdate;

/** claimUpdates returns the set's ClaimUpdates under OnPodRollingUpdate; undefined under OnDelete (claims are left as they are). */
export function claimUpdates(
  set: StatefulSet,
  claims: ReadonlyMap<string, PersistentVolumeClaim>,
  classes: ExpansionByClass | undefined,
): ClaimUpdates | undefined {
  if (!updatesClaimsOnRollout(set)) return undefined;
  const memo = new Map<string, ClaimUpdate>();
  return (ordinal, pod) => {
    const key = `${ordinal}/${pod ? uidOf(pod) || nameOf(pod) : ""}`;
    let u = memo.get(key);
    if (!u) memo.set(key, (u = calculateClaimUpdate(set, claims, classes, ordinal, pod)));
    return u;
  };
}

/** expandClaimActions returns the expandClaim writes of `u`, on behalf of pod `podName`. */
export const expandClaimActions = (u: ClaimUpdate, podName: string): Action[] =>
  u.expand.map((e) => ({ type: "expandClaim", name: e.claim, uid: e.uid, storage: e.storage, template: e.template, pod: podName }));
