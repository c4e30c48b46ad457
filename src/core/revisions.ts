import type { ControllerRevision, PodTemplateSpec } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import type { Action } from "./actions.ts";
import { SET_NAME_LABEL } from "../objects/constants.ts";
import { canonicalJson, hashRevisionData } from "./hash.ts";
import { isObject, type JsonObject } from "../validation/json.ts";
import { defaultPodSpec } from "../validation/pod-defaults.ts";
import { nameOf } from "../objects/names.ts";
import { newControllerRef } from "../objects/pod.ts";

/**
 * ControllerRevisions of a set, after upstream's getStatefulSetRevisions / truncateHistory:
 * each revision stores the pod template (`{"spec":{"template":{…,"$patch":"replace"}}}`), is
 * named `<set>-<hash>`, and carries an increasing revision number.
 */

const HASH_LABEL = "controller.kubernetes.io/hash";

/** revisionData returns the data a revision of the set stores: its template, replace-patch style. */
export function revisionData(set: StatefulSet): { spec: { template: Record<string, unknown> } } {
  return { spec: { template: { ...structuredClone(set.spec.template), $patch: "replace" } } };
}

/**
 * revisionKey returns what makes two revisions equal: their data with the pod template's
 * apiserver defaults applied and empty values dropped. So a revision written by the apps/v1
 * controller (whose stored template the apiserver defaulted) equals Ordinal's revision of the same
 * template, and a set migrated from apps/v1 reuses it — its pods keep their
 * controller-revision-hash and are not restarted. Revisions are still named by hashRevisionData.
 */
export function revisionKey(data: unknown): string {
  const copy = structuredClone(data) as { spec?: { template?: { spec?: unknown } } };
  const spec = copy?.spec?.template?.spec;
  if (spec && typeof spec === "object" && !Array.isArray(spec)) {
    defaultPodSpec(spec as JsonObject, false);
    defaultModes(spec as JsonObject);
  }
  return canonicalJson(dropEmpty(copy));
}

/**
 * defaultModes applies the default apps/v1 stores that pod validation does not need: volume file
 * modes (0644). (defaultPodSpec already sets fieldRef apiVersion.) Revision data is any JSON.
 */
function defaultModes(spec: JsonObject): void {
  if (!Array.isArray(spec.volumes)) return;
  for (const v of spec.volumes) {
    if (!isObject(v)) continue;
    for (const k of ["configMap", "secret", "downwardAPI", "projected"]) {
      const src = v[k];
      if (isObject(src) && src.defaultMode === undefined) src.defaultMode = 420;
    }
  }
}

/**
 * dropEmpty returns a copy without null or undefined values, empty objects (`resources: {}`,
 * `creationTimestamp: null`) and empty lists (Go's omitempty drops them from what apps/v1 stores).
 */
function dropEmpty(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropEmpty);
  if (!v || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const y = dropEmpty(x);
    if (y === null || y === undefined || (typeof y === "object" && Object.keys(y).length === 0)) continue;
    out[k] = y;
  }
  return out;
}

/** revisionTemplate returns the pod template stored in a revision. */
export function revisionTemplate(rev: ControllerRevision): PodTemplateSpec {
  const data = rev.data as { spec?: { template?: Record<string, unknown> } } | undefined;
  const { $patch: _ignored, ...template } = data?.spec?.template ?? {};
  return template as PodTemplateSpec;
}

/** applyRevision returns a copy of the set whose template is the revision's (upstream ApplyRevision). */
function applyRevision(set: StatefulSet, rev: ControllerRevision): StatefulSet {
  const copy = structuredClone(set);
  copy.spec.template = revisionTemplate(rev) as StatefulSet["spec"]["template"];
  return copy;
}

/** newRevision returns the revision object for the set's current template. */
export function newRevision(set: StatefulSet, revision: number, collisionCount: number): ControllerRevision {
  // Keys sorted, as the apps/v1 controller's bytes are: kube-apiserver 1.20's garbage collector
  // cannot orphan (--cascade=orphan) a revision whose stored data has other key orders.
  const data = JSON.parse(canonicalJson(revisionData(set))) as ReturnType<typeof revisionData>;
  const hash = hashRevisionData(data, collisionCount);
  return {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: {
      name: revisionName(set.metadata.name ?? "", hash),
      namespace: set.metadata.namespace,
      labels: { ...(set.spec.template.metadata?.labels ?? {}), [HASH_LABEL]: hash, [SET_NAME_LABEL]: set.metadata.name ?? "" },
      annotations: set.metadata.annotations ? { ...set.metadata.annotations } : undefined,
      ownerReferences: [newControllerRef(set)],
    },
    data,
    revision,
  };
}

