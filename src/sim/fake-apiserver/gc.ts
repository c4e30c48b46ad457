// The garbage collector of kube-controller-manager, run synchronously: dependents whose owners
// (by uid) are all gone are deleted; references to gone owners are dropped while another owner
// remains; owners deleted with propagationPolicy Orphan have the references to them removed
// from their dependents, Foreground owners wait for their blocking dependents.

import { isApiError } from "./errors.ts";
import { finalizersOf, metaOf, objectsIn, setFinalizers, str, type Obj } from "./json.ts";
import { deleteObject, type PropagationPolicy } from "./deletion.ts";
import type { Change, Engine } from "./rest.ts";

const ignoreGone = (fn: () => void): void => {
  try {
    fn();
  } catch (e) {
    if (isApiError(e) && (e.code === 404 || e.code === 409)) return;
    throw e;
  }
};

export class GarbageCollector {
  /** owner uid -> dependent uids */
  private readonly dependents = new Map<string, Set<string>>();
  private readonly dirtyDependents = new Set<string>();
  private readonly dirtyOwners = new Set<string>();

  constructor(private readonly engine: Engine) {}

  private index(obj: Obj, add: boolean): void {
    const uid = str(metaOf(obj).uid);
    for (const ref of objectsIn(metaOf(obj).ownerReferences)) {
      const owner = str(ref.uid);
      let set = this.dependents.get(owner);
      if (add) {
        if (!set) this.dependents.set(owner, (set = new Set()));
        set.add(uid);
      } else {
        set?.delete(uid);
        if (set?.size === 0) this.dependents.delete(owner);
      }
    }
  }

  /** observe records a stored change. */
  observe(c: Change): void {
    const uid = str(metaOf(c.obj).uid);
    if (c.old) this.index(c.old, false);
    if (c.type === "deleted") {
      this.index(c.obj, false);
      for (const dep of this.dependents.get(uid) ?? []) this.dirtyDependents.add(dep);
      for (const ref of objectsIn(metaOf(c.obj).ownerReferences)) this.dirtyOwners.add(str(ref.uid));
      return;
    }
    if (c.old) {
      const kept = new Set(objectsIn(metaOf(c.obj).ownerReferences).map((r) => str(r.uid)));
      for (const ref of objectsIn(metaOf(c.old).ownerReferences)) if (!kept.has(str(ref.uid))) this.dirtyOwners.add(str(ref.uid));
    }
    this.index(c.obj, true);
    if (objectsIn(metaOf(c.obj).ownerReferences).length > 0) this.dirtyDependents.add(uid);
    const f = finalizersOf(c.obj);
    if (metaOf(c.obj).deletionTimestamp && (f.includes("orphan") || f.includes("foregroundDeletion"))) this.dirtyOwners.add(uid);
  }

  /** markAll queues every object for a full pass (the gc() helper). */
  markAll(): void {
    for (const { obj } of this.engine.store.all()) {
      const uid = str(metaOf(obj).uid);
      if (objectsIn(metaOf(obj).ownerReferences).length > 0) this.dirtyDependents.add(uid);
      if (metaOf(obj).deletionTimestamp) this.dirtyOwners.add(uid);
    }
  }

  pending(): boolean {
    return this.dirtyDependents.size > 0 || this.dirtyOwners.size > 0;
  }

  /** step processes one queued item; false when nothing was queued. */
  step(): boolean {
    for (const [queue, fn] of [
      [this.dirtyOwners, (u: string) => this.processOwner(u)],
      [this.dirtyDependents, (u: string) => this.processDependent(u)],
    ] as const) {
      const next = queue.values().next();
      if (!next.done) {
        queue.delete(next.value);
        fn(next.value);
        return true;
      }
    }
    return false;
  }

  private ownerState(dependent: Obj, ref: Obj): "solid" | "dangling" | "waiting" | "unknown" {
    const owner = this.engine.store.byUid(str(ref.uid));
    if (!owner) {
      return this.engine.registry.forKind(str(ref.apiVersion), str(ref.kind)) ? "dangling" : "unknown";
    }
    const om = metaOf(owner.obj);
    if (owner.def.namespaced && om.namespace !== metaOf(dependent).namespace) return "dangling";
    if (om.name !== ref.name) return "dangling";
    if (om.deletionTimestamp && finalizersOf(owner.obj).includes("foregroundDeletion")) return "waiting";
    return "solid";
  }

  private processDependent(uid: string): void {
    const found = this.engine.store.byUid(uid);
    if (!found) return;
    const { def, obj } = found;
    const refs = objectsIn(metaOf(obj).ownerReferences);
    if (refs.length === 0) return;
    const states = refs.map((r) => this.ownerState(obj, r));
    if (states.includes("unknown")) return;
    const meta = metaOf(obj);
    if (states.includes("solid")) {
      if (states.every((s) => s === "solid")) return;
      ignoreGone(() =>
        this.engine.internalUpdate(def, obj, (o) => {
          metaOf(o).ownerReferences = refs.filter((_, i) => states[i] === "solid");
        }),
      );
      return;
    }
    let policy: PropagationPolicy = "Background";
    const f = finalizersOf(obj);
    if (states.includes("waiting") && (this.dependents.get(uid)?.size ?? 0) > 0) policy = "Foreground";
    else if (f.includes("orphan")) policy = "Orphan";
    else if (f.includes("foregroundDeletion")) policy = "Foreground";
    if (meta.deletionTimestamp) return;
    ignoreGone(() =>
      deleteObject(this.engine, def, str(meta.namespace), str(meta.name), { propagationPolicy: policy, preconditions: { uid } }),
    );
  }

  private processOwner(uid: string): void {
    const found = this.engine.store.byUid(uid);
    if (!found || !metaOf(found.obj).deletionTimestamp) return;
    const f = finalizersOf(found.obj);
    const deps = [...(this.dependents.get(uid) ?? [])].map((d) => this.engine.store.byUid(d)).filter((d) => d !== undefined);
    if (f.includes("orphan")) {
      for (const dep of deps) {
        ignoreGone(() =>
          this.engine.internalUpdate(dep.def, dep.obj, (o) => {
            metaOf(o).ownerReferences = objectsIn(metaOf(o).ownerReferences).filter((r) => r.uid !== uid);
            if ((metaOf(o).ownerReferences as unknown[]).length === 0) delete metaOf(o).ownerReferences;
          }),
        );
      }
      this.removeFinalizer(uid, "orphan");
      return;
    }
    if (!f.includes("foregroundDeletion")) return;
    for (const dep of deps) if (!metaOf(dep.obj).deletionTimestamp) this.dirtyDependents.add(str(metaOf(dep.obj).uid));
    const blocking = deps.some((d) => objectsIn(metaOf(d.obj).ownerReferences).some((r) => r.uid === uid && r.blockOwnerDeletion === true));
    if (!blocking) this.removeFinalizer(uid, "foregroundDeletion");
  }

  private removeFinalizer(uid: string, finalizer: string): void {
    const found = this.engine.store.byUid(uid);
    if (!found) return;
    ignoreGone(() => this.engine.internalUpdate(found.def, found.obj, (o) => setFinalizers(o, finalizersOf(o).filter((x) => x !== finalizer))));
  }
}
