/** Pod predicates at their boundaries (upstream's stateful_set_utils.go and podutil). */
import { describe, expect, it } from "vitest";
import type { Pod, PodCondition } from "../../src/api/k8s.ts";
import {
  getPodRevision,
  isCreated,
  isFailed,
  isHealthy,
  isPending,
  isRunningAndAvailable,
  isRunningAndReady,
  isSucceeded,
  isTerminating,
  podReadyCondition,
} from "../../src/core/pod-state.ts";
import { newPod, newSet } from "../support/fixtures.ts";

const set = newSet();

/** A pod the planner has built but not yet created: no status at all. */
const planned: Pod = { metadata: { name: "web-0" } };
/** The bare minimum of JSON a pod may be: neither metadata nor status. */
const bare: Pod = {};
const inPhase = (phase: string, conditions: PodCondition[] = []): Pod => ({
  metadata: { name: "web-0" },
  status: { phase, conditions },
});

describe("phase predicates", () => {
  it.each<[string, Pod, { created: boolean; pending: boolean; failed: boolean; succeeded: boolean }]>([
    ["planned, not created", planned, { created: false, pending: false, failed: false, succeeded: false }],
    ["no metadata nor status", bare, { created: false, pending: false, failed: false, succeeded: false }],
    ["Pending", inPhase("Pending"), { created: true, pending: true, failed: false, succeeded: false }],
    ["Running", inPhase("Running"), { created: true, pending: false, failed: false, succeeded: false }],
    ["Failed", inPhase("Failed"), { created: true, pending: false, failed: true, succeeded: false }],
    ["Succeeded", inPhase("Succeeded"), { created: true, pending: false, failed: false, succeeded: true }],
    ["Unknown", inPhase("Unknown"), { created: true, pending: false, failed: false, succeeded: false }],
  ])("%s", (_, pod, want) => {
    expect({ created: isCreated(pod), pending: isPending(pod), failed: isFailed(pod), succeeded: isSucceeded(pod) }).toEqual(want);
  });
});

describe("isTerminating", () => {
  it.each<[string, Pod, boolean]>([
    ["deletionTimestamp set", newPod(set, 0, "r", "terminating"), true],
    ["Ready and terminating", newPod(set, 0, "r", "readyTerminating"), true],
    ["no deletionTimestamp", newPod(set, 0, "r", "ready"), false],
    ["no metadata", bare, false],
  ])("%s", (_, pod, want) => {
    expect(isTerminating(pod)).toBe(want);
  });
});

describe("podReadyCondition and isRunningAndReady", () => {
  const ready = { type: "Ready", status: "True" };
  const gate = { type: "InPlaceUpdateReady", status: "True" };
  it.each<[string, Pod, string | undefined, boolean]>([
    ["Running, Ready True", inPhase("Running", [ready]), "True", true],
    ["Running, Ready True after another condition", inPhase("Running", [gate, ready]), "True", true],
    ["Running, only another condition True", inPhase("Running", [gate]), undefined, false],
    ["Running, Ready False", inPhase("Running", [{ type: "Ready", status: "False" }]), "False", false],
    ["Running, no conditions", { metadata: {}, status: { phase: "Running" } }, undefined, false],
    ["Pending, Ready True", inPhase("Pending", [ready]), "True", false],
    ["planned (no status)", planned, undefined, false],
  ])("%s", (_, pod, readyStatus, want) => {
    expect(podReadyCondition(pod)?.status).toBe(readyStatus);
    expect(isRunningAndReady(pod)).toBe(want);
  });
});

describe("isRunningAndAvailable", () => {
  const readySince = "2026-11-21T12:00:00Z";
  const at = (ms: number) => new Date(Date.parse(readySince) + ms);
  it.each<[string, Pod, number, number, boolean]>([
    ["minReadySeconds 0: available as soon as Ready", newPod(set, 0, "r", "ready", readySince), 0, 0, true],
    ["Ready for less than minReadySeconds", newPod(set, 0, "r", "ready", readySince), 10, 9_999, false],
    // IsPodAvailable: LastTransitionTime.Add(minReadySeconds).Before(now) — strictly before.
    ["Ready for exactly minReadySeconds: not yet", newPod(set, 0, "r", "ready", readySince), 10, 10_000, false],
    ["Ready for just over minReadySeconds", newPod(set, 0, "r", "ready", readySince), 10, 10_001, true],
    ["not Ready: never available", newPod(set, 0, "r", "running", readySince), 0, 60_000, false],
    ["Ready with no transition time: not available while minReadySeconds > 0", inPhase("Running", [{ type: "Ready", status: "True" }]), 10, 60_000, false],
    ["Ready with no transition time, minReadySeconds 0", inPhase("Running", [{ type: "Ready", status: "True" }]), 0, 0, true],
  ])("%s", (_, pod, minReadySeconds, elapsedMs, want) => {
    expect(isRunningAndAvailable(pod, minReadySeconds, at(elapsedMs))).toBe(want);
  });
});

describe("isHealthy", () => {
  it.each<[string, Pod, boolean]>([
    ["Running and Ready", newPod(set, 0, "r", "ready"), true],
    ["Ready but terminating", newPod(set, 0, "r", "readyTerminating"), false],
    ["Running, not Ready", newPod(set, 0, "r", "running"), false],
  ])("%s", (_, pod, want) => {
    expect(isHealthy(pod)).toBe(want);
  });
});

describe("getPodRevision", () => {
  it.each<[string, Pod, string]>([
    ["the controller-revision-hash label", newPod(set, 0, "web-abc"), "web-abc"],
    ["no labels", { metadata: { name: "web-0" } }, ""],
    ["labels without the revision", { metadata: { labels: { app: "web" } } }, ""],
    ["no metadata", bare, ""],
  ])("%s", (_, pod, want) => {
    expect(getPodRevision(pod)).toBe(want);
  });
});
