// The scale subresource (autoscaling/v1 Scale, for apps/v1 and custom statefulsets) and
// pods/binding (how a scheduler, or a test playing one, puts a pod on a node).

import { badRequest, conflict, invalid, invalidError, notSupported, required, successStatus, type FieldError } from "./errors.ts";
import { clone, getIn, isObject, metaOf, objectAt, setIn, str, type Obj } from "./json.ts";
import { bindPod } from "./kinds/pods.ts";
import type { ResourceDef } from "./kinds/types.ts";
import { applyPatch } from "./patch.ts";
import { groupResource, type Engine, type Result, type WriteOptions } from "./rest.ts";
import { formatLabelSelector } from "./selectors.ts";
import { subdomainName, validateObjectMeta } from "./validation.ts";

/** toScale renders an object's scale subresource. */
export function toScale(def: ResourceDef, obj: Obj): Obj {
  const paths = def.scale!;
  const meta = metaOf(obj);
  const replicas = getIn(obj, paths.specReplicas);
  const spec: Obj = {};
  if (typeof replicas === "number" && replicas !== 0) spec.replicas = replicas;
  const statusReplicas = getIn(obj, paths.statusReplicas);
  const status: Obj = { replicas: typeof statusReplicas === "number" ? statusReplicas : 0 };
  let selector: string | undefined;
  if (paths.selectorFromSpec) selector = formatLabelSelector(objectAt(obj, "spec").selector);
  else if (paths.labelSelector) selector = str(getIn(obj, paths.labelSelector));
  if (selector) status.selector = selector;
  const scaleMeta: Obj = { name: meta.name, namespace: meta.namespace, uid: meta.uid, resourceVersion: meta.resourceVersion, creationTimestamp: meta.creationTimestamp };
  if (!def.namespaced) delete scaleMeta.namespace;
  return { kind: "Scale", apiVersion: "autoscaling/v1", metadata: scaleMeta, spec, status };
}

/** updateScale is PUT .../scale. */
export function updateScale(engine: Engine, def: ResourceDef, namespace: string, name: string, body: unknown, opts: WriteOptions = {}): Result {
  if (!isObject(body)) throw badRequest("the object provided is unrecognized (must be of type Scale)");
  const meta = isObject(body.metadata) ? body.metadata : {};
  if (str(meta.name) && meta.name !== name) throw badRequest(`the name of the object (${str(meta.name)}) does not match the name on the URL (${name})`);
  const spec = isObject(body.spec) ? body.spec : {};
  const replicas = spec.replicas ?? 0;
  if (!def.custom) {
    // ValidateScale: the Scale's own metadata (namespace included: it is not taken from the URL) and replicas.
    const errs = validateObjectMeta({ ...meta, name: str(meta.name) || name }, def.namespaced, subdomainName, true);
    if (typeof replicas !== "number" || replicas < 0) errs.push(invalid("spec.replicas", replicas, "must be greater than or equal to 0"));
    if (errs.length > 0) throw invalidError({ group: "autoscaling", kind: "Scale" }, name, errs);
  }
  const existing = engine.get(def, namespace, name);
  if (str(meta.resourceVersion) && meta.resourceVersion !== metaOf(existing).resourceVersion) throw conflict(groupResource(def), name);
  const next = clone(existing);
  setIn(next, def.scale!.specReplicas, replicas);
  const result = engine.updateDecoded(def, namespace, name, next, "main", opts);
  return { code: 200, body: toScale(def, result.body as Obj) };
}

/** patchScale is PATCH .../scale: the patch applies to the Scale, then as a PUT. */
export function patchScale(engine: Engine, def: ResourceDef, namespace: string, name: string, body: string, contentType: string, opts: WriteOptions = {}): Result {
  const scale = toScale(def, engine.get(def, namespace, name));
  return updateScale(engine, def, namespace, name, applyPatch(scale, body, contentType, true), opts);
}

/** bind is POST pods/NAME/binding. */
export function bind(engine: Engine, def: ResourceDef, namespace: string, name: string, body: unknown, opts: WriteOptions = {}): Result {
  if (!isObject(body)) throw badRequest("the object provided is unrecognized (must be of type Binding)");
  const bmeta = isObject(body.metadata) ? body.metadata : {};
  if (str(bmeta.name) !== name) throw badRequest("name in URL does not match name in Binding object");
  const target = isObject(body.target) ? body.target : {};
  const errs: FieldError[] = [];
  if (str(target.kind) && target.kind !== "Node") errs.push(notSupported("target.kind", target.kind, ["Node", "<empty>"]));
  if (!str(target.name)) errs.push(required("target.name"));
  if (errs.length > 0) throw invalidError({ group: "", kind: "Binding" }, name, errs);
  const pod = engine.get(def, namespace, name);
  const bindConflict = (msg: string) => conflict({ group: "", resource: "pods/binding" }, name, msg);
  if (metaOf(pod).deletionTimestamp) throw bindConflict(`pod ${name} is being deleted, cannot be assigned to a host`);
  const nodeName = str(objectAt(pod, "spec").nodeName);
  if (nodeName) throw bindConflict(`pod ${name} is already assigned to node "${nodeName}"`);
  const next = clone(pod);
  bindPod(next, str(target.name), engine.now());
  if (isObject(bmeta.annotations)) {
    const annotations = objectAt(metaOf(next), "annotations");
    for (const [k, v] of Object.entries(bmeta.annotations)) annotations[k] = v;
  }
  if (!opts.dryRun) engine.write(def, next, pod);
  return { code: 201, body: successStatus({}, 201) };
}
