import type { ControllerRevision, PersistentVolumeClaim, Pod } from "../api/k8s.ts";
import type { ImageList } from "../api/imagelist.ts";
import { isNotFound, type KubeClient, type KubeObject } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import { SET_NAME_LABEL } from "../objects/constants.ts";
import { LIST_PAGE_SIZE } from "./pass-groups.ts";
import { labelKeys, projectClaim, projectPod, projectRevision, selectedLabelKeys } from "../objects/projection.ts";
import { NamespaceSetAside, ReadBudget } from "./namespace-budget.ts";

/**
 * A pass's reads of a namespace's objects (pass.ts): the pods, claims and revisions carrying
 * Ordinal's label, each projected as its page streams in (objects/projection.ts: what the planner
 * reads, with the label keys the namespace's sets select on or hook on), a targeted pass's reads
 * sent beside its set (prefetch), the ImageLists. Items are decoded one at a time as a page streams
 * (kube/list-stream.ts): a page costs one item's text in the heap, not the page's.
 */

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

/** listObjects lists one kind of a namespace's managed objects by `selector`, each projected with `keys`, counted by `budget` (namespace-budget.ts: throws OverBudget past it). */
function listObjects<T>(client: KubeClient, r: typeof R.pods, namespace: string, selector: string, project: (o: unknown) => T, budget: ReadBudget | undefined): Promise<(T & KubeObject)[]> {
  return client.list<T & KubeObject>(r, namespace, { labelSelector: selector, limit: LIST_PAGE_SIZE, project: (o) => project(o) as KubeObject, ...(budget ? { keep: budget.keep } : {}) });
}

/**
 * readNamespace returns a namespace's managed pods, claims (when `withClaims`) and revisions picked
 * by `selector`, projected with the label keys `sets` read, within `budget` objects. A targeted pass's prefetched reads are
 * used when they kept every key the sets read (the set's selector and hooks as last seen); else
 * they are dropped and read again.
 */
export async function readNamespace(
  client: KubeClient,
  namespace: string,
  selector: string,
  sets: readonly KubeObject[],
  withClaims: boolean,
  early: Prefetched | undefined,
  budget: ReadBudget | undefined,
): Promise<NamespaceObjects> {
  const keys = selectedLabelKeys(sets);
  const usable = early && [...keys].every((k) => early.keys.has(k)) ? early : undefined;
  const labels = labelKeys(keys);
  const [pods, claims, revisions] = await Promise.all([
    usable?.pods ?? listObjects(client, R.pods, namespace, selector, (o) => projectPod(o, labels), budget),
    withClaims ? (usable?.claims ?? listObjects(client, R.pvcs, namespace, selector, (o) => projectClaim(o, labels), budget)) : [],
    usable?.revisions ?? listObjects(client, R.controllerRevisions, namespace, selector, (o) => projectRevision(o, labels), budget),
  ]);
  return { pods, claims, revisions };
}

/**
 * prefetch sends a targeted pass's reads of the namespace at once (pods and revisions by
 * `selector`, claims when `withClaims`, ImageLists when `imageLists`), keeping the label keys
 * `keys` (the set's as last seen) and Ordinal's own; within `budget` objects (namespace-budget.ts).
 */
export function prefetch(client: KubeClient, namespace: string, selector: string, known: { withClaims: boolean; labelKeys?: readonly string[] }, imageLists: boolean, budget: number | undefined): Prefetched {
  const keys = new Set(known.labelKeys ?? []);
  const labels = labelKeys(keys);
  const counted = budget === undefined ? undefined : new ReadBudget(budget);
  return {
    keys,
    pods: quiet(listObjects(client, R.pods, namespace, selector, (o) => projectPod(o, labels), counted)),
    revisions: quiet(listObjects(client, R.controllerRevisions, namespace, selector, (o) => projectRevision(o, labels), counted)),
    ...(known.withClaims ? { claims: quiet(listObjects(client, R.pvcs, namespace, selector, (o) => projectClaim(o, labels), counted)) } : {}),
    ...(imageLists ? { imageLists: quiet(listImageLists(client, namespace)) } : {}),
  };
}

/**
 * listImageLists returns the ImageLists of the namespace (all namespaces when undefined); none when
 * the ImageList CRD is not installed (404), so an older install keeps reconciling its sets, and none
 * of a namespace its runtime set aside (NamespaceSetAside: quarantined; its sets are reported on).
 */
export async function listImageLists(client: KubeClient, ns: string | undefined): Promise<ImageList[]> {
  try {
    return await client.list<ImageList>(R.imageLists, ns, { limit: LIST_PAGE_SIZE });
  } catch (e) {
    if (isNotFound(e) || e instanceof NamespaceSetAside) return [];
    throw e;
  }
}

/**
 * A namespace's objects are read in slices of its sets once they are many (issue 35: what a pass
 * holds follows a slice, not the namespace): each slice's pods, claims and revisions are listed by
 * a selector naming its sets (`ordinal.dev/statefulset in (…)`), planned, and let go before the
 * next. A slice expects at most SLICE_OBJECTS objects (a set counts 1 + replicas × (1 + claim
 * templates), replicas as written) and its selector is at most SLICE_SELECTOR_CHARS long (a URL
 * stays within 16 KB). The cost: the apiserver filters the namespace's labelled objects once per
 * slice. A namespace below SLICE_OBJECTS, or a targeted pass, is read at once as before.
 */
export const SLICE_OBJECTS = 5_000;
const SLICE_SELECTOR_CHARS = 12_000;

/** A label value the apiserver accepts (a set named otherwise cannot be named in a selector: its namespace is read at once). */
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** expectedObjects returns how many objects a (raw) set is expected to have: 1 + replicas × (1 + claim templates), replicas capped at SLICE_OBJECTS. */
function expectedObjects(set: KubeObject): number {
  const spec = (set.spec ?? {}) as { replicas?: unknown; volumeClaimTemplates?: unknown };
  const replicas = typeof spec.replicas === "number" && spec.replicas >= 0 ? Math.min(spec.replicas, SLICE_OBJECTS) : 1;
  const templates = Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates.length : 0;
  return 1 + replicas * (1 + templates);
}

/** A slice of a namespace's sets and the selector that reads their objects. */
export interface ReadSlice {
  sets: KubeObject[];
  selector: string;
}

/** readSlices returns the slices a namespace's sets are read in (in their order): one, with `selector`, unless they expect more than SLICE_OBJECTS objects. */
export function readSlices(sets: KubeObject[], selector: string): ReadSlice[] {
  const names = sets.map((s) => s.metadata?.name ?? "");
  const total = sets.reduce((n, s) => n + expectedObjects(s), 0);
  if (selector !== SET_NAME_LABEL || total <= SLICE_OBJECTS || !names.every((n) => n.length <= 63 && LABEL_VALUE.test(n))) return [{ sets, selector }];
  const slices: ReadSlice[] = [];
  let cut: KubeObject[] = [];
  let objects = 0;
  let chars = 0;
  const close = () => {
    if (cut.length) slices.push({ sets: cut, selector: `${SET_NAME_LABEL} in (${cut.map((s) => s.metadata?.name ?? "").join(",")})` });
    cut = [];
    objects = chars = 0;
  };
  for (const s of sets) {
    const n = expectedObjects(s);
    const len = (s.metadata?.name ?? "").length + 1;
    if (cut.length && (objects + n > SLICE_OBJECTS || chars + len > SLICE_SELECTOR_CHARS)) close();
    cut.push(s);
    objects += n;
    chars += len;
  }
  close();
  return slices;
}
