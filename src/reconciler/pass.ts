import { StatefulSetSchema, type StatefulSet } from "../api/statefulset.ts";
import { SET_NAME_LABEL } from "../objects/constants.ts";
import type { KubeClient, KubeObject } from "../kube/client.ts";
import type { ImageList } from "../api/imagelist.ts";
import { R } from "../kube/resources.ts";
import { EventRecorder } from "./events.ts";
import type { Logger } from "../log/log.ts";
import { actuateImageLists, releaseGoneSets } from "./prewarm.ts";
import { indexObjects, type PassIndex } from "./pass-index.ts";
import { earlierMs } from "../core/requeue.ts";
import { invalidSpecMessage, PlanFailed, reportSetError, type SetErrorReason } from "./set-error.ts";
import { writeLanded, type AnnouncedResource, type AnnouncedWrite } from "../objects/announced-write.ts";
import type { OrphanLookup } from "./orphan-lookup.ts";
import { fromList, hasClaimTemplates, inCursorOrder, LIST_PAGE_SIZE, namespaceGroups, optsInToPrewarm, setId, shardGroups, shardOf, type NamespaceGroup } from "./pass-groups.ts";
import { reconcileSet, storageClassReader, type SetResult, type StorageClassReader } from "./set-pass.ts";
import { listImageLists, prefetch, quiet, readNamespace, readSlices, type Prefetched } from "./pass-reads.ts";
import { inSlices, NamespaceSetAside, overBudgetMessage, type ReadBudget } from "./namespace-budget.ts";
import { selectedLabelKeys } from "../objects/projection.ts";

export { shardOf } from "./pass-groups.ts";

/**
 * One level-triggered pass. Reads: the sets (a shard of several: the namespaces, then its own
 * namespaces' sets), then, one namespace at a time, the pods, claims and revisions of that
 * namespace carrying Ordinal's `ordinal.dev/statefulset` label (paged lists; claims only where a
 * set has a claim template; unrelated pods are never read). What it read of a namespace is let go
 * before the next: its peak heap is bounded by the largest namespace, not the cluster. Indexes them
 * once (pass-index.ts), plans every set with its own objects and executes its plan (executor.ts);
 * then makes the ImageLists so (prewarm.ts: puller pods, one more list when ImageLists exist). A pod
 * that exists without our label (an orphan named `<set>-<n>` to adopt) is met when its create
 * answers AlreadyExists: it is read by name and the set is planned again at once. A set that owns
 * no revision yet (new, or migrated from apps/v1) also lists its namespace's pods and revisions by
 * its own selector, once, before planning: so it adopts the revision its orphaned pods are
 * labelled with instead of rolling them onto a revision of its own. Cost: O(managed objects +
 * sets) reads and CPU, plus 3 lists per namespace with sets; orphans cost one GET each, once, when
 * their ordinal is wanted; a new set two selector lists, once (on Node sent by the scheduler as soon as
 * the watch sees the set appear, before its first pass: src/schedule/orphan-lookups.ts).
 */

/** What a targeted pass found of its set: whether it has claim templates, and the label keys its selector and hooks read (beyond Ordinal's own). */
export interface KnownSet {
  withClaims: boolean;
  labelKeys?: readonly string[];
}

