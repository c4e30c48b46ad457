import { ApiError, type KubeObject, type WatchClient, type WatchEvent } from "./client.ts";
import type { ResourceRef } from "./resources.ts";

/**
 * Informer mirrors one resource of the cluster (those objects its label selector picks, in every
 * namespace) in memory, as client-go's informers do: a list, then a watch from the list's
 * resourceVersion, resumed from the last event seen when the apiserver ends it, listed again when
 * the apiserver says the version is too old (410). It is a read cache, never a source of truth:
 * passes that read it still plan level-triggered, their writes carry the usual preconditions, and
 * the scheduler's periodic full pass reads the apiserver itself.
 *
 * It is `synced` (readers may use it) only while it is listed AND its watch is up: a watch that
 * fails (refused, a resource gone, the network) makes it unsynced until it is back, so readers go to
 * the apiserver meanwhile and webhook wakes are not left to a watch that does not come. A watch
 * silent for longer than the apiserver's own timeout plus 30 s is cut from this side.
 *
 * Its own writes are seen at once (`observe`: what the apiserver answered a write, or what a full
 * pass read), so the pass that follows a write does not act on the state before it; an event, a
 * write or a read older than what is held never replaces it, and a deletion is remembered
 * (tombstones, by resourceVersion) so an older answer in flight does not bring the object back.
 * `onEvent` is told of every change the watch (or a relist) brings, with what was held before.
 * Memory: the JSON size of what it holds is counted as it is listed, page by page; past `maxBytes`
 * it stops, drops its objects and stays unsynced (readers go to the apiserver), so a cluster
 * larger than the budget costs lists, never the reconcile thread's heap.
 */

export interface InformerOptions {
  resource: ResourceRef;
  /** Objects carrying this label selector only (e.g. Ordinal's `ordinal.dev/statefulset`); default all. */
  labelSelector?: string;
  /** Whether an object belongs in the mirror (what the label selector picks); a written object that does not is dropped. */
  holds?: (o: KubeObject) => boolean;
  /** Where a failed watch and the budget's end are told (a Logger fits). */
  log: { warn(message: string, fields?: Record<string, unknown>): void };
  /** Called after each change a watch event or a relist brought (not after observe / observeDelete), with what was held before. */
  onEvent?: (type: "ADDED" | "MODIFIED" | "DELETED", obj: KubeObject, before: KubeObject | undefined) => void;
  /** What of each object is held (objects/projection.ts: what a pass reads); default: the object without managedFields. */
  project?: (o: KubeObject) => KubeObject;
  /** Stop caching past this many bytes of JSON held (default 16 MiB). */
  maxBytes?: number;
  /** The apiserver ends each watch after this long (default 240 s, within undici's 300 s body timeout); it is resumed from the last event. */
  watchTimeoutSeconds?: number;
  /** Waits between failed attempts (tests pass their own). */
  sleep?: (ms: number) => Promise<void>;
  /** Wall clock (a delete observed marks deletionTimestamp with it). */
  now?: () => Date;
}

const keyOf = (namespace: string | undefined, name: string | undefined): string => `${namespace ?? ""}/${name ?? ""}`;
const key = (o: KubeObject): string => keyOf(o.metadata?.namespace, o.metadata?.name);
const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A resource the apiserver does not serve (404: its CRD is not installed) is looked for again this often. */
const ABSENT_RETRY_MS = 60_000;
/** A watch that ends this soon without an event is opened again only after a pause (no hot loop). */
const QUICK_END_MS = 1_000;
/** Deletions remembered at most (oldest forgotten first); a relist starts afresh. */
const MAX_TOMBSTONES = 10_000;

/**
 * newerThan returns true when resourceVersion `a` is later than `b`. etcd's are decimal integers
 * (compared by length, then digits); either one missing or not an integer: true (take the new one).
 */
export function newerThan(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return true;
  return a.length !== b.length ? a.length > b.length : a > b;
}

/** stripped returns the object without metadata.managedFields (nothing Ordinal reads; often half an object's size). */
function stripped(o: KubeObject): KubeObject {
  if (!o.metadata || !("managedFields" in o.metadata)) return o;
  const { managedFields: _m, ...metadata } = o.metadata;
  return { ...o, metadata };
}

interface Held {
  obj: KubeObject;
  bytes: number;
}

/** Thrown inside a list when the mirror would pass its budget: the list stops there. */
class OverBudget extends Error {}

export class Informer {
  /** Held objects by namespace, then by key: a namespace's list costs that namespace. */
  private readonly held = new Map<string, Map<string, Held>>();
  /** Deleted objects' keys and the resourceVersion of their deletion. */
  private readonly tombstones = new Map<string, string>();
  private bytes = 0;
  private version = "";
  private ready = false;
  private watching = false;
  private stopped = false;
  private overBudget = false;
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private readonly maxBytes: number;

  constructor(
    private readonly client: WatchClient,
    readonly o: InformerOptions,
  ) {
    this.maxBytes = o.maxBytes ?? 16 * 1024 * 1024;
  }

