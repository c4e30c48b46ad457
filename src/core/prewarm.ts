import type { ImageList } from "../api/imagelist.ts";
import type { PodTemplateSpec } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import { normalizeImageReference } from "../validation/image-ref.ts";
import type { Action } from "./actions.ts";
import { isInPlaceUpdating } from "./inplace-state.ts";
import { nameOf } from "../objects/names.ts";
import { imageListWrite, readPrewarmRecord, releaseSets, type ImageListPatchAction } from "./prewarm-record.ts";
import { setView } from "./plan-context.ts";
import { podsToUpdate } from "./rolling-update.ts";
import type { ReplicaSlots } from "./slots.ts";

/**
 * The pre-warm phase (`spec.updateStrategy.rollingUpdate.imagePrewarm`): while a rollout goes on,
 * the images the update revision brings are listed in the ImageLists of the nodes hosting the next
 * `parallelism` pods still to update — in update order, after the pods this pass starts (those
 * pull for themselves) — so the actuator (src/prewarm/) pulls them ahead of their turn. Once the
 * rollout is done (or the set stops opting in, or is being deleted), the entries this set added
 * are removed; entries a person wrote are never touched (prewarm-record.ts).
 */

export interface PrewarmInput {
  set: StatefulSet;
  /** The replicas by ordinal offset (splitReplicas). */
  replicas: ReplicaSlots;
  updateRevision: string;
  /** Pod templates by revision name. */
  templates: ReadonlyMap<string, PodTemplateSpec>;
  /** The ImageLists of the set's namespace. */
  imageLists: readonly ImageList[];
  now: Date;
}

/** templateImages returns the normalized images of a pod template or pod spec (containers and init containers); references that do not parse are left out. */
function templateImages(spec: PodTemplateSpec["spec"] | undefined): Set<string> {
  const out = new Set<string>();
  for (const c of [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])]) {
    const n = normalizeImageReference(c.image);
    if (n.ok) out.add(n.ref);
  }
  return out;
}

/**
 * prewarmWants returns, per node, the update revision's images that the next `parallelism` pods
 * still to update (after the `limit` this pass starts) do not run yet, and the images the set may
 * keep listed while its rollout goes on (`keep`: all the update revision's images; empty once the
 * rollout is done, paused pods add nothing but keep theirs). Pods not bound to a node are skipped.
 */
export function prewarmWants(input: Omit<PrewarmInput, "imageLists">): { want: Map<string, Set<string>>; keep: Set<string> } {
  const { set, replicas, updateRevision, templates, now } = input;
  const want = new Map<string, Set<string>>();
  const view = setView(set);
  const parallelism = view.strategy.prewarmParallelism;
  if (parallelism === undefined || set.metadata.deletionTimestamp != null) return { want, keep: new Set() };
  const { pods, limit } = podsToUpdate(view, replicas, updateRevision, now);
  const rolling = pods.length > 0 || [...replicas.pods.values()].some(isInPlaceUpdating);
  if (!rolling) return { want, keep: new Set() };
  const images = templateImages(templates.get(updateRevision)?.spec);
  if (!view.strategy.paused) {
    for (const pod of pods.slice(limit, limit + parallelism)) {
      const node = pod.spec?.nodeName;
      if (!node) continue;
      const has = templateImages(pod.spec);
      const missing = [...images].filter((i) => !has.has(i));
      if (!missing.length) continue;
      const set = want.get(node) ?? new Set<string>();
      for (const i of missing) set.add(i);
      want.set(node, set);
    }
  }
  return { want, keep: images };
}

/**
 * planPrewarm returns the ImageList writes of one set (writeImageList actions, nodes in name
 * order): the wanted images added, and this set's entries no longer kept removed — on every
 * ImageList of the namespace that records the set, so a finished rollout leaves none behind.
 */
export function planPrewarm(input: PrewarmInput): Action[] {
  const { want, keep } = prewarmWants(input);
  const setName = nameOf(input.set);
  const ns = input.set.metadata.namespace ?? "";
  const lists = new Map(input.imageLists.map((l) => [nameOf(l), l]));
  const nodes = new Set(want.keys());
  for (const [node, list] of lists) {
    for (const sets of readPrewarmRecord(list).values()) if (sets.has(setName)) nodes.add(node);
  }
  const none = new Set<string>();
  return [...nodes].sort().flatMap((node) => imageListWrite(ns, node, lists.get(node), setName, want.get(node) ?? none, keep) ?? []);
}

/**
 * releaseGoneSets returns the ImageList writes that drop the entries recorded for sets that no
 * longer exist (deleted before their rollout finished: no plan of theirs will release them).
 * `liveSets` holds `namespace/name` of every set the pass saw; only call it from a pass that saw
 * every set of the ImageLists' namespaces.
 */
export function releaseGoneSets(imageLists: readonly ImageList[], liveSets: ReadonlySet<string>): { namespace: string; action: ImageListPatchAction }[] {
  const out: { namespace: string; action: ImageListPatchAction }[] = [];
  for (const list of imageLists) {
    const ns = list.metadata.namespace ?? "";
    const gone = new Set<string>();
    for (const sets of readPrewarmRecord(list).values()) for (const s of sets) if (!liveSets.has(`${ns}/${s}`)) gone.add(s);
    const a = releaseSets(list, gone);
    if (a) out.push({ namespace: ns, action: a });
  }
  return out;
}
