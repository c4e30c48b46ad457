import type { ControllerRevision, PersistentVolumeClaim, Pod } from "../api/k8s.ts";
import type { ImageList } from "../api/imagelist.ts";
import type { ExpansionByClass } from "../core/claim-update.ts";
import { isNotFound, type KubeClient, type KubeObject } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import type { Logger } from "../log/log.ts";
import { labelKeys, projectClaim, projectPod, projectRevision, selectedLabelKeys } from "../objects/projection.ts";

/**
 * A pass's reads of a namespace's objects (pass.ts): the pods, claims and revisions carrying
 * Ordinal's label, each projected as its page streams in (objects/projection.ts: what the planner
 * reads, with the label keys the namespace's sets select on or hook on), a targeted pass's reads
 * sent beside its set (prefetch), the StorageClasses once per pass, the ImageLists.
 */

/**
 * Page size of the pass's lists: large pages keep a converged pass over 1,000 sets × 10 pods at
 * 5 list requests. Items are decoded one at a time as a page streams (kube/list-stream.ts), so a
 * page costs one item's text in the heap, not the page's.
 */
export const LIST_PAGE_SIZE = 5000;

/** A namespace's objects as a pass holds them (projected). */
export interface NamespaceObjects {
  pods: Pod[];
  claims: PersistentVolumeClaim[];
  revisions: ControllerRevision[];
}

/** A targeted pass's reads of the set's namespace, sent beside the set's own (knownSet), with the label keys they kept. */
export interface Prefetched {
  keys: ReadonlySet<string>;
  pods: Promise<(Pod & KubeObject)[]>;
  revisions: Promise<(ControllerRevision & KubeObject)[]>;
  claims?: Promise<(PersistentVolumeClaim & KubeObject)[]>;
  imageLists?: Promise<ImageList[]>;
}

/** quiet returns `p`, marked handled: awaited later, or dropped when the pass ends before (it must not be an unhandled rejection). */
export function quiet<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

/** listObjects lists one kind of a namespace's managed objects by `selector`, each projected with `keys`. */
function listObjects<T>(client: KubeClient, r: typeof R.pods, namespace: string, selector: string, project: (o: unknown) => T): Promise<(T & KubeObject)[]> {
  return client.list<T & KubeObject>(r, namespace, { labelSelector: selector, limit: LIST_PAGE_SIZE, project: (o) => project(o) as KubeObject });
}

/**
 * readNamespace returns a namespace's managed pods, claims (when `withClaims`) and revisions picked
 * by `selector`, projected with the label keys `sets` read. A targeted pass's prefetched reads are
 * used when they kept every key the sets read (the set's selector and hooks as last seen); else
 * they are dropped and read again.
 */
export async function readNamespace(client: KubeClient, namespace: string, selector: string, sets: readonly KubeObject[], withClaims: boolean, early: Prefetched | undefined): Promise<NamespaceObjects> {
  const keys = selectedLabelKeys(sets);
  const usable = early && [...keys].every((k) => early.keys.has(k)) ? early : undefined;
  const labels = labelKeys(keys);
  const [pods, claims, revisions] = await Promise.all([
    usable?.pods ?? listObjects(client, R.pods, namespace, selector, (o) => projectPod(o, labels)),
    withClaims ? (usable?.claims ?? listObjects(client, R.pvcs, namespace, selector, (o) => projectClaim(o, labels))) : [],
    usable?.revisions ?? listObjects(client, R.controllerRevisions, namespace, selector, (o) => projectRevision(o, labels)),
  ]);
  return { pods, claims, revisions };
}

/**
 * prefetch sends a targeted pass's reads of the namespace at once (pods and revisions by
 * `selector`, claims when `withClaims`, ImageLists when `imageLists`), keeping the label keys
 * `keys` (the set's as last seen) and Ordinal's own.
 */
export function prefetch(client: KubeClient, namespace: string, selector: string, known: { withClaims: boolean; labelKeys?: readonly string[] }, imageLists: boolean): Prefetched {
  const keys = new Set(known.labelKeys ?? []);
  const labels = labelKeys(keys);
  return {
    keys,
    pods: quiet(listObjects(client, R.pods, namespace, selector, (o) => projectPod(o, labels))),
    revisions: quiet(listObjects(client, R.controllerRevisions, namespace, selector, (o) => projectRevision(o, labels))),
    ...(known.withClaims ? { claims: quiet(listObjects(client, R.pvcs, namespace, selector, (o) => projectClaim(o, labels))) } : {}),
    ...(imageLists ? { imageLists: quiet(listImageLists(client, namespace)) } : {}),
  };
}

/** StorageClassReader returns the cluster's StorageClasses (name → allowVolumeExpansion), read once per pass; undefined when they cannot be read. */
export type StorageClassReader = () => Promise<ExpansionByClass | undefined>;

/**
 * storageClassReader returns a StorageClassReader that lists the StorageClasses once, on first
 * use, for the whole pass. A failed list (e.g. an install whose RBAC predates the storageclasses
 * grant) is logged and gives undefined: no claim is expanded, nothing else stops.
 */
export function storageClassReader(client: KubeClient, log: Logger): StorageClassReader {
  let loaded: Promise<ExpansionByClass | undefined> | undefined;
  return () =>
    (loaded ??= client.list<KubeObject & { allowVolumeExpansion?: boolean }>(R.storageClasses, undefined, { limit: LIST_PAGE_SIZE }).then(
      (classes) => new Map(classes.map((c) => [c.metadata?.name ?? "", c.allowVolumeExpansion === true])),
      (e: unknown) => {
        log.warn("cannot read StorageClasses: claims are not expanded this pass", { error: e instanceof Error ? e.message : String(e) });
        return undefined;
      },
    ));
}

/**
 * listImageLists returns the ImageLists of the namespace (all namespaces when undefined); none when
 * the ImageList CRD is not installed (404), so an older install keeps reconciling its sets.
 */
export async function listImageLists(client: KubeClient, ns: string | undefined): Promise<ImageList[]> {
  try {
    return await client.list<ImageList>(R.imageLists, ns, { limit: LIST_PAGE_SIZE });
  } catch (e) {
    if (isNotFound(e)) return [];
    throw e;
  }
}

/** optsInToPrewarm is true when the (unparsed) set has `imagePrewarm` in its rolling update strategy, or something there that is not an object. */
export function optsInToPrewarm(set: KubeObject): boolean {
  const strategy = (set.spec as { updateStrategy?: { rollingUpdate?: { imagePrewarm?: unknown } } } | undefined)?.updateStrategy;
  if (typeof strategy !== "object" || strategy === null) return strategy !== undefined && strategy !== null;
  const rolling: unknown = strategy.rollingUpdate;
  if (typeof rolling !== "object" || rolling === null) return rolling !== undefined && rolling !== null;
  return (rolling as { imagePrewarm?: unknown }).imagePrewarm !== undefined;
}

/** hasClaimTemplates is true when the (unparsed) set has volumeClaimTemplates, or something there that is not a list. */
export function hasClaimTemplates(set: KubeObject): boolean {
  const templates = (set.spec as { volumeClaimTemplates?: unknown } | undefined)?.volumeClaimTemplates;
  return templates !== undefined && templates !== null && !(Array.isArray(templates) && templates.length === 0);
}
