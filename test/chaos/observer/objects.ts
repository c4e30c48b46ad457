/**
 * The observer's own view of the objects it watches: the few fields of pods, claims, Ordinal
 * StatefulSets and Leases its rules read, and the apps/v1 predicates over them, written from the
 * spec (docs/fields.md, upstream's StatefulSet semantics), never imported from src/: the observer
 * must not share a mistake with the reconciler it judges.
 */

export interface Meta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  deletionTimestamp?: string;
  finalizers?: string[];
  ownerReferences?: { apiVersion?: string; kind?: string; name?: string; uid?: string; controller?: boolean }[];
}

export interface Condition {
  type: string;
  status: string;
  lastTransitionTime?: string;
}

export interface PodObject {
  metadata: Meta;
  status?: { phase?: string; conditions?: Condition[] };
}

export interface ClaimObject {
  metadata: Meta;
}

/** The fields of an Ordinal StatefulSet (apps.ordinal.dev/v1) the rules read. */
export interface SetObject {
  metadata: Meta;
  spec?: {
    replicas?: number;
    podManagementPolicy?: string;
    minReadySeconds?: number;
    ordinals?: { start?: number };
    reserveOrdinals?: (number | string)[];
    progressDeadlineSeconds?: number;
    template?: unknown;
    volumeClaimTemplates?: { metadata?: { name?: string } }[];
    persistentVolumeClaimRetentionPolicy?: { whenDeleted?: string; whenScaled?: string };
    scaleStrategy?: { maxUnavailable?: number | string };
    updateStrategy?: { type?: string; rollingUpdate?: { partition?: number; maxUnavailable?: number | string } };
    lifecycle?: { preDelete?: { labelsHandler?: Record<string, string>; finalizersHandler?: string[] } };
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    updatedReplicas?: number;
    currentRevision?: string;
    updateRevision?: string;
  };
}

export interface LeaseObject {
  metadata: Meta;
  spec?: { holderIdentity?: string; renewTime?: string; acquireTime?: string; leaseDurationSeconds?: number };
}

/** The label a pod's revision is in (apps/v1). */
const REVISION_LABEL = "controller-revision-hash";
/** The annotation in which Ordinal lists the revisions it rolled back from (docs/fields.md). */
export const FAILED_REVISIONS = "ordinal.dev/failed-revisions";
/** Ordinal's readiness gate, False while a pod is out of traffic for an in-place update or a hook. */
const INPLACE_GATE = "InPlaceUpdateReady";

/** ordinalOf returns the ordinal at the end of a pod name `<set>-<n>` of the set, or undefined. */
export function ordinalOf(podName: string, setName: string): number | undefined {
  if (!podName.startsWith(`${setName}-`)) return undefined;
  const rest = podName.slice(setName.length + 1);
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : undefined;
}

/** controllerUid returns the uid of the object's controller owner, or undefined. */
export const controllerUid = (m: Meta): string | undefined => m.ownerReferences?.find((r) => r.controller)?.uid;

const condition = (p: PodObject, type: string): Condition | undefined => p.status?.conditions?.find((c) => c.type === type);

/** isTerminating is true once the pod's deletion has started. */
export const isTerminating = (p: PodObject): boolean => Boolean(p.metadata.deletionTimestamp);

/** isRunningAndReady is true for a Running pod whose Ready condition is True (upstream's isRunningAndReady). */
export const isRunningAndReady = (p: PodObject): boolean => p.status?.phase === "Running" && condition(p, "Ready")?.status === "True";

/** isGated is true while Ordinal's InPlaceUpdateReady gate is False (an in-place update or a hook holds the pod out of traffic). */
export const isGated = (p: PodObject): boolean => condition(p, INPLACE_GATE)?.status === "False";

/** isFailed is true for a pod in phase Failed (terminal: upstream replaces it). */
export const isFailed = (p: PodObject): boolean => p.status?.phase === "Failed";

/**
 * isAvailable is true for a pod that serves: Running and Ready, not terminating, not gated, and
 * Ready for minReadySeconds at `now` (ms). The Ready time comes from the kubelet's condition at
 * whole-second precision, so one second of slack is given: a pod counts as available at the
 * earliest moment the reconciler could have judged it so.
 */
