import {
  ApiError,
  isDisruptionBudgetRefusal,
  type DeleteOptions,
  type KubeClient,
  type KubeObject,
  type ListOptions,
  type Named,
  type PatchType,
  type ServerVersion,
  type WatchClient,
  type WatchEvent,
  type WatchOptions,
  type WriteOptions,
} from "./client.ts";
import { readListBody } from "./list-stream.ts";
import { networkCause } from "./network-error.ts";
import { resourcePath, type ResourceRef } from "./resources.ts";

/**
 * createKubeClient returns a KubeClient over any fetch: global fetch (the default),
 * a Workers VPC binding's fetch, Node's undici transport (src/node/apiserver-fetch.ts), or the
 * in-process fake apiserver. Retries 429, 5xx and network errors with bounded backoff; hands
 * 4xx (409 Conflict included) and an eviction's PodDisruptionBudget 429 to the caller as ApiError.
 */

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface KubeClientOptions {
  /** e.g. https://127.0.0.1:6443 (no trailing slash needed). */
  baseUrl: string;
  /** Bearer token, or a function returning one (exec plugins, rotated tokens). */
  token?: string | (() => Promise<string | undefined>);
  fetch?: FetchLike;
  /** Attempts per request including the first (default 4). */
  maxAttempts?: number;
  /** First backoff in ms, doubled each retry, with jitter (default 200). */
  backoffMs?: number;
  /** Per-request timeout in ms (default 15000). */
  timeoutMs?: number;
  /** Sleep used between retries (tests pass a no-op). */
  sleep?: (ms: number) => Promise<void>;
  /** The jitter's source, in [0, 1) (default Math.random; tests pass a fixed one). */
  random?: () => number;
  /** Extra RequestInit merged into every request (Node: undici dispatcher). */
  init?: RequestInit & Record<string, unknown>;
  userAgent?: string;
}

const PATCH_CONTENT: Record<PatchType, string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
};

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The longest Retry-After a request waits out; an answer that asks for longer goes to the caller (its next pass comes later). */
export const MAX_RETRY_AFTER_MS = 5000;

/**
 * retryWait returns how long to wait before attempt `attempt + 1`, or undefined when the apiserver
 * asked for a longer wait than MAX_RETRY_AFTER_MS: never sooner than its Retry-After (seconds),
 * never sooner than the doubling backoff, and spread by up to half again (`r` in [0, 1)), so the
 * many requests one 429 burst refused do not all come back in the same instant.
 */
export function retryWait(attempt: number, backoffMs: number, retryAfter: string | null | undefined, r: number): number | undefined {
  const expo = backoffMs * 2 ** (attempt - 1);
  const asked = Number(retryAfter ?? NaN) * 1000;
  if (!(Number.isFinite(asked) && asked > 0)) return expo * (0.5 + r / 2);
  if (asked > MAX_RETRY_AFTER_MS) return undefined;
  return Math.max(asked, expo) * (1 + r / 2);
}

