// The "etcd" of the fake: objects per resource and namespace, a global resourceVersion counter,
// a uid index, listing in etcd key order, and snapshots that let paged lists stay consistent.

import type { Obj } from "./json.ts";
import type { ResourceDef } from "./kinds/types.ts";

type Table = Map<string, Map<string, Obj>>;

/** StoredObject locates an object found by uid. */
export interface StoredObject {
  def: ResourceDef;
  obj: Obj;
}

const SNAPSHOT_LIMIT = 64;

function metaOf(obj: Obj): { name: string; namespace: string; uid: string } {
  const m = obj.metadata as Record<string, unknown>;
  return { name: String(m.name), namespace: typeof m.namespace === "string" ? m.namespace : "", uid: String(m.uid) };
}

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Store holds the objects. Stored objects are never mutated: writers store new objects. */
export class Store {
  private rv = 0;
  private readonly tables = new Map<ResourceDef, Table>();
  private readonly uids = new Map<string, StoredObject>();
  private readonly sortedNames = new Map<string, string[]>();
  private readonly snapshots = new Map<string, Obj[]>();

  /** resourceVersion is the current revision. */
  resourceVersion(): number {
    return this.rv;
  }

  /** nextResourceVersion advances the revision (every write, deletions included). */
  nextResourceVersion(): string {
    this.rv += 1;
    return String(this.rv);
  }

  private table(def: ResourceDef): Table {
    let t = this.tables.get(def);
    if (!t) {
      t = new Map();
      this.tables.set(def, t);
    }
    return t;
  }

  get(def: ResourceDef, namespace: string, name: string): Obj | undefined {
    return this.tables.get(def)?.get(namespace)?.get(name);
  }

  byUid(uid: string): StoredObject | undefined {
    return this.uids.get(uid);
  }

  /** put inserts or replaces an object (its metadata names the slot). */
  put(def: ResourceDef, obj: Obj): void {
    const { name, namespace, uid } = metaOf(obj);
    const t = this.table(def);
    let ns = t.get(namespace);
    if (!ns) {
      ns = new Map();
      t.set(namespace, ns);
    }
    const old = ns.get(name);
    if (!old) this.sortedNames.delete(this.sortKey(def, namespace));
    else if (metaOf(old).uid !== uid) this.uids.delete(metaOf(old).uid);
    ns.set(name, obj);
    this.uids.set(uid, { def, obj });
  }

  /** remove deletes an object and returns it. */
  remove(def: ResourceDef, namespace: string, name: string): Obj | undefined {
    const ns = this.tables.get(def)?.get(namespace);
    const old = ns?.get(name);
    if (!ns || !old) return undefined;
    ns.delete(name);
    this.uids.delete(metaOf(old).uid);
    this.sortedNames.delete(this.sortKey(def, namespace));
    return old;
  }

  private sortKey(def: ResourceDef, namespace: string): string {
    return `${def.group}/${def.resource}/${namespace}`;
  }

  private names(def: ResourceDef, namespace: string): string[] {
    const key = this.sortKey(def, namespace);
    let names = this.sortedNames.get(key);
    if (!names) {
      names = [...(this.tables.get(def)?.get(namespace)?.keys() ?? [])].sort(byString);
      this.sortedNames.set(key, names);
    }
    return names;
  }

  /** list returns objects in etcd key order: one namespace, or all (namespace undefined). */
  list(def: ResourceDef, namespace?: string): Obj[] {
    const t = this.tables.get(def);
    if (!t) return [];
    const namespaces = namespace !== undefined ? [namespace] : [...t.keys()].sort((a, b) => byString(`${a}/`, `${b}/`));
    const out: Obj[] = [];
    for (const ns of namespaces) {
      const objs = t.get(ns);
      if (!objs) continue;
      for (const n of this.names(def, ns)) out.push(objs.get(n)!);
    }
    return out;
  }

  /** countInNamespace counts the objects of all namespaced resources in a namespace. */
  countInNamespace(namespace: string): number {
    let n = 0;
    for (const [def, t] of this.tables) if (def.namespaced) n += t.get(namespace)?.size ?? 0;
    return n;
  }

  /** all iterates every stored object. */
  *all(): Generator<StoredObject> {
    yield* this.uids.values();
  }

  /** saveSnapshot keeps a listing at a revision so later pages read the same state. */
  saveSnapshot(def: ResourceDef, namespace: string | undefined, rv: number, items: Obj[]): void {
    const key = `${this.sortKey(def, namespace ?? "*")}@${rv}`;
    this.snapshots.delete(key);
    this.snapshots.set(key, items);
    while (this.snapshots.size > SNAPSHOT_LIMIT) this.snapshots.delete(this.snapshots.keys().next().value!);
  }

  snapshot(def: ResourceDef, namespace: string | undefined, rv: number): Obj[] | undefined {
    return this.snapshots.get(`${this.sortKey(def, namespace ?? "*")}@${rv}`);
  }
}
