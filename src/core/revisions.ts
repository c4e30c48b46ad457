import type { ControllerRevision, PodTemplateSpec } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import type { Action } from "./actions.ts";
import { SET_NAME_LABEL } from "./constants.ts";
import { canonicalJson, hashRevisionData } from "./hash.ts";
import { newControllerRef } from "./pod.ts";

/**
 * ControllerRevisions of a set, after upstream's getStatefulSetRevisions / truncateHistory:
 * each revision stores the pod template (`{"spec":{"template":{…,"$patch":"replace"}}}`), is
 * named `<set>-<hash>`, and carries an increasing revision number.
 */

export const HASH_LABEL = "controller.kubernetes.io/hash";

/** revisionData returns the data a revision of the set stores: its template, replace-patch style. */
export function revisionData(set: StatefulSet): { spec: { template: Record<string, unknown> } } {
  return { spec: { template: { ...structuredClone(set.spec.template), $patch: "replace" } } };
}

/** revisionTemplate returns the pod template stored in a revision. */
export function revisionTemplate(rev: ControllerRevision): PodTemplateSpec {
  const data = rev.data as { spec?: { template?: Record<string, unknown> } } | undefined;
  const { $patch: _ignored, ...template } = data?.spec?.template ?? {};
  return template as PodTemplateSpec;
}

/** applyRevision returns a copy of the set whose template is the revision's (upstream ApplyRevision). */
export function applyRevision(set: StatefulSet, rev: ControllerRevision): StatefulSet {
  const copy = structuredClone(set);
  copy.spec.template = revisionTemplate(rev) as StatefulSet["spec"]["template"];
  return copy;
}

/** newRevision returns the revision object for the set's current template. */
export function newRevision(set: StatefulSet, revision: number, collisionCount: number): ControllerRevision {
  const data = revisionData(set);
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
export function revisionName(prefix: string, hash: string): string {
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
  const wanted = canonicalJson(revisionData(set));
  const equal = revisions.filter((r) => canonicalJson(r.data) === wanted);
  const actions: Action[] = [];
  let update: ControllerRevision;
  if (equal.length && equal[equal.length - 1] === revisions[revisions.length - 1]) {
    update = equal[equal.length - 1];
  } else if (equal.length) {
    const reuse = equal[equal.length - 1];
    update = { ...reuse, revision: next };
    actions.push({ type: "updateRevisionNumber", name: reuse.metadata!.name!, revision: next });
    revisions.splice(revisions.indexOf(reuse), 1, update);
    revisions.sort(byRevision);
  } else {
    let candidate = newRevision(set, next, collisionCount);
    const taken = new Set(revisions.map((r) => r.metadata?.name));
    while (taken.has(candidate.metadata!.name)) candidate = newRevision(set, next, ++collisionCount);
    update = candidate;
    actions.push({ type: "createRevision", revision: candidate });
    revisions.push(candidate);
  }
  const current = revisions.find((r) => r.metadata?.name === set.status?.currentRevision) ?? update;
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
  const history = revisions.filter((r) => !liveNames.has(r.metadata?.name ?? ""));
  const excess = history.length - set.spec.revisionHistoryLimit;
  if (excess <= 0) return [];
  return history
    .slice(0, excess)
    .map((r) => ({ type: "deleteRevision", name: r.metadata!.name!, uid: r.metadata?.uid }) as Action);
}
