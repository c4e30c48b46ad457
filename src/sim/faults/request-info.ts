// What a fault rule or a request hook sees of a request: its method, path and the parts of the
// Kubernetes API it names (verb, group, resource, subresource, namespace, name), and its body.

import { parseRoute, verbOf, type Route } from "../fake-apiserver/routing.ts";
import type { Registry } from "../fake-apiserver/kinds/index.ts";

/** RequestInfo describes a request before it is handled (for hooks and fault rules). */
export interface RequestInfo {
  method: string;
  path: string;
  query: URLSearchParams;
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** the request body as text ('' when none) */
  body: string;
}

/** requestInfoOf returns the RequestInfo of a parsed route (fields of non-resource paths are ''). */
export function requestInfoOf(method: string, url: URL, route: Route, body: string): RequestInfo {
  const isResource = route.type === "resource" || route.type === "unknown-resource";
  const group = route.type === "resource" ? route.def.group : route.type === "unknown-resource" ? route.group : "";
  const resource = route.type === "resource" ? route.def.resource : route.type === "unknown-resource" ? route.resource : "";
  return {
    method,
    path: url.pathname,
    query: url.searchParams,
    verb: verbOf(method, route, url.searchParams),
    group,
    resource,
    subresource: isResource ? (route.subresource ?? "") : "",
    namespace: isResource ? (route.namespace ?? "") : "",
    name: isResource ? (route.name ?? "") : "",
    body,
  };
}

/**
 * describeRequest returns the RequestInfo of a request to any apiserver, read from its URL the way
 * the apiserver's RequestInfoFactory reads it; with a registry, resources it serves are resolved
 * through it (the fake's own routes).
 */
export function describeRequest(method: string, url: URL, body: string, registry?: Pick<Registry, "lookup">): RequestInfo {
  return requestInfoOf(method, url, parseRoute(url.pathname, registry), body);
}
