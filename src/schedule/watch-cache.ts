import type { KubeClient, KubeObject, WatchClient } from "../kube/client.ts";
import { cachingClient } from "../kube/cached-client.ts";
import { Informer } from "../kube/informer.ts";
import { R, type ResourceRef } from "../kube/resources.ts";
import type { Logger } from "../log/log.ts";
import { SET_NAME_LABEL } from "../objects/constants.ts";
import { allLabels, type LabelKeys, projectClaim, projectPod, projectRevision } from "../objects/projection.ts";
import type { SetWake } from "./scheduler.ts";
import { isObject } from "../validation/json.ts";
import { selectorToString, type LabelSelector } from "../validation/labels.ts";

/**
 * WatchCache is `ordinal serve`'s mirror of what a set's pass reads (issue 20): Ordinal's
 * StatefulSets and ImageLists, and the pods, claims and revisions carrying Ordinal's
 * `ordinal.dev/statefulset` label, each one informer (list + watch, src/kube/informer.ts). It
 * gives the scheduler two things:
 * - `client`: reads answered from the mirror (a targeted pass costs no read request once synced),
 *   writes passed through and seen at once;
 * - wakes as the watch sees changes: each names the set the object belongs to (its name, or the
 *   label), or ("" name) its namespace's ImageLists, and `observed`: the mirror already holds it, so
 *   the woken pass sees it without waiting or looking again (a webhook's wake comes before the write);
 *   a set that appeared also gives its selector (its orphan lookup starts before its pass: orphan-lookups.ts),
 *   and is handed to `sighted` as stored (Node: the mutating hook's set cache, src/admission/lookup.ts).
 * Pods, claims and revisions are held projected (objects/projection.ts: what a pass reads, with
 * every label, since the mirror does not know the sets' selectors; the bytes budget bounds them).
 * Every informer keeps to its share of `maxBytes`; one over it stops mirroring (its reads go to the
 * apiserver, its changes wake nothing: webhook wakes and rechecks take over, as without a cache).
 */
export interface WatchCache {
  /** Reads from the mirror (targeted passes). */
  client: KubeClient;
  /** Reads from the apiserver, handed to the mirror too (full passes: the safety net); both see their writes in the mirror. */
  freshClient: KubeClient;
  /** covers is true when the wake's announced write is of a resource the mirror holds and is synced for (the watch will wake its set). */
  covers(w: SetWake): boolean;
  /** synced is true while every informer is: a targeted pass then reads no object from the apiserver. */
  synced(): boolean;
  stop(): Promise<void>;
}

const labelled = (o: KubeObject) => o.metadata?.labels?.[SET_NAME_LABEL];

/** selectorOf returns a (raw) set's `spec.selector` as a label selector string; undefined when it has none, an empty or an invalid one. */
function selectorOf(set: KubeObject): string | undefined {
  const spec = (set as { spec?: unknown }).spec;
  const selector: unknown = isObject(spec) ? spec.selector : undefined;
  return (isObject(selector) && selectorToString(selector as LabelSelector)) || undefined;
}

/** mirrored returns a projection with every label, as the mirror holds objects. */
const mirrored =
  (project: (o: unknown, labels: LabelKeys) => object) =>
  (o: KubeObject): KubeObject => ({ ...project(o, allLabels) });

/** What each informer mirrors, the set an object of it wakes, and its share of the memory budget (pods are most of it). */
export const MIRRORED: { resource: ResourceRef; labelSelector?: string; setOf: (o: KubeObject) => string | undefined; share: number; project?: (o: KubeObject) => KubeObject }[] = [
  { resource: R.statefulSets, setOf: (o) => o.metadata?.name, share: 0.1 },
  { resource: R.pods, labelSelector: SET_NAME_LABEL, setOf: labelled, share: 0.5, project: mirrored(projectPod) },
  { resource: R.pvcs, labelSelector: SET_NAME_LABEL, setOf: labelled, share: 0.15, project: mirrored(projectClaim) },
  { resource: R.controllerRevisions, labelSelector: SET_NAME_LABEL, setOf: labelled, share: 0.2, project: mirrored(projectRevision) },
  { resource: R.imageLists, setOf: () => "", share: 0.05 },
];

interface WatchCacheOptions {
  log: Logger;
  maxBytes: number;
  wake: (w: SetWake) => void;
  /** Each set the watch sees appear (after the first list), as the apiserver stores it. Must not throw. */
  sighted?: (set: KubeObject) => void;
}

/**
 * startWatchCache starts one informer per mirrored resource over `watcher` (the raw client: watches
 * and versioned lists) and returns the mirror, whose client passes what it cannot answer to
 * `client` (the instrumented one). `wake` is called for each change the watches see.
 */
export function startWatchCache(watcher: WatchClient, client: KubeClient, o: WatchCacheOptions): WatchCache {
  const informers = MIRRORED.map(
    (m) =>
      new Informer(watcher, {
        resource: m.resource,
        labelSelector: m.labelSelector,
        log: o.log,
        maxBytes: Math.floor(o.maxBytes * m.share),
        project: m.project,
        holds: m.labelSelector ? (obj) => m.setOf(obj) !== undefined : undefined,
        onEvent: (type, obj, before) => {
          // A set that appeared: its selector, for the orphan lookup before its first pass (orphan-lookups.ts).
          const appeared = type === "ADDED" && m.resource === R.statefulSets;
          if (appeared) o.sighted?.(obj);
          const selector = appeared ? selectorOf(obj) : undefined;
          // A changed set label wakes the set it left too.
          const names = new Set([m.setOf(obj), before && m.setOf(before)]);
          for (const name of names) if (name !== undefined) o.wake({ namespace: obj.metadata?.namespace ?? "", name, observed: true, ...(selector ? { selector } : {}) });
        },
      }),
  );
  for (const i of informers) i.start();
  // The announced kinds (statefulsets: Ordinal's) are one informer each.
  const byResource = new Map(informers.map((i) => [i.resource.resource, i]));
  return {
    client: cachingClient(client, informers),
    freshClient: cachingClient(client, informers, "apiserver"),
    covers: (w) => !!w.write && byResource.get(w.write.resource)?.synced === true,
    synced: () => informers.every((i) => i.synced),
    stop: async () => void (await Promise.all(informers.map((i) => i.stop()))),
  };
}

