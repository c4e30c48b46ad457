// The generic registry store (k8s.io/apiserver/pkg/registry/generic/registry/store.go) for
// create, get, update and patch, with the status subresource rules. Every write goes through
// here, whether it comes from an HTTP request, a controller of the fake, or a test helper.

import { decode, decodePatched } from "./decode.ts";
import {
  alreadyExists,
  badRequest,
  conflict,
  forbidden,
  invalidError,
  notFound,
  plainServerError,
  type GroupResource,
  GoSyntax,
  invalid,
} from "./errors.ts";
import { canonicalOrder, clone, deepEqual, metaOf, objectAt, str, type Obj } from "./json.ts";
import type { Registry } from "./kinds/index.ts";
import type { ClusterView, ResourceDef } from "./kinds/types.ts";
import { applyPatch } from "./patch.ts";
import type { Store } from "./store.ts";
import { formatTime } from "./time.ts";
import { isValidPathSegmentName } from "./validation.ts";

/** Change is what controllers are told after every stored write. */
export interface Change {
  type: "added" | "modified" | "deleted";
  def: ResourceDef;
  obj: Obj;
  old?: Obj;
}

export interface WriteOptions {
  dryRun?: boolean;
}

/** Result is an HTTP status code and a JSON body. */
export interface Result {
  code: number;
  body: unknown;
}

/** UpdateMode selects the endpoint: the object itself, its /status, or namespaces' /finalize. */
export type UpdateMode = "main" | "status" | "finalize";

/** What a SubjectAccessReview asks (its spec, flattened). */
export interface AccessAttributes {
  user: string;
  groups: string[];
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

/** The fake's authorizer: allowed or not, and why (a SubjectAccessReview's status.reason). */
export type Authorizer = (a: AccessAttributes) => { allowed: boolean; reason?: string };

export interface EngineOptions {
  now(): Date;
  random(): number;
  uid(): string;
  onChange(change: Change): void;
  /** Answers SubjectAccessReviews; absent: everything is allowed (the fake has no RBAC). */
  authorize?: Authorizer;
}

const NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
const MAX_GENERATE_ATTEMPTS = 8;

export const groupResource = (def: ResourceDef): GroupResource => ({ group: def.group, resource: def.resource });


/** withoutResourceVersion copies an object for comparisons that ignore the resourceVersion. */
function withoutResourceVersion(o: Obj): Obj {
  const { resourceVersion: _rv, ...meta } = metaOf(o);
  return { ...o, metadata: meta };
}

function generationChanged(def: ResourceDef, now: Obj, old: Obj): boolean {
  const fields = def.generationFields;
  if (!fields) return false;
  if (fields === "all-but-metadata") {
    const keys = new Set([...Object.keys(now), ...Object.keys(old)]);
    keys.delete("metadata");
    return [...keys].some((k) => !deepEqual(now[k], old[k]));
  }
  return fields.some((f) => !deepEqual(now[f], old[f]));
}

function restore(target: Obj, source: Obj, key: string): void {
  if (source[key] === undefined) delete target[key];
  else target[key] = clone(source[key]);
}

/** Engine implements the REST verbs against the store. */
export class Engine implements ClusterView {
  constructor(
    readonly registry: Registry,
    readonly store: Store,
    private readonly opts: EngineOptions,
  ) {}

  now(): Date {
    return this.opts.now();
  }

  random(): number {
    return this.opts.random();
  }

  randomSuffix(n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += NAME_ALPHABET[Math.floor(this.opts.random() * NAME_ALPHABET.length)];
    return s;
  }

  find(group: string, resource: string, namespace: string, name: string): Obj | undefined {
    const def = this.registry.byGroupResource(group, resource);
    return def ? this.store.get(def, def.namespaced ? namespace : "", name) : undefined;
  }

  /** authorize answers a SubjectAccessReview (everything allowed without an authorizer). */
  authorize(a: AccessAttributes): { allowed: boolean; reason?: string } {
    return this.opts.authorize ? this.opts.authorize(a) : { allowed: true };
  }

  /** emit stores a change for the controllers. */
  emit(change: Change): void {
    this.opts.onChange(change);
  }

  /** write stores an object under a new resourceVersion and tells the controllers. */
  write(def: ResourceDef, obj: Obj, old: Obj | undefined): Obj {
    metaOf(obj).resourceVersion = this.store.nextResourceVersion();
    const stored = canonicalOrder(obj, def.custom);
    this.store.put(def, stored);
    this.emit({ type: old ? "modified" : "added", def, obj: stored, old });
    return stored;
  }

  /** erase removes an object from the store and tells the controllers. */
  erase(def: ResourceDef, obj: Obj): void {
    const meta = metaOf(obj);
    this.store.nextResourceVersion();
    this.store.remove(def, str(meta.namespace), str(meta.name));
    this.emit({ type: "deleted", def, obj });
  }