/** revisionName returns `<prefix>-<hash>`, the prefix cut so the name stays within 253 characters. */
function revisionName(prefix: string, hash: string): string {
  return `${prefix.slice(0, 223)}-${hash}`;
}

const byRevision = (a: ControllerRevision, b: ControllerRevision) =>
  a.revision - b.revision || (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? "");

export interface ResolvedRevisions {
  current: ControllerRevision;
  update: ControllerRevision;
  collisionCount: number;
  /** Revision writes needed before pods may reference `update`. */
  actions: Action[];
  /** All revisions after the writes, sorted by revision number. */
  revisions: ControllerRevision[];
}

/**
 * resolveRevisions returns the current and update revisions of the set (upstream
 * getStatefulSetRevisions): the newest revision equal to the template is reused (renumbered when
 * it is not the newest), else a new one is planned; a name taken by a revision with other data
 * bumps collisionCount. `current` is the revision named by status.currentRevision, or `update`.
 */
export function resolveRevisions(set: StatefulSet, owned: ControllerRevision[]): ResolvedRevisions {
  const revisions = [...owned].sort(byRevision);
  let collisionCount = set.status?.collisionCount ?? 0;
  const next = revisions.length ? revisions[revisions.length - 1].revision + 1 : 1;
  const wanted = revisionKey(revisionData(set));
  const equal = revisions.filter((r) => revisionKey(r.data) === wanted);
  const actions: Action[] = [];
  let update: ControllerRevision;
  if (equal.length && equal[equal.length - 1] === revisions[revisions.length - 1]) {
    update = equal[equal.length - 1];
  } else if (equal.length) {
    const reuse = equal[equal.length - 1];
    update = { ...reuse, revision: next };
    actions.push({ type: "updateRevisionNumber", name: nameOf(reuse), revision: next });
    revisions.splice(revisions.indexOf(reuse), 1, update);
    revisions.sort(byRevision);
  } else {
    let candidate = newRevision(set, next, collisionCount);
    const taken = new Set(revisions.map(nameOf));
    while (taken.has(nameOf(candidate))) candidate = newRevision(set, next, ++collisionCount);
    update = candidate;
    actions.push({ type: "createRevision", revision: candidate });
    revisions.push(candidate);
  }
  const current = revisions.find((r) => nameOf(r) === set.status?.currentRevision) ?? update;
  return { current, update, collisionCount, actions, revisions };
}

/**
 * truncateHistory returns deletions of the oldest revisions that no pod, nor the current or
 * update revision, uses, keeping at most revisionHistoryLimit of them.
 */
export function truncateHistory(
  set: StatefulSet,
  revisions: ControllerRevision[],
  liveNames: Set<string>,
): Action[] {
  const history = revisions.filter((r) => !liveNames.has(nameOf(r)));
  const excess = history.length - set.spec.revisionHistoryLimit;
  return history
    .slice(0, Math.max(excess, 0))
    .map((r): Action => ({ type: "deleteRevision", name: nameOf(r), uid: r.metadata?.uid }));
}

/** The revisions phase's result: the resolved revisions, their names, and the set at each. */
export interface SetRevisions extends ResolvedRevisions {
  currentName: string;
  updateName: string;
  /** The set with the current revision's template (pods below the partition are built from it). */
  currentSet: StatefulSet;
  /** The set with the update revision's template. */
  updateSet: StatefulSet;
}

/**
 * getStatefulSetRevisions is upstream's step of the same name: it resolves the current and
 * update revisions among the revisions the set owns (planning the revision writes) and returns
 * the set as each revision describes it.
 */
export function getStatefulSetRevisions(set: StatefulSet, owned: ControllerRevision[]): SetRevisions {
  const resolved = resolveRevisions(set, owned);
  return {
    ...resolved,
    currentName: nameOf(resolved.current),
    updateName: nameOf(resolved.update),
    currentSet: applyRevision(set, resolved.current),
    updateSet: applyRevision(set, resolved.update),
  };
}