export interface PassOptions {
  now: () => Date;
  log: Logger;
  /** Only sets in this namespace (default: all namespaces). */
  namespace?: string;
  /** Only this set (a hint from the webhook), in `namespace`: a targeted pass reads only its objects. */
  setName?: string;
  /** Targeted pass: what its scheduler knows that saves reads or tells what to look for (src/schedule/model.ts gives them). */
  hints?: PassHints;
  /**
   * Event recorder shared by the passes of its owner (an invocation, `ordinal serve`'s scheduler, a
   * shard runner): its memory combines their events as kube's correlator does (default: one for
   * this pass; each set's events are flushed once, after the set, so nothing is left to close).
   */
  events?: EventRecorder;
  /** Resume after this set (`namespace/name`, from the Lease's cursor); sets are visited in that order, wrapping around. */
  startAfter?: string;
  /** Checked before each set: true stops the pass there (budget spent); `cursor` then says where to resume. */
  shouldStop?: () => boolean;
  /** Awaited before each set, before shouldStop (an invocation renews its lease there when due). */
  beforeSet?: () => Promise<void>;
  /** Only sets of this shard: namespaces are hashed onto `count` shards (several Workers, one shard each). */
  shard?: { index: number; count: number };
  /**
   * At most this many managed objects (pods, claims, revisions) of one namespace's read slice are
   * held at once: a slice with more is halved, a set with more is set aside (namespace-budget.ts;
   * the runtime's, e.g. Node's objectBudgetFor(RECONCILE_HEAP_MB)). Default: no bound.
   */
  objectBudget?: number;
}

/**
 * What a targeted pass's scheduler knows, one object for both runtimes (the schedule model gives
 * the first three, Node's scheduler adds an orphan lookup it started). Only hints: a stale one
 * costs reads or latency, never a wrong write.
 */
export interface PassHints {
  /** The writes its wakes announced; the result says which of them its reads did not include yet. */
  awaiting?: readonly AnnouncedWrite[];
  /**
   * The namespace had no ImageLists (its last pass there read none, and no ImageList wake came
   * since), so a set that does not opt in to `imagePrewarm` skips their list (its plan reads them
   * only to pre-warm or to release what it pre-warmed). A stale one delays an ImageList's actuation
   * to its own wake or the full pass, and writes nothing.
   */
  imageListsKnownNone?: boolean;
  /**
   * The last pass of this set found it (with claim templates or not, and the label keys it read),
   * so its pods, revisions, claims (when it had templates) and ImageLists are read beside the set,
   * not after it: one round trip fewer. A set found with templates it did not have then has its
   * claims read after it; a set gone costs those reads once.
   */
  knownSet?: KnownSet;
  /** The set's orphan lookup, started before its pass (src/schedule/orphan-lookups.ts); used when the selector is still the set's. */
  orphans?: OrphanLookup;
}


export interface PassResult {
  sets: SetResult[];
  /** True when another pass soon would make progress. */
  pending: boolean;
  /** The earliest time (ms from now) a set asked to be looked at again (an in-place grace period). */
  requeueAfterMs?: number;
  actionCount: number;
  /** Set when the pass stopped before its last set: the last set it did (resume after it). */
  cursor?: string;
  /** What the ImageList actuator did (puller pods created and deleted, statuses written). */
  imageListActions?: string[];
  /** Of the `awaiting` writes, those this pass's reads did not include yet (it read before they were stored). */
  unseenWrites?: AnnouncedWrite[];
  /** Targeted pass that read the namespace's ImageLists: how many it holds after the pass (0: none; undefined: not read). */
  imageListCount?: number;
  /** Targeted pass that found its set: whether it has claim templates and the label keys it reads (the caller's `knownSet` next time). */
  seenSet?: KnownSet;
}

/** MANAGED selects the objects Ordinal creates (pods, claims, revisions all carry the label). */
const MANAGED_SELECTOR = SET_NAME_LABEL;