  get(def: ResourceDef, namespace: string, name: string): Obj {
    const obj = this.store.get(def, def.namespaced ? namespace : "", name);
    if (!obj) throw notFound(groupResource(def), name);
    return obj;
  }

  // ---- create ----------------------------------------------------------------------------------

  /** create is POST: body is the raw request JSON. */
  create(def: ResourceDef, namespace: string, body: unknown, opts: WriteOptions = {}): Result {
    return this.createDecoded(def, namespace, decode(def, body), opts);
  }

  /** admitNamespace is the NamespaceLifecycle admission plugin. */
  private admitNamespace(def: ResourceDef, namespace: string, name: string): void {
    if (!def.namespaced) return;
    const ns = this.find("", "namespaces", "", namespace);
    if (!ns) throw notFound({ group: "", resource: "namespaces" }, namespace);
    if (metaOf(ns).deletionTimestamp) {
      throw forbidden(groupResource(def), name, `unable to create new content in namespace ${namespace} because it is being terminated`, [
        { reason: "NamespaceTerminating", message: `namespace ${namespace} is being terminated`, field: "metadata.namespace" },
      ]);
    }
  }

  private setNamespace(def: ResourceDef, meta: Obj, namespace: string): void {
    if (def.namespaced) {
      if (str(meta.namespace) && meta.namespace !== namespace) {
        throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
      }
      meta.namespace = namespace;
    } else {
      delete meta.namespace;
    }
  }

  createDecoded(def: ResourceDef, namespace: string, obj: Obj, opts: WriteOptions, code = 201): Result {
    const meta = metaOf(obj);
    this.setNamespace(def, meta, namespace);
    const ns = def.namespaced ? namespace : "";
    const generated = !str(meta.name) && !!str(meta.generateName);
    const pristine = generated ? clone(obj) : obj;
    for (let attempt = 1; ; attempt++) {
      const candidate = attempt === 1 ? obj : clone(pristine);
      const cmeta = metaOf(candidate);
      if (generated) cmeta.name = `${str(meta.generateName).slice(0, 58)}${this.randomSuffix(5)}`;
      const name = str(cmeta.name);
      this.admitNamespace(def, ns, name);
      def.admitCreate?.(candidate, this);
      delete cmeta.deletionTimestamp;
      delete cmeta.deletionGracePeriodSeconds;
      cmeta.uid = this.opts.uid();
      cmeta.creationTimestamp = formatTime(this.now());
      if (def.generationFields) cmeta.generation = 1;
      if (def.custom && def.status) delete candidate.status;
      def.prepareForCreate?.(candidate, this);
      const errs = def.validate?.(candidate) ?? [];
      if (errs.length > 0) throw invalidError({ group: def.group, kind: def.kind }, name, errs);
      const pathErrs = isValidPathSegmentName(name);
      if (pathErrs.length > 0) throw badRequest(`Name parameter invalid: ${JSON.stringify(name)}: ${pathErrs.join(";")}`);
      if (str(cmeta.resourceVersion)) throw plainServerError("resourceVersion should not be set on objects to be created");
      if (this.store.get(def, ns, name)) {
        if (generated && attempt < MAX_GENERATE_ATTEMPTS) continue;
        throw alreadyExists(groupResource(def), name);
      }
      if (opts.dryRun) return { code, body: canonicalOrder(candidate, def.custom) };
      return { code, body: this.write(def, candidate, undefined) };
    }
  }

  // ---- update ----------------------------------------------------------------------------------

  /** update is PUT on the object, its /status or /finalize: body is the raw request JSON. */
  update(def: ResourceDef, namespace: string, name: string, body: unknown, mode: UpdateMode, opts: WriteOptions = {}): Result {
    return this.updateDecoded(def, namespace, name, decode(def, body), mode, opts);
  }

