/** Pod predicates at their boundaries (upstream's podutil). */
import { describe, expect, it } from "vitest";
import { isRunningAndAvailable } from "../../src/core/pod-state.ts";
import { newPod, newSet } from "../support/fixtures.ts";

describe("isRunningAndAvailable", () => {
  const set = newSet();
  const readySince = "2026-11-21T12:00:00Z";
  const at = (ms: number) => new Date(Date.parse(readySince) + ms);
  it.each<[string, ReturnType<typeof newPod>, number, number, boolean]>([
    ["minReadySeconds 0: available as soon as Ready", newPod(set, 0, "r", "ready", readySince), 0, 0, true],
    ["Ready for less than minReadySeconds", newPod(set, 0, "r", "ready", readySince), 10, 9_999, false],
    // IsPodAvailable: LastTransitionTime.Add(minReadySeconds).Before(now) — strictly before.
    ["Ready for exactly minReadySeconds: not yet", newPod(set, 0, "r", "ready", readySince), 10, 10_000, false],
    ["Ready for just over minReadySeconds", newPod(set, 0, "r", "ready", readySince), 10, 10_001, true],
    ["not Ready: never available", newPod(set, 0, "r", "running", readySince), 0, 60_000, false],
  ])("%s", (_, pod, minReadySeconds, elapsedMs, want) => {
    expect(isRunningAndAvailable(pod, minReadySeconds, at(elapsedMs))).toBe(want);
  });
});