export function isAvailable(p: PodObject, minReadySeconds: number, now: number): boolean {
  if (!isRunningAndReady(p) || isTerminating(p) || isGated(p)) return false;
  if (!minReadySeconds) return true;
  const since = Date.parse(condition(p, "Ready")?.lastTransitionTime ?? "");
  return Number.isNaN(since) || since + minReadySeconds * 1000 <= now + 1000;
}

/** revisionOf returns the pod's revision label. */
export const revisionOf = (p: PodObject): string | undefined => p.metadata.labels?.[REVISION_LABEL];

/** reservedSet returns the set's reserved ordinals as a predicate (integers and inclusive "a-b" ranges). */
function reservedOf(set: SetObject): (o: number) => boolean {
  const ranges: [number, number][] = [];
  for (const e of set.spec?.reserveOrdinals ?? []) {
    if (typeof e === "number") ranges.push([e, e]);
    else {
      const m = /^(\d+)-(\d+)$/.exec(e);
      if (m) ranges.push([Number(m[1]), Number(m[2])]);
      else if (/^\d+$/.test(e)) ranges.push([Number(e), Number(e)]);
    }
  }
  return (o) => ranges.some(([a, b]) => o >= a && o <= b);
}

/** replicaIndex returns the ordinal's place among the set's replicas (reserved ordinals skipped), or undefined for a reserved ordinal or one below the start. */
export function replicaIndex(set: SetObject, o: number): number | undefined {
  const start = set.spec?.ordinals?.start ?? 0;
  const reserved = reservedOf(set);
  if (o < start || reserved(o)) return undefined;
  let below = 0;
  for (const e of set.spec?.reserveOrdinals ?? []) {
    const [a, b] = typeof e === "number" ? [e, e] : (e.split("-").map(Number) as [number, number?]);
    const hi = b ?? a;
    if (Number.isNaN(a) || Number.isNaN(hi)) continue;
    below += Math.max(0, Math.min(hi, o - 1) - Math.max(a, start) + 1);
  }
  return o - start - below;
}

/** inRange is true when the ordinal is one of the set's replicas: the first spec.replicas ordinals from ordinals.start that are not reserved. */
export function inRange(set: SetObject, o: number): boolean {
  const i = replicaIndex(set, o);
  return i !== undefined && i < (set.spec?.replicas ?? 1);
}

/** rangeOrdinals returns the set's replica ordinals in order (at most `limit`). */
export function rangeOrdinals(set: SetObject, limit = 10_000): number[] {
  const out: number[] = [];
  const reserved = reservedOf(set);
  const n = Math.min(set.spec?.replicas ?? 1, limit);
  for (let o = set.spec?.ordinals?.start ?? 0; out.length < n; o++) if (!reserved(o)) out.push(o);
  return out;
}

/** scaled returns an int-or-percent of `replicas` (percent rounded up), at least 1; `fallback` when unset or unreadable. */
export function scaled(v: number | string | undefined, replicas: number, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v === "number") return Math.max(1, v);
  const m = /^(\d+)%$/.exec(v);
  if (m) return Math.max(1, Math.ceil((Number(m[1]) * replicas) / 100));
  return /^\d+$/.test(v) ? Math.max(1, Number(v)) : fallback;
}

/** maxUnavailableOf returns the rolling update's budget (default 1). */
export const maxUnavailableOf = (set: SetObject): number => scaled(set.spec?.updateStrategy?.rollingUpdate?.maxUnavailable, set.spec?.replicas ?? 1, 1);

/** isOrderedReady is true for OrderedReady pod management (the default). */
export const isOrderedReady = (set: SetObject): boolean => (set.spec?.podManagementPolicy ?? "OrderedReady") === "OrderedReady";

/** hookHolds returns what of the set's preDelete hook the pod still carries (labels `k=v`, finalizers), empty when none. */
export function hookHolds(set: SetObject, p: PodObject): string[] {
  const hook = set.spec?.lifecycle?.preDelete;
  if (!hook) return [];
  const labels = Object.entries(hook.labelsHandler ?? {}).filter(([k, v]) => p.metadata.labels?.[k] === v).map(([k, v]) => `label ${k}=${v}`);
  const finalizers = (hook.finalizersHandler ?? []).filter((f) => p.metadata.finalizers?.includes(f)).map((f) => `finalizer ${f}`);
  return [...labels, ...finalizers];
}