  updateDecoded(def: ResourceDef, namespace: string, name: string, obj: Obj, mode: UpdateMode, opts: WriteOptions): Result {
    const meta = metaOf(obj);
    if (!str(meta.name)) throw badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`);
    if (meta.name !== name) throw badRequest(`the name of the object (${str(meta.name)}) does not match the name on the URL (${name})`);
    this.setNamespace(def, meta, namespace);
    const ns = def.namespaced ? namespace : "";
    const existing = this.store.get(def, ns, name);
    const gr = groupResource(def);
    if (!existing) {
      if (mode === "main" && def.allowCreateOnUpdate) {
        delete meta.resourceVersion;
        return this.createDecoded(def, ns, obj, opts, 201);
      }
      throw notFound(gr, name);
    }
    const oldMeta = metaOf(existing);
    if (str(meta.uid) && meta.uid !== oldMeta.uid) {
      throw conflict(gr, name, `Precondition failed: UID in precondition: ${str(meta.uid)}, UID in object meta: ${str(oldMeta.uid)}`);
    }
    if (!str(meta.resourceVersion)) {
      if (!def.allowUnconditionalUpdate) {
        throw invalidError({ group: def.group, kind: def.resource }, name, [
          invalid("metadata.resourceVersion", new GoSyntax("0x0"), "must be specified for an update"),
        ]);
      }
      meta.resourceVersion = oldMeta.resourceVersion;
    } else if (meta.resourceVersion !== oldMeta.resourceVersion) {
      throw conflict(gr, name);
    }
    let next = obj;
    if (mode === "main") {
      if (def.status) restore(next, existing, "status");
      def.prepareForUpdate?.(next, existing);
    } else if (mode === "status") {
      if (def.custom) {
        next = { ...clone(existing), status: clone(obj.status) };
        if (obj.status === undefined) delete next.status;
      } else {
        restore(next, existing, "spec");
        def.prepareForStatusUpdate?.(next, existing);
      }
    } else {
      const finalizers = objectAt(obj, "spec").finalizers;
      next = clone(existing);
      if (Array.isArray(finalizers) && finalizers.length > 0) objectAt(next, "spec").finalizers = finalizers;
      else delete objectAt(next, "spec").finalizers;
    }
    return this.commitUpdate(def, existing, next, mode, opts);
  }

  /** commitUpdate is rest.BeforeUpdate, validation, delete-on-emptied-finalizers and the write. */
  private commitUpdate(def: ResourceDef, existing: Obj, next: Obj, mode: UpdateMode, opts: WriteOptions): Result {
    const meta = metaOf(next);
    const oldMeta = metaOf(existing);
    const name = str(oldMeta.name);
    if (oldMeta.generation === undefined) delete meta.generation;
    else meta.generation = oldMeta.generation;
    if (!str(meta.uid)) meta.uid = oldMeta.uid;
    meta.creationTimestamp = oldMeta.creationTimestamp;
    if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
    if (oldMeta.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds === undefined) {
      meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
    }
    if (mode === "main" && generationChanged(def, next, existing)) meta.generation = Number(oldMeta.generation ?? 0) + 1;
    const validator = mode === "main" ? def.validateUpdate : mode === "status" ? def.validateStatusUpdate : undefined;
    const errs = validator?.(next, existing) ?? [];
    if (errs.length > 0) throw invalidError({ group: def.group, kind: def.kind }, name, errs);
    if (mode === "main") def.admitUpdate?.(next, existing, this);
    if (this.shouldDeleteDuringUpdate(def, next, existing)) {
      if (!opts.dryRun) this.erase(def, next);
      return { code: 200, body: next };
    }
    if (deepEqual(withoutResourceVersion(next), withoutResourceVersion(existing))) return { code: 200, body: existing };
    if (opts.dryRun) return { code: 200, body: canonicalOrder(next, def.custom) };
    return { code: 200, body: this.write(def, next, existing) };
  }

  private shouldDeleteDuringUpdate(def: ResourceDef, next: Obj, existing: Obj): boolean {
    const meta = metaOf(next);
    const oldMeta = metaOf(existing);
    if (Array.isArray(meta.finalizers) && meta.finalizers.length > 0) return false;
    if (!oldMeta.deletionTimestamp) return false;
    const grace = oldMeta.deletionGracePeriodSeconds;
    if (grace !== undefined && grace !== null && grace !== 0) return false;
    if (def.finalize) {
      const finalizers = objectAt(next, "spec").finalizers;
      return !Array.isArray(finalizers) || finalizers.length === 0;
    }
    return true;
  }

  // ---- patch -----------------------------------------------------------------------------------

  /** patch is PATCH on the object or its /status. */
  patch(def: ResourceDef, namespace: string, name: string, body: string, contentType: string, mode: UpdateMode, opts: WriteOptions = {}): Result {
    const existing = this.get(def, namespace, name);
    const patched = applyPatch(existing, body, contentType, !def.custom);
    const obj = decodePatched(def, patched);
    return this.updateDecoded(def, namespace, name, obj, mode, opts);
  }

  /** internalUpdate rewrites a stored object (controllers, helpers): main endpoint, current resourceVersion. */
  internalUpdate(def: ResourceDef, obj: Obj, mutate: (o: Obj) => void): Result {
    const meta = metaOf(obj);
    const next = clone(obj);
    mutate(next);
    metaOf(next).resourceVersion = meta.resourceVersion;
    return this.updateDecoded(def, str(meta.namespace), str(meta.name), next, "main", {});
  }
}