/** reconcilePass runs one pass over every Ordinal StatefulSet (or the one of the hint). */
export async function reconcilePass(client: KubeClient, o: PassOptions): Promise<PassResult> {
  const ns = o.namespace;
  const result: PassResult = { sets: [], pending: false, actionCount: 0 };
  const shard = o.shard;
  const sharded = !!shard && shard.count > 1 && !ns && !o.setName;
  const selector = o.setName ? `${SET_NAME_LABEL}=${o.setName}` : MANAGED_SELECTOR;
  const prefetched = o.setName && ns !== undefined && o.hints?.knownSet ? prefetch(client, ns, selector, o.hints.knownSet, !o.hints.imageListsKnownNone, o.objectBudget) : undefined;
  // A shard of several reads its own namespaces' sets only (a list of namespaces, then per namespace).
  const rawSets = sharded ? [] : await client.list<KubeObject>(R.statefulSets, ns, o.setName ? { fieldSelector: `metadata.name=${o.setName}` } : { limit: LIST_PAGE_SIZE });
  if (shard && !sharded) rawSets.splice(0, rawSets.length, ...rawSets.filter((s) => shardOf(s.metadata?.namespace ?? "", shard.count) === shard.index));
  // A hinted set that does not exist (gone, or a made-up name from a caller): one read, no more.
  if (rawSets.length === 0 && o.setName) return withUnseen(result, o.hints?.awaiting, { statefulsets: rawSets });
  if (rawSets.length === 0 && !sharded) {
    // No sets here: ImageLists people wrote are still made so.
    let lists = inShard(await listImageLists(client, ns), o);
    if (!o.setName) lists = replaceWritten(lists, await releaseGoneSets(client, lists, new Set(), o.log));
    await actuate(client, lists, ns, o, result, new Map());
    return result;
  }
  const setIds = new Set<string>();
  if (o.setName) result.seenSet = { withClaims: rawSets.some(hasClaimTemplates), labelKeys: [...selectedLabelKeys(rawSets)] };
  // ImageLists: those of the pass's namespace, else of every namespace (made so after the sets; a
  // shard's only). Read beside the first namespace's pods, claims and revisions (one round trip
  // fewer before a targeted pass acts), or not at all for a targeted pass that needs none.
  const listNs = ns;
  const skipLists = !!o.setName && !!o.hints?.imageListsKnownNone && !rawSets.some(optsInToPrewarm);
  const listsRead = skipLists ? Promise.resolve([]) : (prefetched?.imageLists ?? listImageLists(client, listNs));
  const listsReady = quiet(listsRead.then((l) => indexObjects([], [], [], l))); // awaited below
  const events = o.events ?? new EventRecorder(client, o.log);
  const storageClasses = storageClassReader(client, o.log);
  const parsedSets = new Map<string, StatefulSet>();
  // Namespaces found set aside (quarantined): their ImageLists are not acted on either.
  const setAside = new Set<string>();
  const groups = sharded ? shardGroups(client, shard, o.startAfter) : fromList(namespaceGroups(inCursorOrder(rawSets, o.startAfter)));
  rawSets.length = 0;
  for await (const group of groups) {
    for (const s of group.sets) setIds.add(setId(s));
    const r = await reconcileNamespace(client, group, selector, listsReady, { ...o, orphans: o.hints?.orphans, events, storageClasses, prefetched, setAside }, result);
    group.sets = [];
    // The actuator reads pull secrets from the sets of namespaces with ImageLists; others are let go.
    if ((await listsReady).imageListsIn(group.namespace).length) for (const [id, set] of r) parsedSets.set(id, set);
    if (result.cursor !== undefined) break;
  }
  const lists = await listsReady;
  if (o.setName && !skipLists && ns !== undefined) result.imageListCount = lists.imageListsIn(ns).length;
  if (result.cursor === undefined) {
    const actedOn = () => inShard(lists.imageLists(), o).filter((l) => !setAside.has(l.metadata.namespace ?? ""));
    // A pass that saw every set of its namespaces releases what deleted sets left in ImageLists.
    if (!o.setName) for (const l of await releaseGoneSets(client, actedOn(), setIds, o.log)) lists.putImageList(l);
    await actuate(client, actedOn(), o.setName ? ns : listNs, { ...o, events }, result, parsedSets);
  }
  return result;
}

