// URL shapes of the Kubernetes API, parsed the way the apiserver's RequestInfoFactory does:
//   /api/v1/namespaces/{ns}/{resource}/{name}/{subresource}
//   /apis/{group}/{version}/{resource}/{name}            (cluster-scoped, or all namespaces)
// plus the non-resource paths (/api, /apis, /version, /readyz ...).

import type { Registry } from "./kinds/index.ts";
import type { ResourceDef } from "./kinds/types.ts";

/** Route is what a request path names. */
export type Route =
  | { type: "resource"; def: ResourceDef; namespace?: string; name?: string; subresource?: string }
  | { type: "unknown-resource"; group: string; version: string; resource: string; namespace?: string; name?: string; subresource?: string }
  | { type: "discovery"; group?: string; version?: string }
  | { type: "health" }
  | { type: "version" }
  | { type: "not-found" };

const NAMESPACE_SUBRESOURCES = new Set(["status", "finalize"]);

/**
 * parseRoute maps a URL path to a Route. Without a registry (a fault layer in front of any
 * apiserver) every resource path is an "unknown-resource" route, with its parts named all the same.
 */
export function parseRoute(pathname: string, registry?: Pick<Registry, "lookup">): Route {
  let segs: string[];
  try {
    segs = pathname.split("/").filter((s) => s !== "").map(decodeURIComponent);
  } catch {
    return { type: "not-found" };
  }
  const [root] = segs;
  if (segs.length === 1 && (root === "readyz" || root === "livez" || root === "healthz")) return { type: "health" };
  if (segs.length === 1 && root === "version") return { type: "version" };
  let group: string;
  let version: string;
  let rest: string[];
  if (root === "api") {
    if (segs.length === 1) return { type: "discovery" };
    group = "";
    version = segs[1]!;
    rest = segs.slice(2);
  } else if (root === "apis") {
    if (segs.length === 1) return { type: "discovery", group: "" };
    if (segs.length === 2) return { type: "discovery", group: segs[1]! };
    group = segs[1]!;
    version = segs[2]!;
    rest = segs.slice(3);
  } else {
    return { type: "not-found" };
  }
  if (rest.length === 0) return { type: "discovery", group, version };
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  if (rest.length > 3) return { type: "not-found" };
  const [resource, name, subresource] = rest as [string, string | undefined, string | undefined];
  const def = registry?.lookup(group, version, resource);
  if (!def) return { type: "unknown-resource", group, version, resource, namespace, name, subresource };
  return { type: "resource", def, namespace, name, subresource };
}

/** verbOf gives the RBAC verb of a request: get, list, watch, create, update, patch, delete, deletecollection. */
export function verbOf(method: string, route: Route, query: URLSearchParams): string {
  const named = (route.type === "resource" || route.type === "unknown-resource") && route.name !== undefined;
  switch (method) {
    case "GET":
      if (named) return "get";
      if (route.type !== "resource" && route.type !== "unknown-resource") return "get";
      return query.get("watch") === "true" || query.get("watch") === "1" ? "watch" : "list";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return named ? "delete" : "deletecollection";
    default:
      return method.toLowerCase();
  }
}