export function createKubeClient(opts: KubeClientOptions): KubeClient & WatchClient {
  const base = opts.baseUrl.replace(/\/+$/, "");
  const doFetch: FetchLike = opts.fetch ?? ((i, init) => fetch(i, init));
  const maxAttempts = Math.max(1, opts.maxAttempts ?? 4);
  const backoff = opts.backoffMs ?? 200;
  const sleep = opts.sleep ?? defaultSleep;
  const random = opts.random ?? Math.random;
  let count = 0;

  async function headersFor(): Promise<Record<string, string>> {
    const token = typeof opts.token === "function" ? await opts.token() : opts.token;
    const headers: Record<string, string> = { Accept: "application/json", "User-Agent": opts.userAgent ?? "ordinal" };
    if (token) headers.Authorization = `Bearer ${token}`;
    return headers;
  }

  async function request(method: string, path: string, body?: unknown, contentType = "application/json", guard?: () => void): Promise<Response> {
    const headers = await headersFor();
    if (body !== undefined) headers["Content-Type"] = contentType;
    let lastError: unknown;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      // A retry too must still be allowed (a fenced write whose Lease moved during the backoff stops here).
      guard?.();
      count++;
      let res: Response | undefined;
      try {
        res = await doFetch(base + path, {
          ...opts.init,
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(opts.timeoutMs ?? 15000),
        });
      } catch (e) {
        lastError = e;
      }
      if (res && res.status !== 429 && res.status < 500) return res;
      if (res) lastError = await toApiError(res);
      // An eviction a PodDisruptionBudget refuses (429) is an answer, not a throttle.
      if (attempt === maxAttempts || isDisruptionBudgetRefusal(lastError)) break;
      const wait = retryWait(attempt, backoff, res?.headers.get("Retry-After"), random());
      if (wait === undefined) break;
      await sleep(wait);
    }
    if (lastError instanceof ApiError) throw lastError;
    throw new ApiError(0, "NetworkError", `${method} ${base}${path}: ${networkCause(lastError)}`);
  }

  async function json<T>(res: Response): Promise<T> {
    if (!res.ok) throw await toApiError(res);
    return (await res.json()) as T;
  }

  const query = (o: Record<string, string | number | undefined>) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== "") q.set(k, String(v));
    const s = q.toString();
    return s ? `?${s}` : "";
  };
  /** listAtVersion follows a list's pages, decoding each as it streams; returns the items (kept and projected) and the resourceVersion it was read at (every page reads the first's). */
  async function listAtVersion<T extends object>(r: ResourceRef, ns: string | undefined, o?: ListOptions): Promise<{ items: T[]; resourceVersion: string }> {
    const items: T[] = [];
    let cont: string | undefined;
    let resourceVersion = "";
    do {
      const path = resourcePath(r, ns) + query({ labelSelector: o?.labelSelector, fieldSelector: o?.fieldSelector, limit: o?.limit ?? 500, continue: cont });
      const res = await request("GET", path);
      if (!res.ok) throw await toApiError(res);
      // Each item is decoded, filtered and projected as its bytes arrive (list-stream.ts): a page is never held whole.
      const page = (await readListBody(res.body, (item) => {
        if (o?.keep && !o.keep(item as KubeObject)) return;
        items.push((o?.project ? o.project(item as KubeObject) : item) as T);
      })) as { metadata?: { continue?: string; resourceVersion?: string } };
      cont = page.metadata?.continue || undefined;
      resourceVersion ||= page.metadata?.resourceVersion ?? "";
    } while (cont);
    return { items, resourceVersion };
  }
  const writeQuery = (w?: WriteOptions) => query({ dryRun: w?.dryRun ? "All" : undefined, fieldManager: w?.fieldManager });

  return {
    get requestCount() {
      return count;
    },
    async serverVersion() {
      return json<ServerVersion>(await request("GET", "/version"));
    },
    async get<T extends object>(r: ResourceRef, ns: string | undefined, name: string) {
      const res = await request("GET", resourcePath(r, ns, name));
      if (res.status === 404) return undefined;
      return json<T>(res);
    },
    async list<T extends object>(r: ResourceRef, ns: string | undefined, o?: ListOptions) {
      return (await listAtVersion<T>(r, ns, o)).items;
    },
    async listWithVersion(r: ResourceRef, ns: string | undefined, labelSelector: string | undefined, keep?: (item: KubeObject) => boolean) {
      return listAtVersion<KubeObject>(r, ns, { labelSelector, limit: 500, keep });
    },
    async create<T extends object>(r: ResourceRef, ns: string | undefined, obj: T, w?: WriteOptions) {
      return json<T>(await request("POST", resourcePath(r, ns) + writeQuery(w), obj, undefined, w?.guard));
    },
    async createSubresource<T extends object>(r: ResourceRef, ns: string | undefined, name: string, sub: string, obj: object, w?: WriteOptions) {
      return json<T>(await request("POST", resourcePath(r, ns, name, sub), obj, undefined, w?.guard));
    },
    async update<T extends Named>(r: ResourceRef, ns: string | undefined, obj: T, sub?: string, w?: WriteOptions) {
      return json<T>(await request("PUT", resourcePath(r, ns, obj.metadata?.name ?? "", sub) + writeQuery(w), obj, undefined, w?.guard));
    },
    async patch<T extends object>(r: ResourceRef, ns: string | undefined, name: string, patch: unknown, type: PatchType, sub?: string, w?: WriteOptions) {
      return json<T>(await request("PATCH", resourcePath(r, ns, name, sub) + writeQuery(w), patch, PATCH_CONTENT[type], w?.guard));
    },
    async *watch(r: ResourceRef, ns: string | undefined, w: WatchOptions): AsyncGenerator<WatchEvent> {
      const path = resourcePath(r, ns) + query({ watch: "true", labelSelector: w.labelSelector, fieldSelector: w.fieldSelector, resourceVersion: w.resourceVersion, timeoutSeconds: w.timeoutSeconds, allowWatchBookmarks: "true" });
      count++;
      let res: Response;
      try {
        res = await doFetch(base + path, { ...opts.init, method: "GET", headers: await headersFor(), ...(w.signal ? { signal: w.signal } : {}) });
      } catch (e) {
        if (w.signal?.aborted) return;
        throw new ApiError(0, "NetworkError", `WATCH ${base}${path}: ${networkCause(e)}`);
      }
      if (!res.ok) throw await toApiError(res);
      yield* watchEvents(res, w.signal);
    },
    async delete(r: ResourceRef, ns: string | undefined, name: string, o?: DeleteOptions) {
      const { guard, ...options } = o ?? {};
      const body = o && Object.keys(options).length ? { apiVersion: "v1", kind: "DeleteOptions", ...options } : undefined;
      const res = await request("DELETE", resourcePath(r, ns, name), body, undefined, guard);
      if (res.status === 404) return false;
      if (!res.ok) throw await toApiError(res);
      await res.body?.cancel();
      return true;
    },
  };
}

/** watchEvents yields the JSON lines of a watch response's body until it ends (or the signal aborts: then it returns quietly). */
async function* watchEvents(res: Response, signal: AbortSignal | undefined): AsyncGenerator<WatchEvent> {
  const body = res.body;
  if (!body) return;
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<string>;
      try {
        chunk = await reader.read();
      } catch (e) {
        if (signal?.aborted) return;
        throw new ApiError(0, "NetworkError", `watch stream broken: ${networkCause(e)}`);
      }
      if (chunk.done) break;
      const lines = (buffered + chunk.value).split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) yield JSON.parse(line) as WatchEvent;
    }
    if (buffered.trim()) yield JSON.parse(buffered) as WatchEvent;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** toApiError turns a non-2xx response into an ApiError carrying the Status reason and message. */
async function toApiError(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => "");
  let status: { reason?: string; message?: string } | undefined;
  try {
    status = JSON.parse(text);
  } catch {
    status = undefined;
  }
  return new ApiError(res.status, status?.reason ?? res.statusText ?? "Unknown", status?.message ?? (text.slice(0, 300) || `HTTP ${res.status}`), status);
}
