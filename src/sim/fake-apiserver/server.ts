// createFakeApiServer: an in-process Kubernetes apiserver behind a fetch function, with test
// helpers (direct reads and writes that bypass faults and the log), a request log, hooks and
// fault injection. Web APIs only, so it runs in Node and in workerd.

import { Controllers } from "./controllers.ts";
import { decode } from "./decode.ts";
import { internalError, isApiError, type ApiError, type Status } from "./errors.ts";
import { faultFetch } from "../faults/fault-fetch.ts";
import { Faults } from "../faults/faults.ts";
import { requestInfoOf } from "../faults/request-info.ts";
import { handle, type HttpResult } from "./handlers.ts";
import { metaOf, objectAt, str, type Obj } from "./json.ts";
import { namespaces as namespacesDef } from "./kinds/core.ts";
import type { CustomResourceSpec } from "./kinds/custom.ts";
import { Registry } from "./kinds/index.ts";
import type { ResourceDef } from "./kinds/types.ts";
import { listObjects } from "./listing.ts";
import { RequestLog, type RequestInfo } from "./log.ts";
import { mulberry32, uuidFrom } from "./random.ts";
import { Engine, type Authorizer, type Change } from "./rest.ts";
import { parseRoute, type Route } from "./routing.ts";
import { Store } from "./store.ts";
import { WatchHub } from "./watch.ts";
import { formatTime } from "./time.ts";

export interface FakeApiServerOptions {
  /** the clock (creationTimestamp, deletionTimestamp, ...); default: real time */
  now?: () => Date;
  /** seed for uids, generated names and service IPs; default: crypto.randomUUID / Math.random */
  seed?: number;
  /** run garbage collection, namespace finalization and pvc-protection after every request (default true); else call gc() */
  autoGc?: boolean;
  /** create a `default` ServiceAccount with a token Secret in every namespace, as kube-controller-manager does (default true) */
  serviceAccounts?: boolean;
  /** CRDs to serve (default: Ordinal's apps.ordinal.dev statefulsets and imagelists) */
  customResources?: readonly CustomResourceSpec[];
  /** namespaces that exist at start (default: default, kube-system, kube-public, kube-node-lease) */
  namespaces?: readonly string[];
  /** how many request records the log keeps (default 10000; counts() totals are kept regardless) */
  logLimit?: number;
  /** how many changes a watch can resume from (default 10000; older: 410 Expired) */
  watchHistory?: number;
  /** answers SubjectAccessReviews (default: everything allowed, as the fake has no RBAC) */
  authorize?: Authorizer;
}

interface ListHelperOptions {
  labelSelector?: string;
  fieldSelector?: string;
}

export interface FakeApiServer {
  /** fetch is a drop-in for the global fetch against any base URL (`https://fake.local/api/v1/...`). */
  fetch(input: Request | string | URL, init?: RequestInit): Promise<Response>;
  /** faults injects errors: `faults.add({ verb: 'update', resource: 'pods', fault: 'conflict', times: 1 })`. */
  readonly faults: Faults;
  /** log records every request that came through fetch. */
  readonly log: RequestLog;
  /** onRequest calls hook before each request is handled (a throw rejects the fetch); returns an unsubscribe function. */
  onRequest(hook: (req: RequestInfo) => void): () => void;
  /** get reads an object by API path (`/api/v1/namespaces/default/pods/web-0`), or undefined. */
  get<T = Obj>(path: string): T | undefined;
  /** list reads the objects of a collection path, with kind and apiVersion on every item. */
  list<T = Obj>(path: string, opts?: ListHelperOptions): T[];
  /** seed creates an object with the API's rules (validation, defaults, admission), bypassing faults, hooks and the log. */
  seed<T = Obj>(obj: object): T;
  /** put stores an object as given (normalized, no validation), replacing any object of that name. */
  put<T = Obj>(obj: object): T;
  /** remove deletes an object at once (no grace, no finalizers); true if it existed. */
  remove(path: string): boolean;
  /** gc runs the garbage collector and the other controllers to completion. */
  gc(): void;
  /** resourceVersion is the current global resourceVersion. */
  resourceVersion(): string;
  readonly registry: Registry;
}

