import type { ResourceRef } from "./resources.ts";

/**
 * The one I/O seam of Ordinal: everything that talks to the apiserver goes through `KubeClient`.
 * `createKubeClient` (http.ts) implements it over any fetch (global fetch, a Workers VPC binding,
 * undici with a custom CA on Node, or the in-process fake apiserver).
 */

/** A Kubernetes object as JSON. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    generateName?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[];
    finalizers?: string[];
    deletionTimestamp?: string | Date;
    creationTimestamp?: string | Date;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

/** Anything with a metadata.name (update needs it for the URL). */
export interface Named {
  metadata?: { name?: string };
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size; the client follows `continue` until the list is complete. */
  limit?: number;
  /**
   * Applied to each page as it arrives: only the items it returns true for are kept, so a list
   * whose pages hold what the caller drops (other shards' sets) costs one page of heap, not all.
   */
  keep?: (item: KubeObject) => boolean;
  /**
   * Applied to each kept item as its page arrives: what of it is held (a projection,
   * objects/projection.ts), so fields the caller never reads never pile up in its heap.
   */
  project?: (item: KubeObject) => KubeObject;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: "Background" | "Foreground" | "Orphan";
  preconditions?: { uid?: string; resourceVersion?: string };
  /** As WriteOptions.guard (not sent). */
  guard?: () => void;
}

export type PatchType = "merge" | "json" | "strategic";

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  /** Called before every attempt of the write, retries included; a throw stops it there (the reconciler's Lease fence). */
  guard?: () => void;
}

/** The apiserver's version as GET /version answers it (minor may carry a "+", e.g. "28+" on EKS). */
export interface ServerVersion {
  major: string;
  minor: string;
  gitVersion?: string;
}

export interface KubeClient {
  /** serverVersion returns the apiserver's GET /version (readable by every authenticated user). */
  serverVersion(): Promise<ServerVersion>;
  /** get returns the object, or undefined when it does not exist (404). */
  get<T extends object = KubeObject>(r: ResourceRef, namespace: string | undefined, name: string): Promise<T | undefined>;
  /** list returns every matching item, following `continue` pages. */
  list<T extends object = KubeObject>(r: ResourceRef, namespace: string | undefined, opts?: ListOptions): Promise<T[]>;
  create<T extends object>(r: ResourceRef, namespace: string | undefined, obj: T, opts?: WriteOptions): Promise<T>;
  /** createSubresource POSTs to an object's subresource (pods/NAME/binding, pods/NAME/eviction). */
  createSubresource<T extends object>(r: ResourceRef, namespace: string | undefined, name: string, subresource: string, obj: object, opts?: WriteOptions): Promise<T>;
  /** update PUTs the object (resourceVersion is the precondition); `subresource` e.g. "status". */
  update<T extends Named>(r: ResourceRef, namespace: string | undefined, obj: T, subresource?: string, opts?: WriteOptions): Promise<T>;
  patch<T extends object = KubeObject>(
    r: ResourceRef,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    type: PatchType,
    subresource?: string,
    opts?: WriteOptions,
  ): Promise<T>;
  /** delete returns true when the object was deleted (or is being deleted), false when it was already gone (404). */
  delete(r: ResourceRef, namespace: string | undefined, name: string, opts?: DeleteOptions): Promise<boolean>;
  /** Requests made so far by this client (for the Worker's subrequest budget). */
  readonly requestCount: number;
}

/** One event of a watch stream: an object added, modified or deleted, a bookmark, or an ERROR carrying a Status (410 Expired: list again). */
export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: KubeObject;
}

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Events after this resourceVersion (a list's); empty: ADDED for what exists, then changes. */
  resourceVersion?: string;
  /** The apiserver ends the watch after this long (it is then resumed from the last event seen). */
  timeoutSeconds?: number;
  /** Ends the watch from this side. */
  signal?: AbortSignal;
}

/**
 * WatchClient opens watches (Node's watch cache, src/kube/informer.ts). Only createKubeClient's
 * client has it: the Worker never holds a stream open, and wrappers (fenced, metered) pass lists.
 */
export interface WatchClient {
  /** watch yields the events of one watch request until the server ends it or `signal` aborts; an HTTP error throws ApiError. */
  watch(r: ResourceRef, namespace: string | undefined, opts: WatchOptions): AsyncGenerator<WatchEvent>;
  /** listWithVersion returns every matching object `keep` keeps (applied as each page arrives; following pages) and the resourceVersion the list was read at (a watch resumes from it). */
  listWithVersion(r: ResourceRef, namespace: string | undefined, labelSelector: string | undefined, keep?: (item: KubeObject) => boolean): Promise<{ items: KubeObject[]; resourceVersion: string }>;
}

/**
 * ApiError is a non-2xx answer of the apiserver: `code` is the HTTP status, `reason` the Status
 * reason ("Conflict", "NotFound", "Invalid", …) and `status` the whole Status body.
 */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly status?: unknown,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const isConflict = (e: unknown): boolean => e instanceof ApiError && e.code === 409;
export const isNotFound = (e: unknown): boolean => e instanceof ApiError && e.code === 404;
export const isAlreadyExists = (e: unknown): boolean => e instanceof ApiError && e.code === 409 && e.reason === "AlreadyExists";

/**
 * isCreateRefusal is true when the apiserver refused a create for a reason a person must act on: the
 * request is invalid (400, 422), forbidden (403: RBAC, a quota, a webhook's deny) or a webhook
 * could not be called (500 "failed calling webhook"). A conflict, throttling or the apiserver's own
 * transient trouble is not: the next pass tries again, and that wait is Ordinal's.
 */
export function isCreateRefusal(e: unknown): e is ApiError {
  if (!(e instanceof ApiError)) return false;
  if (e.code === 400 || e.code === 403 || e.code === 422) return true;
  return e.code === 500 && /failed calling webhook/i.test(e.message);
}

/**
 * isDisruptionBudgetRefusal is true for the eviction subresource's 429 when a PodDisruptionBudget
 * allows no disruption now (or the disruption controller has not processed it yet): a Status with
 * a cause of type DisruptionBudget, "Cannot evict pod as it would violate the pod's disruption
 * budget." Not a throttle: the client does not retry it; the caller waits and asks again later.
 */
export function isDisruptionBudgetRefusal(e: unknown): e is ApiError {
  if (!(e instanceof ApiError) || e.code !== 429) return false;
  const causes = (e.status as { details?: { causes?: { reason?: unknown }[] } } | undefined)?.details?.causes;
  return (Array.isArray(causes) && causes.some((c) => c?.reason === "DisruptionBudget")) || /disruption budget/i.test(e.message);
}
