// Maps a parsed request (route, method, query, body) to the REST verbs, and serves the
// non-resource paths: discovery, /version, /readyz.

import { parseBody } from "./decode.ts";
import { deleteObject, parseDeleteOptions } from "./deletion.ts";
import { invalidError, isApiError, methodNotAllowed, notSupported, resourceNotFound } from "./errors.ts";
import { str, type Obj } from "./json.ts";
import { apiVersionOf, type ResourceDef } from "./kinds/types.ts";
import { listObjects } from "./listing.ts";
import type { Engine, Result, UpdateMode, WriteOptions } from "./rest.ts";
import type { Route } from "./routing.ts";
import { bind, patchScale, toScale, updateScale } from "./subresources.ts";
import { evict, reviewAccess } from "./policy.ts";
import { subjectAccessReviews } from "./kinds/policy.ts";

/** HttpResult is a response before serialization: JSON unless text is set. */
export interface HttpResult extends Result {
  text?: boolean;
  headers?: Record<string, string>;
}

export interface ParsedRequest {
  method: string;
  route: Route;
  query: URLSearchParams;
  body: string;
  contentType: string;
}

function dryRunOf(query: URLSearchParams, optionsKind: string): WriteOptions {
  const values = query.getAll("dryRun");
  if (values.length > 1 || (values.length === 1 && values[0] !== "All")) {
    throw invalidError({ group: "meta.k8s.io", kind: optionsKind }, "", [notSupported("dryRun", values, ["All"])]);
  }
  return { dryRun: values.length > 0 };
}

function discovery(engine: Engine, route: Extract<Route, { type: "discovery" }>): HttpResult {
  const defs = engine.registry.all;
  if (route.group === undefined) {
    return { code: 200, body: { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "127.0.0.1:6443" }] } };
  }
  const groupInfo = (g: string): Obj => {
    const versions = [...new Set(defs.filter((d) => d.group === g).map((d) => d.version))].map((v) => ({ groupVersion: `${g}/${v}`, version: v }));
    return { name: g, versions, preferredVersion: versions[0] };
  };
  if (route.version === undefined) {
    if (route.group === "") {
      const groups = [...new Set(defs.map((d) => d.group).filter((g) => g !== ""))];
      return { code: 200, body: { kind: "APIGroupList", apiVersion: "v1", groups: groups.map(groupInfo) } };
    }
    if (!defs.some((d) => d.group === route.group)) return { code: 404, body: "404 page not found\n", text: true };
    return { code: 200, body: { kind: "APIGroup", apiVersion: "v1", ...groupInfo(route.group) } };
  }
  const served = defs.filter((d) => d.group === route.group && d.version === route.version);
  if (served.length === 0) return { code: 404, body: "404 page not found\n", text: true };
  const resources: Obj[] = [];
  for (const d of served) {
    const verbs = ["create", "delete", "get", "list", "patch", "update"];
    if (!d.noDeleteCollection) verbs.splice(1, 0, "deletecollection");
    resources.push({ name: d.resource, singularName: "", namespaced: d.namespaced, kind: d.kind, verbs });
    if (d.status) resources.push({ name: `${d.resource}/status`, singularName: "", namespaced: d.namespaced, kind: d.kind, verbs: ["get", "patch", "update"] });
    if (d.scale) resources.push({ name: `${d.resource}/scale`, singularName: "", namespaced: d.namespaced, group: "autoscaling", version: "v1", kind: "Scale", verbs: ["get", "patch", "update"] });
    if (d.binding) resources.push({ name: `${d.resource}/binding`, singularName: "", namespaced: true, kind: "Binding", verbs: ["create"] });
    if (d.binding) resources.push({ name: `${d.resource}/eviction`, singularName: "", namespaced: true, group: "policy", version: "v1beta1", kind: "Eviction", verbs: ["create"] });
    if (d.finalize) resources.push({ name: `${d.resource}/finalize`, singularName: "", namespaced: false, kind: d.kind, verbs: ["update"] });
  }
  return { code: 200, body: { kind: "APIResourceList", apiVersion: "v1", groupVersion: apiVersionOf(served[0]!), resources } };
}

function subresourceServed(def: ResourceDef, sub: string): boolean {
  // pods/binding and pods/eviction: the pods resource is the one with a binding.
  return (sub === "status" && def.status) || (sub === "scale" && !!def.scale) || ((sub === "binding" || sub === "eviction") && !!def.binding) || (sub === "finalize" && !!def.finalize);
}

