// Fault injection: rules (method / path / verb / resource / predicate, with counts) and a seeded
// random mode. A fault answers with an error status without touching state, drops the connection
// before the request is applied (a TypeError, as fetch throws), applies the request and then
// loses the response, or simulates the client crashing before or after the request.

import {
  ApiError,
  conflict,
  internalError,
  serviceUnavailable,
  timeoutError,
  tooManyRequests,
  type Status,
} from "../fake-apiserver/errors.ts";
import type { RequestInfo } from "./request-info.ts";
import { mulberry32, pick, type Random } from "../fake-apiserver/random.ts";

/**
 * FaultKind names a canned fault:
 * - conflict (409 Conflict), throttle (429 with Retry-After), internal (500), unavailable (503),
 *   timeout (504): an error response, the request is not applied;
 * - network: fetch rejects with a TypeError, the request is not applied;
 * - lost: the request is applied, then fetch rejects with a TypeError (a timeout after the server acted);
 * - crash / crash-after: fetch rejects with SimulatedCrash before / after the request is applied.
 */
export type FaultKind = "conflict" | "throttle" | "internal" | "unavailable" | "timeout" | "network" | "lost" | "crash" | "crash-after";

const ALL_FAULT_KINDS: readonly FaultKind[] = ["conflict", "throttle", "internal", "unavailable", "timeout", "network", "lost"];

/** FaultStatus is a custom error response. */
interface FaultStatus {
  status: number;
  reason?: string;
  message?: string;
  retryAfterSeconds?: number;
}

export type Fault = FaultKind | FaultStatus;

interface FaultMatch {
  method?: string | readonly string[];
  /** tested against the path without query */
  path?: RegExp;
  verb?: string | readonly string[];
  resource?: string;
  subresource?: string;
  when?: (req: RequestInfo) => boolean;
}

export interface FaultRule extends FaultMatch {
  fault: Fault;
  /** how many times to fire (default: every match) */
  times?: number;
  /** let this many matching requests through first */
  skip?: number;
}

export interface RandomFaultOptions extends FaultMatch {
  seed: number;
  /** probability per matching request, 0..1 */
  rate: number;
  kinds?: readonly FaultKind[];
}

export interface FaultHandle {
  /** how many times the rule fired */
  readonly hits: number;
  remove(): void;
}

/** SimulatedCrash is thrown by the crash faults: the client process "dies" at this request. */
export class SimulatedCrash extends Error {
  constructor(readonly request: string, readonly applied: boolean) {
    super(`simulated crash ${applied ? "after" : "before"} ${request}`);
    this.name = "SimulatedCrash";
  }
}

/** networkError is what fetch throws when the connection fails. */
export function networkError(detail: string): TypeError {
  return new TypeError("fetch failed", { cause: new Error(detail) });
}

const oneOf = (v: string | readonly string[] | undefined, x: string): boolean => v === undefined || (typeof v === "string" ? v === x : v.includes(x));

function matches(m: FaultMatch, req: RequestInfo): boolean {
  return (
    oneOf(m.method, req.method) &&
    oneOf(m.verb, req.verb) &&
    (m.resource === undefined || m.resource === req.resource) &&
    (m.subresource === undefined || m.subresource === req.subresource) &&
    (m.path === undefined || m.path.test(req.path)) &&
    (m.when === undefined || m.when(req))
  );
}

interface ActiveRule {
  rule: FaultRule;
  seen: number;
  hits: number;
}

export class Faults {
  private rules: ActiveRule[] = [];
  private randomMode: { opts: RandomFaultOptions; rng: Random; kinds: readonly FaultKind[]; readKinds: readonly FaultKind[] } | undefined;

  /** add installs a rule; rules are tried in the order added. */
  add(rule: FaultRule): FaultHandle {
    const active: ActiveRule = { rule, seen: 0, hits: 0 };
    this.rules.push(active);
    return {
      get hits() {
        return active.hits;
      },
      remove: () => {
        this.rules = this.rules.filter((r) => r !== active);
      },
    };
  }

  /** random injects faults of the given kinds at `rate`, reproducibly from `seed`. */
  random(opts: RandomFaultOptions): void {
    const kinds = opts.kinds ?? ALL_FAULT_KINDS;
    // The apiserver never answers a read with 409: random conflicts fall on writes only.
    this.randomMode = { opts, rng: mulberry32(opts.seed), kinds, readKinds: kinds.filter((k) => k !== "conflict") };
  }

  stopRandom(): void {
    this.randomMode = undefined;
  }

  /** clear removes every rule and stops random mode. */
  clear(): void {
    this.rules = [];
    this.randomMode = undefined;
  }

  /** decide picks the fault for a request, if any. */
  decide(req: RequestInfo): Fault | undefined {
    for (const active of this.rules) {
      if (!matches(active.rule, req)) continue;
      active.seen += 1;
      if (active.seen <= (active.rule.skip ?? 0)) continue;
      if (active.rule.times !== undefined && active.hits >= active.rule.times) continue;
      active.hits += 1;
      return active.rule.fault;
    }
    const r = this.randomMode;
    if (r && matches(r.opts, req)) {
      const roll = r.rng();
      const kinds = req.method === "GET" ? r.readKinds : r.kinds;
      const kind = kinds.length > 0 ? pick(r.rng, kinds) : undefined;
      if (roll < r.opts.rate) return kind;
    }
    return undefined;
  }
}

/** faultError builds the error response of a status fault. */
export function faultError(fault: Fault, req: RequestInfo): ApiError {
  if (typeof fault !== "string") {
    const status: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: fault.message ?? `injected ${fault.status}` };
    if (fault.reason) status.reason = fault.reason;
    status.details = fault.retryAfterSeconds ? { retryAfterSeconds: fault.retryAfterSeconds } : {};
    status.code = fault.status;
    return new ApiError(status, fault.retryAfterSeconds ? { "retry-after": String(fault.retryAfterSeconds) } : {});
  }
  switch (fault) {
    case "conflict":
      return conflict({ group: req.group, resource: req.resource }, req.name);
    case "throttle":
      return tooManyRequests(1);
    case "internal":
      return internalError("injected fault (fake apiserver)");
    case "unavailable":
      return serviceUnavailable();
    case "timeout":
      return timeoutError();
    default:
      throw new Error(`fault ${fault} has no status`);
  }
}
