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
 * Its own writes are seen at once (`observeWrite`, `observeDelete`: what the apiserver answered a
 * write), so the pass that follows a write does not act on the state before it; an event or a
 * write older than what is held (resourceVersions compared as the integers etcd gives) never
 * replaces it. `onEvent` is told of every change the watch (or a relist) brings, not of writes.
 * Memory: the JSON size of what it holds is counted; past `maxBytes` it stops, drops its objects
 * and reports itself unsynced (readers then go to the apiserver), so a cluster larger than the
 * budget costs lists, never the reconcile thread's heap.
 */

export interface InformerOptions {
  resource: ResourceRef;
  /** Objects carrying this label selector only (e.g. Ordinal's `ordinal.dev/statefulset`); default all. */
  labelSelector?: string;
  /** Where a failed watch and the budget's end are told (a Logger fits). */
  log: { warn(message: string, fields?: Record<string, unknown>): void };
  /** Called after each change a watch event or a relist brought (not after observeWrite / observeDelete). */
  onEvent?: (type: "ADDED" | "MODIFIED" | "DELETED", obj: KubeObject) => void;
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

export class Informer {
  private readonly held = new Map<string, Held>();
  private bytes = 0;
  private version = "";
  private ready = false;
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

  /** synced is true while the mirror is complete (listed, watching, within its budget): readers may use it. */
  get synced(): boolean {
    return this.ready && !this.stopped && !this.overBudget;
  }

  /** heldBytes returns the JSON size of what is held (the memory budget's measure). */
  get heldBytes(): number {
    return this.bytes;
  }

  /** start begins listing and watching in the background; `synced` turns true once the first list is held. */
  start(): void {
    this.loop ??= this.run();
  }

  /** stop ends the watch; the mirror is no longer used. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    await this.loop;
  }

  /** get returns a copy of the held object, or undefined (not held: absent, or not picked by the selector). */
  get(namespace: string | undefined, name: string): KubeObject | undefined {
    const h = this.held.get(keyOf(namespace, name));
    return h && structuredClone(h.obj);
  }

  /** list returns copies of the held objects of a namespace (every namespace when undefined) that `keep` accepts, in the apiserver's order (namespace, then name). */
  list(namespace: string | undefined, keep: (o: KubeObject) => boolean): KubeObject[] {
    const out: [string, KubeObject][] = [];
    for (const [k, { obj }] of this.held) if ((namespace === undefined || obj.metadata?.namespace === namespace) && keep(obj)) out.push([k, obj]);
    return out.sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([, obj]) => structuredClone(obj));
  }

  /** observeWrite holds what the apiserver answered a write of ours (unless something later is held). */
  observeWrite(obj: KubeObject): void {
    if (!this.ready || !obj.metadata?.name) return;
    this.put(obj);
  }

  /**
   * observeDelete records a delete of ours the apiserver accepted: an object with finalizers (or a
   * pod, deleted gracefully) is marked terminating until the watch brings what follows; another is
   * dropped.
   */
  observeDelete(namespace: string | undefined, name: string): void {
    const h = this.held.get(keyOf(namespace, name));
    if (!h) return;
    const graceful = this.o.resource.resource === "pods" || (h.obj.metadata?.finalizers?.length ?? 0) > 0;
    if (!graceful) return this.drop(key(h.obj));
    if (h.obj.metadata?.deletionTimestamp) return;
    const obj = { ...h.obj, metadata: { ...h.obj.metadata, deletionTimestamp: (this.o.now?.() ?? new Date()).toISOString().replace(/\.\d+Z$/, "Z") } };
    this.held.set(key(obj), { obj, bytes: h.bytes });
  }

  private async run(): Promise<void> {
    const sleep = this.o.sleep ?? defaultSleep;
    let backoff = 500;
    while (!this.stopped && !this.overBudget) {
      try {
        if (!this.version) await this.relist();
        for await (const ev of this.client.watch(this.o.resource, undefined, {
          labelSelector: this.o.labelSelector,
          resourceVersion: this.version,
          timeoutSeconds: this.o.watchTimeoutSeconds ?? 240,
          signal: this.abort.signal,
        })) {
          if (!this.apply(ev)) break;
          backoff = 500;
        }
      } catch (e) {
        if (this.stopped) return;
        this.o.log.warn("watch failed; resuming", { resource: this.o.resource.resource, inMs: backoff, error: e instanceof Error ? e.message : String(e) });
        await sleep(backoff);
        backoff = Math.min(30_000, backoff * 2);
      }
    }
  }

  /** relist replaces what is held with a fresh list (keeping our own writes that are later than it) and tells onEvent what changed. */
  private async relist(): Promise<void> {
    const { items, resourceVersion } = await this.client.listWithVersion(this.o.resource, undefined, this.o.labelSelector);
    const listed = new Set<string>();
    for (const item of items) {
      listed.add(key(item));
      const before = this.held.get(key(item));
      if (this.put(item) && this.ready) this.o.onEvent?.(before ? "MODIFIED" : "ADDED", item);
      if (this.overBudget) return;
    }
    for (const [k, h] of [...this.held]) {
      if (listed.has(k) || newerThan(h.obj.metadata?.resourceVersion, resourceVersion)) continue;
      this.drop(k);
      if (this.ready) this.o.onEvent?.("DELETED", h.obj);
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
    const h = this.held.get(k);
    if (ev.type === "DELETED") {
      if (h && !newerThan(rv, h.obj.metadata?.resourceVersion)) return true;
      this.drop(k);
    } else if (!this.put(ev.object)) return !this.overBudget;
    this.o.onEvent?.(ev.type, ev.object);
    return !this.overBudget;
  }

  /** put holds the object unless what is held is later; returns whether it did. Past the budget it gives up the mirror. */
  private put(o: KubeObject): boolean {
    const k = key(o);
    const h = this.held.get(k);
    if (h && h.obj.metadata?.resourceVersion === o.metadata?.resourceVersion) return false;
    if (h && !newerThan(o.metadata?.resourceVersion, h.obj.metadata?.resourceVersion)) return false;
    const obj = stripped(o);
    const bytes = JSON.stringify(obj).length;
    this.bytes += bytes - (h?.bytes ?? 0);
    this.held.set(k, { obj, bytes });
    if (this.bytes > this.maxBytes) this.giveUp();
    return true;
  }

  private drop(k: string): void {
    const h = this.held.get(k);
    if (!h) return;
    this.bytes -= h.bytes;
    this.held.delete(k);
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
    this.held.clear();
    this.bytes = 0;
    this.abort.abort();
  }
}
