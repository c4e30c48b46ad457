// DELETE as the generic store does it (Store.Delete, rest.BeforeDelete): preconditions, graceful
// deletion (pods), finalizers (deletionTimestamp instead of removal), the orphan and
// foregroundDeletion finalizers that garbage collection acts on, and namespaces' own rules.

import {
  badRequest,
  conflict,
  details,
  invalidError,
  notSupported,
  successStatus,
  type FieldError,
  invalid,
} from "./errors.ts";
import { clone, finalizersOf, isObject, metaOf, objectAt, setFinalizers, str, type Obj } from "./json.ts";
import type { ResourceDef } from "./kinds/types.ts";
import { groupResource, type Engine, type Result, type WriteOptions } from "./rest.ts";
import { formatTime } from "./time.ts";

export type PropagationPolicy = "Orphan" | "Background" | "Foreground";

/** DeleteOptions is metav1.DeleteOptions (from the body or the query). */
export interface DeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: PropagationPolicy;
  orphanDependents?: boolean;
  dryRun?: string[];
}

/** parseDeleteOptions reads DeleteOptions from a request body or, if empty, from the query. */
export function parseDeleteOptions(bodyText: string, query: URLSearchParams): DeleteOptions {
  if (bodyText.trim() !== "") {
    let body: unknown;
    try {
      body = JSON.parse(bodyText);
    } catch (e) {
      throw badRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
    }
    if (!isObject(body)) throw badRequest("json: cannot unmarshal array into Go value of type v1.DeleteOptions");
    return body as DeleteOptions;
  }
  const opts: DeleteOptions = {};
  const grace = query.get("gracePeriodSeconds");
  if (grace !== null) {
    if (!/^-?\d+$/.test(grace)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(grace)}: invalid syntax`);
    opts.gracePeriodSeconds = Number(grace);
  }
  const policy = query.get("propagationPolicy");
  if (policy !== null) opts.propagationPolicy = policy as PropagationPolicy;
  const orphan = query.get("orphanDependents");
  if (orphan !== null) opts.orphanDependents = orphan === "true";
  const dryRun = query.getAll("dryRun");
  if (dryRun.length > 0) opts.dryRun = dryRun;
  return opts;
}

function validateDeleteOptions(o: DeleteOptions): void {
  const errs: FieldError[] = [];
  if (o.orphanDependents !== undefined && o.propagationPolicy !== undefined) {
    errs.push(invalid("propagationPolicy", o.propagationPolicy, "orphanDependents and deletionPropagation cannot be both set"));
  }
  if (o.propagationPolicy !== undefined && !["Orphan", "Background", "Foreground"].includes(o.propagationPolicy)) {
    errs.push(notSupported("propagationPolicy", o.propagationPolicy, ["Foreground", "Background", "Orphan", "nil"]));
  }
  const dryRun = o.dryRun ?? [];
  if (dryRun.length > 1 || (dryRun.length === 1 && dryRun[0] !== "All")) errs.push(notSupported("dryRun", dryRun, ["All"]));
  if (errs.length > 0) throw invalidError({ group: "meta.k8s.io", kind: "DeleteOptions" }, "", errs);
}

/** finalizeDelete is the answer for an object that is gone (or pending): the object, or a Status. */
function finalizeDelete(def: ResourceDef, obj: Obj): Result {
  if (def.returnDeletedObject) return { code: 200, body: obj };
  const meta = metaOf(obj);
  return { code: 200, body: successStatus(details(str(meta.name), def.group, def.resource, { uid: str(meta.uid) })) };
}

function checkPreconditions(def: ResourceDef, obj: Obj, o: DeleteOptions): void {
  const meta = metaOf(obj);
  const gr = { group: def.group, resource: def.kind };
  const p = o.preconditions;
  if (!p) return;
  if (p.uid !== undefined && p.uid !== null && p.uid !== meta.uid) {
    throw conflict(gr, str(meta.name), `the UID in the precondition (${p.uid}) does not match the UID in record (${str(meta.uid)}). The object might have been deleted and then recreated`);
  }
  if (p.resourceVersion !== undefined && p.resourceVersion !== null && p.resourceVersion !== meta.resourceVersion) {
    throw conflict(
      gr,
      str(meta.name),
      `the ResourceVersion in the precondition (${p.resourceVersion}) does not match the ResourceVersion in record (${str(meta.resourceVersion)}). The object might have been modified`,
    );
  }
}

/** gcFinalizers computes the finalizer list the delete options ask for (orphan / foregroundDeletion). */
function gcFinalizers(finalizers: string[], o: DeleteOptions): string[] {
  let orphan: boolean;
  let foreground: boolean;
  if (o.orphanDependents !== undefined) {
    orphan = o.orphanDependents;
    foreground = false;
  } else if (o.propagationPolicy !== undefined) {
    orphan = o.propagationPolicy === "Orphan";
    foreground = o.propagationPolicy === "Foreground";
  } else {
    const firstGc = finalizers.find((f) => f === "orphan" || f === "foregroundDeletion");
    orphan = firstGc === "orphan";
    foreground = firstGc === "foregroundDeletion";
  }
  const out = finalizers.filter((f) => f !== "orphan" && f !== "foregroundDeletion");
  if (orphan) out.push("orphan");
  if (foreground) out.push("foregroundDeletion");
  return out;
}

const sameSet = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x) => b.includes(x));

/** deleteObject is DELETE on one object. */
export function deleteObject(engine: Engine, def: ResourceDef, namespace: string, name: string, o: DeleteOptions, wo: WriteOptions = {}): Result {
  validateDeleteOptions(o);
  const dryRun = wo.dryRun === true || (o.dryRun ?? []).includes("All");
  const existing = engine.get(def, namespace, name);
  if (def.finalize) return deleteNamespace(engine, def, existing, o, dryRun);
  checkPreconditions(def, existing, o);
  const obj = clone(existing);
  const meta = metaOf(obj);
  const now = engine.now();
  // 1.20 takes a negative grace period as is (later versions read it as 1): the object goes at once.
  const grace = o.gracePeriodSeconds;
  let graceful = false;
  let lastGrace = 0;
  if (def.gracePeriod) {
    const current = meta.deletionGracePeriodSeconds;
    if (meta.deletionTimestamp) {
      if (typeof current === "number" && current !== 0) {
        if (grace === undefined || grace >= current) return finalizeDelete(def, existing);
        const ts = Date.parse(str(meta.deletionTimestamp)) - current * 1000 + grace * 1000;
        meta.deletionTimestamp = formatTime(new Date(ts));
        meta.deletionGracePeriodSeconds = grace;
        graceful = true;
        lastGrace = grace;
      }
    } else {
      const period = def.gracePeriod(obj, grace);
      meta.deletionTimestamp = formatTime(new Date(now.getTime() + period * 1000));
      meta.deletionGracePeriodSeconds = period;
      if (typeof meta.generation === "number" && meta.generation > 0) meta.generation += 1;
      graceful = true;
      lastGrace = period;
    }
  }
  const finalizers = finalizersOf(obj);
  const wanted = gcFinalizers(finalizers, o);
  const updateFinalizers = !sameSet(finalizers, wanted);
  let deleteNow = true;
  let out = existing;
  if (graceful || finalizers.length > 0 || updateFinalizers) {
    if (updateFinalizers) setFinalizers(obj, wanted);
    const pending = wanted.length > 0;
    if (!graceful && pending) {
      if (!meta.deletionTimestamp && typeof meta.generation === "number" && meta.generation > 0) meta.generation += 1;
      if (!meta.deletionTimestamp || Date.parse(str(meta.deletionTimestamp)) > now.getTime()) meta.deletionTimestamp = formatTime(now);
      meta.deletionGracePeriodSeconds = 0;
      deleteNow = false;
    } else if (graceful) {
      deleteNow = !pending && lastGrace <= 0;
    }
    if (graceful || !deleteNow) {
      out = obj;
      if (!dryRun && JSON.stringify(obj) !== JSON.stringify(existing)) out = engine.write(def, obj, existing);
    }
  }
  if (!deleteNow) return { code: 200, body: out };
  if (!dryRun) engine.erase(def, out);
  return finalizeDelete(def, out);
}

/** deleteNamespace is the namespace REST's Delete: first call marks it Terminating. */
function deleteNamespace(engine: Engine, def: ResourceDef, existing: Obj, o: DeleteOptions, dryRun: boolean): Result {
  const meta = metaOf(existing);
  const name = str(meta.name);
  const gr = groupResource(def);
  const p = o.preconditions ?? {};
  if (p.uid !== undefined && p.uid !== meta.uid) {
    throw conflict(gr, name, `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${str(meta.uid)}`);
  }
  if (p.resourceVersion !== undefined && p.resourceVersion !== meta.resourceVersion) {
    throw conflict(gr, name, `Precondition failed: ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in object meta: ${str(meta.resourceVersion)}`);
  }
  if (!meta.deletionTimestamp) {
    const next = clone(existing);
    metaOf(next).deletionTimestamp = formatTime(engine.now());
    objectAt(next, "status").phase = "Terminating";
    setFinalizers(next, gcFinalizers(finalizersOf(next), o));
    if (dryRun) return { code: 200, body: next };
    return { code: 200, body: engine.write(def, next, existing) };
  }
  const specFinalizers = objectAt(existing, "spec").finalizers;
  const metaFinalizers = meta.finalizers;
  if ((Array.isArray(specFinalizers) && specFinalizers.length > 0) || (Array.isArray(metaFinalizers) && metaFinalizers.length > 0)) {
    return { code: 200, body: existing };
  }
  if (!dryRun) engine.erase(def, existing);
  return finalizeDelete(def, existing);
}