/**
 * reconcileNamespace reconciles one namespace's sets, a read slice at a time (pass-reads.ts:
 * readSlices; one slice unless the namespace is large): it lists the slice's managed pods, claims
 * and revisions, projected as they stream in, plans and executes its sets, and lets them go before
 * the next. What a pass holds is one slice's objects, so its peak heap follows the largest slice,
 * not the cluster's nor a namespace's; and no slice holds more than the pass's object budget (a
 * slice over it is halved, a set over it alone set aside: namespace-budget.ts). A namespace its
 * runtime set aside (quarantined) is reported on its sets and skipped. Returns the parsed sets that
 * opt in to pre-warm (the ImageList actuator reads their pull secrets; it reads any other it needs).
 * ImageLists written go to the pass's store (`listsReady`).
 */
async function reconcileNamespace(
  client: KubeClient,
  group: NamespaceGroup,
  selector: string,
  listsReady: Promise<PassIndex>,
  o: NamespaceOptions,
  result: PassResult,
): Promise<Map<string, StatefulSet>> {
  const { namespace } = group;
  const slices = readSlices(group.sets, selector);
  const early = namespace === o.namespace && slices.length === 1 ? o.prefetched : undefined;
  const parsedSets = new Map<string, StatefulSet>();
  const unplanned = (raw: KubeObject, reason: SetErrorReason, why: string) => reportUnplanned(client, raw, reason, why, o, result);
  /** readAndPlan reads the objects of `sets` by `sel` (kept by `budget`), then plans and executes them. */
  const readAndPlan = async (sets: KubeObject[], sel: string, budget: ReadBudget | undefined, first: boolean) => {
    // Claims are only ever looked up by a template's name: a slice whose sets have no template needs none.
    const withClaims = sets.some((s) => hasClaimTemplates(s));
    const [{ pods, claims, revisions }, lists] = await Promise.all([readNamespace(client, namespace, sel, sets, withClaims, first ? early : undefined, budget), listsReady]);
    // A targeted pass says which of the writes its wakes announced it read too early to include.
    withUnseen(result, o.hints?.awaiting, { statefulsets: group.sets, pods: pods as KubeObject[], ...(withClaims ? { persistentvolumeclaims: claims as KubeObject[] } : {}) });
    const index = indexObjects(pods, claims, revisions, lists.imageListsIn(namespace));
    try {
      await reconcileSlice(client, sets, index, o, result, parsedSets);
    } finally {
      for (const l of index.imageListsIn(namespace)) lists.putImageList(l);
    }
    return new Map<string, never>();
  };
  try {
    for (const slice of slices) {
      await inSlices(slice.sets, slice.selector, o.objectBudget, {
        slice: readAndPlan,
        setAside: (raw, e) => unplanned(raw, "OverBudget", overBudgetMessage(e)),
        stopped: () => result.cursor !== undefined,
        ownSelector: slice.selector !== MANAGED_SELECTOR,
      });
      if (result.cursor !== undefined) break;
    }
  } catch (e) {
    if (!(e instanceof NamespaceSetAside)) throw e;
    o.setAside.add(namespace);
    for (const raw of group.sets) await unplanned(raw, "NamespaceQuarantined", e.message);
  }
  return parsedSets;
}

type NamespaceOptions = PassOptions & { orphans?: OrphanLookup; events: EventRecorder; storageClasses: StorageClassReader; prefetched?: Prefetched; setAside: Set<string> };

/** reportUnplanned gives a set that is not planned a condition and an event (set-error.ts) and the pass's result a line; the pass goes on. */
async function reportUnplanned(client: KubeClient, raw: KubeObject, reason: SetErrorReason, why: string, o: NamespaceOptions, result: PassResult): Promise<void> {
  await reportSetError(client, raw, reason, why, { events: o.events, log: o.log, now: o.now() });
  result.sets.push({ set: setId(raw), actions: [], error: `${reason}: ${why}`.slice(0, 1024), waiting: false });
  await o.events.flush(o.now());
}

