// Fault injection at the KubeClient seam: faultFetch wraps any fetch — the fake apiserver's, or one
// that reaches a real apiserver — and answers each request as the fault a Faults decides for it
// says: an error status or a dropped connection without applying it, or applying it and then
// losing the response or crashing the client. The fake apiserver serves its `faults` through it,
// and the randomized reconcile runs wrap the fake in it (test/reconciler/chaos.ts).

import type { FetchLike } from "../../kube/http.ts";
import { faultError, networkError, SimulatedCrash, type Fault, type Faults } from "./faults.ts";
import { describeRequest, type RequestInfo } from "./request-info.ts";

/** How a request ended, as the fault layer saw it. */
export interface FaultOutcome {
  /** The server's HTTP status, or the injected error's; 0 when no server answered. */
  status: number;
  /** Whether the request reached the server behind the layer (it was applied there). */
  applied: boolean;
  /** Whether the client got a response (false: a network error, a lost response or a crash). */
  delivered: boolean;
  fault?: Fault;
}

export interface FaultFetchOptions {
  /** Describes a request for the rules; default: describeRequest (any apiserver's URL shapes). */
  describe?: (method: string, url: URL, body: string) => RequestInfo;
  /** Called before the fault is decided; a throw rejects the fetch. */
  before?: (info: RequestInfo) => void;
  /** Called once the request ended (not when `before` or the inner fetch threw). */
  after?: (info: RequestInfo, outcome: FaultOutcome) => void | Promise<void>;
}

/** readRequest returns a request's method, URL, body text and headers, however fetch was called. */
async function readRequest(input: string | URL | Request, init?: RequestInit) {
  if (input instanceof Request) {
    const req = init ? new Request(input, init) : input;
    return { method: req.method.toUpperCase(), url: new URL(req.url), body: await req.text(), headers: req.headers, signal: req.signal };
  }
  const body = init?.body === undefined || init.body === null ? "" : typeof init.body === "string" ? init.body : await new Response(init.body).text();
  return { method: (init?.method ?? "GET").toUpperCase(), url: new URL(String(input)), body, headers: new Headers(init?.headers), signal: init?.signal ?? undefined };
}

/** errorResponse returns the Response of a status fault (the Status body the apiserver would send). */
function errorResponse(fault: Fault, info: RequestInfo): Response {
  const err = faultError(fault, info);
  return new Response(JSON.stringify(err.status), { status: err.code, headers: { "content-type": "application/json", ...err.headers } });
}

/**
 * faultFetch returns a fetch that asks `faults` about every request and forwards it to `inner`
 * unless the fault answers in its place: a status fault returns its error Response, `network` and
 * `crash` reject without forwarding, `lost` and `crash-after` forward and then reject (a TypeError
 * as fetch throws, or SimulatedCrash).
 */
export function faultFetch(inner: FetchLike, faults: Faults, opts: FaultFetchOptions = {}): FetchLike {
  const describe = opts.describe ?? ((method: string, url: URL, body: string) => describeRequest(method, url, body));
  return async (input, init) => {
    const req = await readRequest(input, init);
    const info = describe(req.method, req.url, req.body);
    opts.before?.(info);
    const fault = faults.decide(info);
    const end = async (outcome: FaultOutcome) => opts.after?.(info, fault === undefined ? outcome : { ...outcome, fault });
    const what = `${req.method} ${req.url.pathname}${req.url.search}`;
    if (fault === "network") {
      await end({ status: 0, applied: false, delivered: false });
      throw networkError(`connect ECONNREFUSED (injected network fault on ${what})`);
    }
    if (fault === "crash") {
      await end({ status: 0, applied: false, delivered: false });
      throw new SimulatedCrash(what, false);
    }
    if (fault !== undefined && fault !== "lost" && fault !== "crash-after") {
      const res = errorResponse(fault, info);
      await end({ status: res.status, applied: false, delivered: true });
      return res;
    }
    const res = await inner(req.url.href, { method: req.method, headers: req.headers, ...(req.body !== "" ? { body: req.body } : {}), ...(req.signal ? { signal: req.signal } : {}) });
    if (fault === "lost") {
      await end({ status: res.status, applied: true, delivered: false });
      throw networkError(`socket hang up (injected: response lost after applying ${what})`);
    }
    if (fault === "crash-after") {
      await end({ status: res.status, applied: true, delivered: false });
      throw new SimulatedCrash(what, true);
    }
    await end({ status: res.status, applied: true, delivered: true });
    return res;
  };
}