  get resource(): ResourceRef {
    return this.o.resource;
  }

  /** synced is true while the mirror is complete (listed, its watch up, within its budget): readers may use it. */
  get synced(): boolean {
    return this.ready && this.watching && !this.stopped && !this.overBudget;
  }

  /** heldBytes returns the JSON size of what is held (the memory budget's measure). */
  get heldBytes(): number {
    return this.bytes;
  }

  /** start begins listing and watching in the background; `synced` turns true once the first list is held. */
  start(): void {
    this.loop ??= this.run();
  }

  /** stop ends the watch (and a wait or a list in flight); the mirror is no longer used. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    await this.loop;
  }

  /** get returns a copy of the held object, or undefined (not held: absent, or not picked by the selector). */
  get(namespace: string | undefined, name: string): KubeObject | undefined {
    const h = this.held.get(namespace ?? "")?.get(keyOf(namespace, name));
    return h && structuredClone(h.obj);
  }

  /** list returns copies of the held objects of a namespace (every namespace when undefined) that `keep` accepts, in the apiserver's order (namespace, then name). */
  list(namespace: string | undefined, keep: (o: KubeObject) => boolean): KubeObject[] {
    const out: [string, KubeObject][] = [];
    const spaces = namespace === undefined ? [...this.held.values()] : [this.held.get(namespace) ?? new Map<string, Held>()];
    for (const space of spaces) for (const [k, { obj }] of space) if (keep(obj)) out.push([k, obj]);
    return out.sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([, obj]) => structuredClone(obj));
  }

  /**
   * observe holds what the apiserver answered a write of ours, or what a pass read from it, unless
   * something later is held or was deleted; an object the mirror does not hold (its label gone) is dropped.
   */
  observe(obj: KubeObject): void {
    if (!this.ready || !obj.metadata?.name) return;
    if (this.o.holds && !this.o.holds(obj)) {
      const h = this.find(key(obj));
      if (!h || newerThan(obj.metadata.resourceVersion, h.obj.metadata?.resourceVersion)) this.remove(key(obj), obj.metadata.resourceVersion);
      return;
    }
    this.put(obj);
  }

  /**
   * observeDelete records a delete of ours the apiserver accepted: an object with finalizers (or a
   * pod, deleted gracefully) is marked terminating until the watch brings what follows; another is
   * dropped (and remembered as deleted).
   */
  observeDelete(namespace: string | undefined, name: string): void {
    const k = keyOf(namespace, name);
    const h = this.find(k);
    if (!h) return;
    const graceful = this.o.resource.resource === "pods" || (h.obj.metadata?.finalizers?.length ?? 0) > 0;
    if (!graceful) return this.remove(k, h.obj.metadata?.resourceVersion);
    if (h.obj.metadata?.deletionTimestamp) return;
    const obj = { ...h.obj, metadata: { ...h.obj.metadata, deletionTimestamp: (this.o.now?.() ?? new Date()).toISOString().replace(/\.\d+Z$/, "Z") } };
    this.space(namespace ?? "").set(k, { obj, bytes: h.bytes });
  }

  private async run(): Promise<void> {
    const sleep = (ms: number) => this.sleepUnlessStopped(ms);
    let backoff = 500;
    const timeoutSeconds = this.o.watchTimeoutSeconds ?? 240;
    while (!this.stopped && !this.overBudget) {
      try {
        if (!this.version) await this.relist();
        if (this.stopped || this.overBudget) return;
        const opened = Date.now();
        let events = 0;
        // The apiserver ends the watch at timeoutSeconds; one silent for 30 s longer is cut here (a partition).
        const signal = AbortSignal.any([this.abort.signal, AbortSignal.timeout((timeoutSeconds + 30) * 1000)]);
        this.watching = true;
        for await (const ev of this.client.watch(this.o.resource, undefined, { labelSelector: this.o.labelSelector, resourceVersion: this.version, timeoutSeconds, signal })) {
          events++;
          if (!this.apply(ev)) break;
          backoff = 500;
        }
        if (events === 0 && Date.now() - opened < QUICK_END_MS) await sleep(QUICK_END_MS);
      } catch (e) {
        this.watching = false;
        if (this.stopped) return;
        if (e instanceof ApiError && e.code === 404 && !this.version) {
          // The resource is not served (a CRD not installed): there is nothing, as a list would say; look again later.
          this.clear();
          this.ready = this.watching = true;
          await sleep(ABSENT_RETRY_MS);
          this.watching = false;
          continue;
        }
        if (e instanceof OverBudget) return;
        this.o.log.warn("watch failed; resuming", { resource: this.o.resource.resource, inMs: backoff, error: e instanceof Error ? e.message : String(e) });
        await sleep(backoff);
        backoff = Math.min(30_000, backoff * 2);
      }
    }
  }

  /** sleepUnlessStopped waits `ms` (the `sleep` option) or until stop() / giveUp(); its abort listener goes with it. */
  private async sleepUnlessStopped(ms: number): Promise<void> {
    let wake = () => {};
    const stopped = new Promise<void>((r) => (wake = r));
    this.abort.signal.addEventListener("abort", wake, { once: true });
    try {
      await Promise.race([(this.o.sleep ?? defaultSleep)(ms), stopped]);
    } finally {
      this.abort.signal.removeEventListener("abort", wake);
    }
  }

  /** relist replaces what is held with a fresh list (keeping our own writes that are later than it) and tells onEvent what changed. */
  private async relist(): Promise<void> {
    this.watching = false;
    this.tombstones.clear();
    const listed = new Set<string>();
    // Each item is held as its page arrives (what the budget counts): the whole list is never in memory twice.
    const { resourceVersion } = await this.client.listWithVersion(this.o.resource, undefined, this.o.labelSelector, (item) => {
      const k = key(item);
      listed.add(k);
      const before = this.find(k)?.obj;
      if (this.put(item) && this.ready) this.o.onEvent?.(before ? "MODIFIED" : "ADDED", item, before);
      if (this.overBudget) throw new OverBudget();
      return false;
    });
    for (const space of [...this.held.values()]) {
      for (const [k, h] of [...space]) {
        if (listed.has(k) || newerThan(h.obj.metadata?.resourceVersion, resourceVersion)) continue;
        this.remove(k, resourceVersion);
        if (this.ready) this.o.onEvent?.("DELETED", h.obj, h.obj);
      }
    }
    this.version = resourceVersion;
    this.ready = true;
  }

  /** apply takes one watch event; false when the watch must end (410: list again; the budget spent). */
  private apply(ev: WatchEvent): boolean {
    if (ev.type === "ERROR") {
      const status = ev.object as { code?: number; message?: string };
      if (status.code === 410) this.version = "";
      else throw new ApiError(status.code ?? 0, "WatchError", status.message ?? "watch error");
      return false;
    }
    const rv = ev.object.metadata?.resourceVersion;
    if (rv) this.version = rv;
    if (ev.type === "BOOKMARK") return true;
    const k = key(ev.object);
    const before = this.find(k)?.obj;
    if (ev.type === "DELETED") {
      // A deletion at or after what is held removes it (our own write may be held at the same version).
      if (before && newerThan(before.metadata?.resourceVersion, rv)) return true;
      this.remove(k, rv);
    } else if (!this.put(ev.object)) return !this.overBudget;
    this.o.onEvent?.(ev.type, ev.object, before);
    return !this.overBudget;
  }

  private find(k: string): Held | undefined {
    return this.held.get(k.slice(0, k.indexOf("/")))?.get(k);
  }

  private space(namespace: string): Map<string, Held> {
    let s = this.held.get(namespace);
    if (!s) this.held.set(namespace, (s = new Map()));
    return s;
  }

  /** put holds the object unless what is held is as late, or it was deleted since; returns whether it did. Past the budget it gives up the mirror. */
  private put(o: KubeObject): boolean {
    const k = key(o);
    const rv = o.metadata?.resourceVersion;
    const h = this.find(k);
    if (h && !newerThan(rv, h.obj.metadata?.resourceVersion)) return false;
    const deletedAt = this.tombstones.get(k);
    if (deletedAt !== undefined && !newerThan(rv, deletedAt)) return false;
    this.tombstones.delete(k);
    const obj = this.o.project ? this.o.project(o) : stripped(o);
    const bytes = JSON.stringify(obj).length;
    this.bytes += bytes - (h?.bytes ?? 0);
    this.space(o.metadata?.namespace ?? "").set(k, { obj, bytes });
    if (this.bytes > this.maxBytes) this.giveUp();
    return true;
  }

  /** remove drops the held object and remembers its deletion (at `rv`), so nothing older brings it back. */
  private remove(k: string, rv: string | undefined): void {
    const ns = k.slice(0, k.indexOf("/"));
    const space = this.held.get(ns);
    const h = space?.get(k);
    if (space && h) {
      this.bytes -= h.bytes;
      space.delete(k);
      if (space.size === 0) this.held.delete(ns);
    }
    if (rv === undefined) return;
    this.tombstones.delete(k);
    this.tombstones.set(k, rv);
    if (this.tombstones.size > MAX_TOMBSTONES) this.tombstones.delete(this.tombstones.keys().next().value!);
  }

  private clear(): void {
    this.held.clear();
    this.tombstones.clear();
    this.bytes = 0;
  }

  /** giveUp drops the mirror once it holds more than its budget: readers go to the apiserver from now on. */
  private giveUp(): void {
    if (this.overBudget) return;
    this.overBudget = true;
    this.o.log.warn("watch cache over its memory budget: this resource is read from the apiserver from now on", {
      resource: this.o.resource.resource,
      heldBytes: this.bytes,
      maxBytes: this.maxBytes,
    });
    this.clear();
    this.abort.abort();
  }
}
