/**
 * The fault injector of a chaos run: a seeded schedule of faults (plan), and their execution
 * against the replicas, the apiserver and the network (inject), each recorded as a window (what
 * was made unavailable, from when to when) for the observer, which accounts unavailability the
 * injector caused apart from Ordinal's own.
 */
import type { Random } from "../../../src/sim/fake-apiserver/random.ts";
import type { ProxyMode } from "./network-types.ts";

export const FAULT_KINDS = [
  "kill", // SIGKILL a replica, restart it
  "stale-leader", // SIGSTOP a replica past its Lease, then SIGCONT
  "apiserver-restart", // kube-apiserver stopped and started again, etcd kept
  "proxy-reset", // a replica's connections to the apiserver reset
  "proxy-delay", // its requests delayed by seconds
  "proxy-429", // answered 429 with Retry-After
  "proxy-500",
  "proxy-504",
  "webhooks-down-pods", // the webhook Service refuses while the apiserver creates pods
  "webhooks-down-apply", // ... and while a set is applied
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** One planned fault: when it starts (ms after the fault phase began), how long it lasts, whom it hits. */
export interface PlannedFault {
  kind: FaultKind;
  atMs: number;
  durationMs: number;
  /** The replica (by index) it hits, for replica and proxy faults. */
  replica: number;
}

/** A fault as it happened: the observer's `injected()` record (observer/types.ts's FaultWindow, with what it hit). */
export interface FaultWindow {
  kind: FaultKind;
  /** The replica's name ("chaos-a"), "apiserver" or "webhooks". */
  target: string;
  /** The replica it killed, stopped or cut off, if any. */
  replica?: string;
  start: string;
  end?: string;
}

/**
 * durationOf returns how long a fault of `kind` lasts: a stale leader is stopped past its Lease
 * (`leaseSeconds` plus 5–15 s); a killed replica is down 2–10 s; the rest last 5–25 s.
 */
function durationOf(kind: FaultKind, random: Random, leaseSeconds: number): number {
  if (kind === "stale-leader") return (leaseSeconds + 5 + random() * 10) * 1000;
  if (kind === "kill") return 2000 + random() * 8000;
  if (kind === "apiserver-restart") return 1000 + random() * 4000;
  return 5000 + random() * 20_000;
}

/**
 * planFaults returns the seeded schedule of a fault phase of `phaseMs`: faults one after the
 * other (they do not overlap: a stale leader lasts past its Lease), 3 s plus up to a twentieth of
 * the phase (at most 20 s) apart, kinds drawn in turn from a shuffled list so a short run still
 * sees most kinds, a stale leader first; none ends after `phaseMs`.
 */
export function planFaults(random: Random, phaseMs: number, replicas: number, leaseSeconds: number): PlannedFault[] {
  const out: PlannedFault[] = [];
  let bag: FaultKind[] = [];
  const gap = () => 3000 + random() * Math.min(20_000, phaseMs / 20);
  let at = gap();
  for (;;) {
    // The first fault is a stale leader (the one a short run must not miss); then the kinds in turn.
    if (!bag.length) bag = out.length ? [...FAULT_KINDS].sort(() => random() - 0.5) : [...FAULT_KINDS.filter((k) => k !== "stale-leader").sort(() => random() - 0.5), "stale-leader"];
    const kind = bag.pop()!;
    const durationMs = durationOf(kind, random, leaseSeconds);
    if (at + durationMs > phaseMs) return out;
    out.push({ kind, atMs: Math.round(at), durationMs: Math.round(durationMs), replica: Math.floor(random() * replicas) });
    at += durationMs + gap();
  }
}

/** proxyMode returns what a replica's proxy does during a proxy fault. */
export function proxyMode(kind: FaultKind, random: Random): ProxyMode {
  if (kind === "proxy-reset") return { kind: "reset", share: 0.5 };
  if (kind === "proxy-delay") return { kind: "delay", share: 0.7, ms: 1000 + Math.round(random() * 4000) };
  if (kind === "proxy-429") return { kind: "status", share: 0.7, code: 429, retryAfter: 1 + Math.floor(random() * 2) };
  if (kind === "proxy-500") return { kind: "status", share: 0.5, code: 500 };
  return { kind: "status", share: 0.5, code: 504 };
}