const DEFAULT_NAMESPACES = ["default", "kube-system", "kube-public", "kube-node-lease"];

function toResponse(r: HttpResult): Response {
  const headers: Record<string, string> = { "content-type": r.text ? "text/plain; charset=utf-8" : "application/json", ...r.headers };
  return new Response(r.text ? String(r.body) : JSON.stringify(r.body), { status: r.code, headers });
}

function errorResult(e: unknown): HttpResult {
  const err: ApiError = isApiError(e) ? e : internalError(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
  return { code: err.code, body: err.status satisfies Status, headers: err.headers };
}

/** createFakeApiServer starts an empty cluster (namespaces only) and returns its fetch and helpers. */
export function createFakeApiServer(options: FakeApiServerOptions = {}): FakeApiServer {
  const now = options.now ?? (() => new Date());
  const rng = options.seed !== undefined ? mulberry32(options.seed) : Math.random;
  const uid = options.seed !== undefined ? () => uuidFrom(rng) : () => crypto.randomUUID();
  const autoGc = options.autoGc ?? true;
  const registry = new Registry(options.customResources);
  const store = new Store();
  const observers: ((c: Change) => void)[] = [];
  const engine = new Engine(registry, store, { now, random: rng, uid, onChange: (c) => observers.forEach((o) => o(c)), authorize: options.authorize });
  const ctl = new Controllers(engine, { serviceAccounts: options.serviceAccounts ?? true });
  observers.push((c) => ctl.observe(c));
  const hub = new WatchHub(store, options.watchHistory);
  observers.push((c) => hub.record(c));
  const faults = new Faults();
  const log = new RequestLog(options.logLimit ?? 10_000);
  const hooks = new Set<(req: RequestInfo) => void>();

  const settle = (): void => {
    ctl.settleServiceAccounts();
    if (autoGc) ctl.settle();
  };

  for (const name of options.namespaces ?? DEFAULT_NAMESPACES) engine.create(namespacesDef, "", { metadata: { name } });
  settle();

  function defFor(obj: Obj): ResourceDef {
    const def = registry.forKind(str(obj.apiVersion), str(obj.kind));
    if (!def) throw new Error(`fake apiserver: no resource serves ${str(obj.apiVersion)} ${str(obj.kind)}`);
    return def;
  }

  function resourceRoute(path: string): Extract<Route, { type: "resource" }> {
    const route = parseRoute(new URL(path, "https://fake.local").pathname, registry);
    if (route.type !== "resource") throw new Error(`fake apiserver: ${path} is not a resource path`);
    return route;
  }

  /**
   * serve answers a request as the apiserver would. Faults, hooks and the log are the layer around
   * it (faultFetch), which has read the request already and forwards its URL as text and its body
   * as a string.
   */
  async function serve(input: Request | string | URL, init?: RequestInit): Promise<Response> {
    const url = new URL(String(input));
    const method = (init?.method ?? "GET").toUpperCase();
    const body = typeof init?.body === "string" ? init.body : "";
    const contentType = new Headers(init?.headers).get("content-type") ?? "";
    if (init?.signal?.aborted) throw init.signal.reason;
    const route = parseRoute(url.pathname, registry);
    const watch = url.searchParams.get("watch");
    if (method === "GET" && route.type === "resource" && route.name === undefined && route.subresource === undefined && (watch === "true" || watch === "1")) {
      try {
        return hub.watch(route.def, route.def.namespaced ? route.namespace : undefined, url.searchParams, init?.signal ?? undefined);
      } catch (e) {
        return toResponse(errorResult(e));
      }
    }
    let result: HttpResult;
    try {
      result = handle(engine, { method, route, query: url.searchParams, body, contentType });
    } catch (e) {
      result = errorResult(e);
    }
    try {
      settle();
    } catch (e) {
      result = errorResult(e);
    }
    return toResponse(result);
  }

  const fetchImpl = faultFetch(serve, faults, {
    describe: (method, url, body) => requestInfoOf(method, url, parseRoute(url.pathname, registry), body),
    before: (info) => hooks.forEach((hook) => hook(info)),
    after: (info, outcome) => {
      log.add({
        method: info.method,
        path: info.path,
        query: info.query.toString() ? `?${info.query.toString()}` : "",
        verb: info.verb,
        group: info.group,
        resource: info.resource,
        subresource: info.subresource,
        namespace: info.namespace,
        name: info.name,
        code: outcome.delivered ? outcome.status : 0,
        ...(outcome.fault !== undefined ? { fault: typeof outcome.fault === "string" ? outcome.fault : String(outcome.fault.status) } : {}),
      });
    },
  });

  return {
    fetch: fetchImpl,
    faults,
    log,
    registry,
    onRequest(hook) {
      hooks.add(hook);
      return () => void hooks.delete(hook);
    },
    get<T>(path: string): T | undefined {
      const r = resourceRoute(path);
      if (r.name === undefined) throw new Error(`fake apiserver: get needs an object path, got ${path}`);
      const obj = store.get(r.def, r.def.namespaced ? (r.namespace ?? "") : "", r.name);
      return obj === undefined ? undefined : (structuredClone(obj) as T);
    },
    list<T>(path: string, opts: ListHelperOptions = {}): T[] {
      const r = resourceRoute(path);
      const query = new URLSearchParams();
      if (opts.labelSelector) query.set("labelSelector", opts.labelSelector);
      if (opts.fieldSelector) query.set("fieldSelector", opts.fieldSelector);
      const list = listObjects(store, r.def, r.def.namespaced ? r.namespace : undefined, query);
      const items = list.items as Obj[];
      return items.map((i) => structuredClone({ kind: r.def.kind, apiVersion: list.apiVersion, ...i }) as T);
    },
    seed<T>(obj: object): T {
      const o = obj as Obj;
      const def = defFor(o);
      const ns = str(objectAt(structuredClone(o), "metadata").namespace) || "default";
      const result = engine.create(def, def.namespaced ? ns : "", o);
      settle();
      return structuredClone(result.body) as T;
    },
    put<T>(obj: object): T {
      const o = obj as Obj;
      const def = defFor(o);
      const decoded = decode(def, o);
      const meta = metaOf(decoded);
      if (def.namespaced) meta.namespace = str(meta.namespace) || "default";
      else delete meta.namespace;
      const existing = store.get(def, str(meta.namespace), str(meta.name));
      if (!str(meta.name)) throw new Error("fake apiserver: put needs metadata.name");
      const oldMeta = existing ? metaOf(existing) : {};
      meta.uid = str(meta.uid) || str(oldMeta.uid) || uid();
      meta.creationTimestamp = meta.creationTimestamp ?? oldMeta.creationTimestamp ?? formatTime(now());
      if (def.generationFields && meta.generation === undefined) meta.generation = oldMeta.generation ?? 1;
      delete meta.resourceVersion;
      const stored = engine.write(def, decoded, existing);
      settle();
      return structuredClone(stored) as T;
    },
    remove(path: string): boolean {
      const r = resourceRoute(path);
      if (r.name === undefined) throw new Error(`fake apiserver: remove needs an object path, got ${path}`);
      const obj = store.get(r.def, r.def.namespaced ? (r.namespace ?? "") : "", r.name);
      if (!obj) return false;
      engine.erase(r.def, obj);
      settle();
      return true;
    },
    gc() {
      ctl.runAll();
    },
    resourceVersion() {
      return String(store.resourceVersion());
    },
  };
}