/** reconcileSlice plans and executes the slice's sets with its objects (`index`); false when the pass stopped (its cursor set). */
async function reconcileSlice(
  client: KubeClient,
  sets: readonly KubeObject[],
  index: PassIndex,
  o: NamespaceOptions,
  result: PassResult,
  parsedSets: Map<string, StatefulSet>,
): Promise<boolean> {
  const { events } = o;
  for (const raw of sets) {
    await o.beforeSet?.();
    if (o.shouldStop?.()) {
      result.cursor = result.sets.length ? result.sets[result.sets.length - 1].set : o.startAfter;
      result.pending = true;
      return false;
    }
    const id = setId(raw);
    const parsed = StatefulSetSchema.safeParse(raw);
    // A set that cannot be planned gets a condition and an event (set-error.ts); the pass goes on.
    const setError = (reason: SetErrorReason, why: string) => reportUnplanned(client, raw, reason, why, o, result);
    if (!parsed.success) {
      await setError("InvalidSpec", invalidSpecMessage(parsed.error.issues));
      continue;
    }
    if (optsInToPrewarm(raw)) parsedSets.set(id, parsed.data);
    let r: Awaited<ReturnType<typeof reconcileSet>>;
    try {
      r = await reconcileSet(client, parsed.data, index, o, events);
    } catch (e) {
      if (!(e instanceof PlanFailed)) throw e;
      await setError("PlanFailed", e.message);
      continue;
    }
    result.sets.push(r.result);
    result.actionCount += r.done;
    if (r.result.waiting || r.result.error || r.done > 0) result.pending = true;
    const after = r.result.requeueAfterMs;
    if (after !== undefined) {
      result.pending = true;
      result.requeueAfterMs = earlierMs(result.requeueAfterMs, after);
    }
    await events.flush(o.now());
  }
  return true;
}

/**
 * withUnseen sets result.unseenWrites to the awaited writes that what the pass read (by kind) does
 * not include yet (objects/announced-write.ts); none awaited, nothing set. Returns the result.
 */
function withUnseen(result: PassResult, awaiting: readonly AnnouncedWrite[] | undefined, read: Partial<Record<AnnouncedResource, KubeObject[]>>): PassResult {
  if (!awaiting?.length) return result;
  const find = (w: AnnouncedWrite) => read[w.resource]?.find((obj) => obj.metadata?.name === w.name);
  result.unseenWrites = awaiting.filter((w) => read[w.resource] && !writeLanded(w, find(w)));
  return result;
}

/** actuate runs the ImageList actuator (prewarm.ts) with the sets the pass read, and adds what it did to the pass's result. */
async function actuate(client: KubeClient, lists: ImageList[], ns: string | undefined, o: PassOptions, result: PassResult, sets: ReadonlyMap<string, StatefulSet>): Promise<void> {
  const events = o.events ?? new EventRecorder(client, o.log);
  const pw = await actuateImageLists(client, lists, { now: o.now, log: o.log, namespace: ns, shouldStop: o.shouldStop, events, sets });
  await events.flush(o.now());
  result.imageListActions = pw.actions;
  result.actionCount += pw.actions.length;
  if (pw.pending || pw.errors) result.pending = true;
  result.requeueAfterMs = earlierMs(result.requeueAfterMs, pw.requeueAfterMs);
}

/** replaceWritten returns the lists with those written replaced by their new version. */
function replaceWritten(lists: ImageList[], written: ImageList[]): ImageList[] {
  const byId = new Map(written.map((l) => [setId(l as KubeObject), l]));
  return lists.map((l) => byId.get(setId(l as KubeObject)) ?? l);
}

/** inShard returns the ImageLists of this pass's shard (all without sharding). */
function inShard(lists: ImageList[], o: PassOptions): ImageList[] {
  const shard = o.shard;
  return shard ? lists.filter((l) => shardOf(l.metadata.namespace ?? "", shard.count) === shard.index) : lists;
}