/** handle serves one request; ApiErrors propagate to the caller, which writes them. */
export function handle(engine: Engine, req: ParsedRequest): HttpResult {
  const { route, method, query } = req;
  switch (route.type) {
    case "health":
      return { code: 200, body: "ok", text: true };
    case "version":
      return {
        code: 200,
        body: { major: "1", minor: "20", gitVersion: "v1.20.2", gitTreeState: "clean", goVersion: "go1.19", compiler: "gc", platform: "linux/amd64", buildDate: "2021-01-13T13:20:00Z", gitCommit: "faecb196815e248d3ecfb03c680a4507229c2a56" },
      };
    case "discovery":
      return discovery(engine, route);
    case "not-found":
      return { code: 404, body: "404 page not found\n", text: true };
    case "unknown-resource":
      if (!engine.registry.all.some((d) => d.group === route.group && d.version === route.version)) return { code: 404, body: "404 page not found\n", text: true };
      throw resourceNotFound();
    case "resource":
      return handleResource(engine, route, method, query, req);
  }
}

function handleResource(engine: Engine, route: Extract<Route, { type: "resource" }>, method: string, query: URLSearchParams, req: ParsedRequest): HttpResult {
  const { def, name, subresource } = route;
  const namespace = route.namespace ?? "";
  if (def.namespaced && route.namespace === undefined && name !== undefined) throw resourceNotFound();
  if (!def.namespaced && route.namespace !== undefined) throw resourceNotFound();
  if (subresource !== undefined && !subresourceServed(def, subresource)) throw resourceNotFound();
  if (def === subjectAccessReviews) {
    // Create only, nothing stored: the authorizer answers.
    if (name !== undefined || method !== "POST") throw methodNotAllowed();
    return reviewAccess(parseBody(def, req.body), (a) => engine.authorize(a));
  }
  if (name === undefined) {
    switch (method) {
      case "GET":
        return { code: 200, body: listObjects(engine.store, def, def.namespaced ? route.namespace : undefined, query) };
      case "POST":
        if (def.namespaced && route.namespace === undefined) throw methodNotAllowed();
        return engine.create(def, namespace, parseBody(def, req.body), dryRunOf(query, "CreateOptions"));
      case "DELETE":
        if (def.noDeleteCollection || (def.namespaced && route.namespace === undefined)) throw methodNotAllowed();
        return deleteCollection(engine, def, namespace, req);
      default:
        throw methodNotAllowed();
    }
  }
  if (subresource === "scale") {
    if (method === "GET") return { code: 200, body: toScale(def, engine.get(def, namespace, name)) };
    if (method === "PUT") return updateScale(engine, def, namespace, name, parseBody(def, req.body), dryRunOf(query, "UpdateOptions"));
    if (method === "PATCH") return patchScale(engine, def, namespace, name, req.body, req.contentType, dryRunOf(query, "PatchOptions"));
    throw methodNotAllowed();
  }
  if (subresource === "eviction") {
    if (method !== "POST") throw methodNotAllowed();
    return evict(engine, def, namespace, name, parseBody(def, req.body), dryRunOf(query, "CreateOptions"));
  }
  if (subresource === "binding") {
    if (method !== "POST") throw methodNotAllowed();
    return bind(engine, def, namespace, name, parseBody(def, req.body), dryRunOf(query, "CreateOptions"));
  }
  const mode: UpdateMode = subresource === "status" ? "status" : subresource === "finalize" ? "finalize" : "main";
  switch (method) {
    case "GET":
      if (mode === "finalize") throw methodNotAllowed();
      return { code: 200, body: engine.get(def, namespace, name) };
    case "PUT":
      return engine.update(def, namespace, name, parseBody(def, req.body), mode, dryRunOf(query, "UpdateOptions"));
    case "PATCH":
      if (mode === "finalize") throw methodNotAllowed();
      return engine.patch(def, namespace, name, req.body, req.contentType, mode, dryRunOf(query, "PatchOptions"));
    case "DELETE":
      if (mode !== "main") throw methodNotAllowed();
      return deleteObject(engine, def, namespace, name, parseDeleteOptions(req.body, query), dryRunOf(query, "DeleteOptions"));
    default:
      throw methodNotAllowed();
  }
}

function deleteCollection(engine: Engine, def: ResourceDef, namespace: string, req: ParsedRequest): HttpResult {
  const options = parseDeleteOptions(req.body, req.query);
  const wo = dryRunOf(req.query, "DeleteOptions");
  const list = listObjects(engine.store, def, namespace, req.query);
  const items = list.items as Obj[];
  for (const item of items) {
    try {
      deleteObject(engine, def, namespace, str((item.metadata as Obj).name), options, wo);
    } catch (e) {
      if (!isApiError(e) || e.code !== 404) throw e;
    }
  }
  return { code: 200, body: list };
}
