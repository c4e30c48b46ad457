/**
 * spec.scaleStrategy.maxUnavailable (OpenKruise's): a Parallel set creates new pods only while
 * fewer than that many replicas are not yet available, through plan(); and its apply-time rules.
 */
import { describe, expect, it } from "vitest";
import type { Action } from "../../src/core/actions.ts";
import { plan } from "../../src/core/planner.ts";
import { validateStatefulSet } from "../../src/validation/index.ts";
import { messages, validSet, with_ } from "../validation/helpers.ts";
import { NOW, claimFor, makeSet, pod, revisionOf, type PodState } from "./fixtures.ts";

const created = (actions: Action[]) => actions.flatMap((a) => (a.type === "createPod" ? [a.pod.metadata!.name!] : []));

function planWith(spec: Record<string, unknown>, states: (PodState | null)[]) {
  const set = makeSet({ replicas: 5, podManagementPolicy: "Parallel", ...spec });
  const rev = revisionOf(set).metadata!.name!;
  const pods = states.flatMap((s, i) => (s ? [pod(set, i, rev, s)] : []));
  return plan({ set, pods, claims: states.map((_, i) => claimFor(set, i)), revisions: [revisionOf(set)], now: NOW });
}

describe("plan: scaleStrategy.maxUnavailable", () => {
  it.each([
    ["unset: every missing pod at once", {}, [], ["web-0", "web-1", "web-2", "web-3", "web-4"]],
    ["2: two at a time", { scaleStrategy: { maxUnavailable: 2 } }, [], ["web-0", "web-1"]],
    ["2, both still starting: none", { scaleStrategy: { maxUnavailable: 2 } }, ["running", "pending"], []],
    ["2, one Ready and one starting: one more", { scaleStrategy: { maxUnavailable: 2 } }, ["ready", "running"], ["web-2"]],
    ["2, two Ready: two more", { scaleStrategy: { maxUnavailable: 2 } }, ["ready", "ready"], ["web-2", "web-3"]],
    ["40% of 5 replicas rounds up to 2", { scaleStrategy: { maxUnavailable: "40%" } }, [], ["web-0", "web-1"]],
    ["1%: at least one", { scaleStrategy: { maxUnavailable: "1%" } }, [], ["web-0"]],
    ["minReadySeconds: Ready but not yet available still counts", { minReadySeconds: 3600, scaleStrategy: { maxUnavailable: 1 } }, ["ready"], []],
    ["OrderedReady: one at a time anyway", { podManagementPolicy: "OrderedReady", scaleStrategy: { maxUnavailable: 3 } }, [], ["web-0"]],
  ])("%s", (_, spec, states, want) => {
    const p = planWith(spec, states as PodState[]);
    expect(created(p.actions)).toEqual(want);
    if (want.length + states.length < 5) expect(p.waiting).toBe(true);
  });
});

describe("validateStatefulSet: scaleStrategy", () => {
  const check = (scaleStrategy: unknown, podManagementPolicy = "Parallel") =>
    validateStatefulSet(with_(validSet, (s) => ((s.spec.scaleStrategy = scaleStrategy), (s.spec.podManagementPolicy = podManagementPolicy))), undefined, { group: "apps.ordinal.dev" });
  it("accepts a number and a percentage", () => {
    expect(check({ maxUnavailable: 2 })).toEqual({ errors: [], warnings: [] });
    expect(check({ maxUnavailable: "50%" })).toEqual({ errors: [], warnings: [] });
  });
  it("refuses 0, a negative number and a bad percentage as rollingUpdate.maxUnavailable does", () => {
    expect(messages(check({ maxUnavailable: 0 }).errors)).toEqual(["spec.scaleStrategy.maxUnavailable: Invalid value: 0: cannot be 0"]);
    expect(messages(check({ maxUnavailable: -1 }).errors)).toEqual(["spec.scaleStrategy.maxUnavailable: Invalid value: -1: must be greater than or equal to 0"]);
    expect(messages(check({ maxUnavailable: "150%" }).errors)).toEqual([`spec.scaleStrategy.maxUnavailable: Invalid value: "150%": must not be greater than 100%`]);
  });
  it("warns that OrderedReady ignores it", () => {
    expect(check({ maxUnavailable: 2 }, "OrderedReady").warnings).toEqual([expect.stringMatching(/scaleStrategy.maxUnavailable has effect only with podManagementPolicy Parallel/)]);
  });
});
