/**
 * A driver for e2e scenarios: alternate one reconcile invocation and one kubelet step, snapshot
 * the pods around each pass, and check upstream's OrderedReady invariant on every pass.
 */
import { expect } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { getOrdinal } from "../../src/objects/names.ts";
import { getPodRevision, isRunningAndReady } from "../../src/core/pod-state.ts";
import type { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { listPods, reconcileCli, reconcileInProcess } from "./support.ts";

export interface Step {
  before: Pod[];
  after: Pod[];
  created: string[];
  deleted: string[];
}

export interface DriveOptions {
  kubelet?: KubeletPlayer;
  /** Use the `ordinal reconcile --once` CLI instead of an in-process invocation. */
  cli?: boolean;
  maxSteps?: number;
  /** Check the OrderedReady creation invariant (default true). */
  ordered?: boolean;
}

const key = (p: Pod) => `${p.metadata!.name}/${p.metadata!.uid}`;

/** reconcileStep runs one reconcile invocation and returns what changed. */
export async function reconcileStep(ns: string, o: DriveOptions = {}): Promise<Step> {
  const before = await listPods(ns);
  if (o.cli) reconcileCli(ns);
  else await reconcileInProcess(ns);
  const after = await listPods(ns);
  const beforeKeys = new Set(before.map(key));
  const afterKeys = new Set(after.map(key));
  const created = after.filter((p) => !beforeKeys.has(key(p))).map((p) => p.metadata!.name!);
  const deleted = before.filter((p) => !afterKeys.has(key(p)) || (!p.metadata?.deletionTimestamp && after.find((a) => key(a) === key(p))?.metadata?.deletionTimestamp)).map((p) => p.metadata!.name!);
  if (o.ordered !== false) {
    for (const name of created) {
      const ord = getOrdinal(name);
      for (const p of before) {
        if (getOrdinal(p.metadata!.name!) < ord) expect(isRunningAndReady(p) && !p.metadata?.deletionTimestamp, `${name} created while ${p.metadata!.name} not ready`).toBe(true);
      }
      for (let j = 0; j < ord; j++) expect(before.some((p) => getOrdinal(p.metadata!.name!) === j), `${name} created before ordinal ${j}`).toBe(true);
    }
  }
  return { before, after, created, deleted };
}

/** driveUntil alternates reconcile and kubelet steps until `done(pods)` holds; returns the steps. */
export async function driveUntil(ns: string, done: (pods: Pod[]) => boolean, o: DriveOptions = {}): Promise<Step[]> {
  const steps: Step[] = [];
  for (let i = 0; i < (o.maxSteps ?? 40); i++) {
    const step = await reconcileStep(ns, o);
    steps.push(step);
    if (done(step.after)) return steps;
    if (o.kubelet) await o.kubelet.step();
  }
  const pods = await listPods(ns);
  throw new Error(`not converged after ${steps.length} steps: ${pods.map((p) => `${p.metadata!.name}:${p.status?.phase}:${getPodRevision(p)}`).join(", ")}`);
}

/** allReady is true when exactly `n` pods exist, all Running+Ready, none terminating, optionally at `revision`. */
export const allReady = (n: number, revision?: string) => (pods: Pod[]) =>
  pods.length === n && pods.every((p) => isRunningAndReady(p) && !p.metadata?.deletionTimestamp && (!revision || getPodRevision(p) === revision));
