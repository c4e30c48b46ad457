import { describe, expect, it } from "vitest";
import type { Pod } from "../../../src/api/k8s.ts";
import { createdIn, firstAddedAfter, isDone, median, stepTimes, type SetObject } from "./measure.ts";
import type { WatchEvent } from "./watch.ts";

const pod = (name: string, o: { ready?: boolean; image?: string; terminating?: boolean } = {}): Pod =>
  ({
    metadata: { name, ...(o.terminating ? { deletionTimestamp: "2026-11-27T00:00:00Z" } : {}) },
    spec: { containers: [{ name: "nginx", image: o.image ?? "nginx:2" }] },
    status: { conditions: [{ type: "Ready", status: o.ready === false ? "False" : "True" }] },
  }) as unknown as Pod;

const set = (generation: number, status: SetObject["status"]): SetObject => ({ metadata: { name: "web", generation }, status });
const doneStatus = { observedGeneration: 2, replicas: 2, readyReplicas: 2, updatedReplicas: 2, currentRevision: "web-b", updateRevision: "web-b" };
const twoPods = [pod("web-0"), pod("web-1")];

describe("isDone", () => {
  it.each([
    ["the status and the pods say done", set(2, doneStatus), twoPods, true],
    ["no set seen yet", undefined, twoPods, false],
    ["the change is not observed yet", set(2, { ...doneStatus, observedGeneration: 1 }), twoPods, false],
    ["a newer change is not observed yet", set(3, doneStatus), twoPods, false],
    ["a replica is not ready in the status", set(2, { ...doneStatus, readyReplicas: 1 }), twoPods, false],
    ["a replica is not updated", set(2, { ...doneStatus, updatedReplicas: 1 }), twoPods, false],
    ["two revisions", set(2, { ...doneStatus, currentRevision: "web-a" }), twoPods, false],
    ["a pod is missing", set(2, doneStatus), [pod("web-0")], false],
    ["an old pod is still terminating", set(2, doneStatus), [...twoPods, pod("web-2", { terminating: true })], false],
    ["a pod is terminating", set(2, doneStatus), [pod("web-0"), pod("web-1", { terminating: true })], false],
    ["a pod is not Ready", set(2, doneStatus), [pod("web-0"), pod("web-1", { ready: false })], false],
    ["a pod runs the old image", set(2, doneStatus), [pod("web-0"), pod("web-1", { image: "nginx:1" })], false],
  ])("%s → %s", (_, s, pods, want) => {
    expect(isDone(s, pods, 2, 2, "nginx:2")).toBe(want);
  });
});

const ev = (type: string, object: Pod, at: number): WatchEvent<Pod> => ({ type, object, at });

describe("stepTimes", () => {
  it("measures from pod k-1's first Ready event to pod k's first ADDED event, for this set's pods only", () => {
    const events = [
      ev("ADDED", pod("web-0", { ready: false }), 0),
      ev("ADDED", pod("web2-1", { ready: false }), 50),
      ev("MODIFIED", pod("web-0"), 100),
      ev("MODIFIED", pod("web-0"), 120),
      ev("ADDED", pod("web-1", { ready: false }), 130),
      ev("MODIFIED", pod("web-1"), 1000),
      ev("ADDED", pod("web-2", { ready: false }), 2100),
    ];
    expect(stepTimes(events, "web", 3)).toEqual([30, 1100]);
  });

  it("reads two-digit ordinals and leaves out a step whose pod was never seen", () => {
    const events = [ev("MODIFIED", pod("web-9"), 10), ev("ADDED", pod("web-10", { ready: false }), 25), ev("MODIFIED", pod("web-10"), 40)];
    expect(stepTimes(events, "web", 12)).toEqual([15]);
  });
});

describe("createdIn", () => {
  it("counts ADDED events within the window, ends included", () => {
    const events = [ev("ADDED", pod("web-0"), 5), ev("ADDED", pod("web-1"), 10), ev("MODIFIED", pod("web-1"), 15), ev("ADDED", pod("web-2"), 20), ev("ADDED", pod("web-3"), 21)];
    expect(createdIn(events, 10, 20)).toBe(2);
  });
});

describe("median", () => {
  it.each([
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
    [[7], 7],
  ])("%j → %d", (xs, want) => expect(median(xs)).toBe(want));
  it("is NaN for no values", () => expect(median([])).toBeNaN());
});

describe("firstAddedAfter", () => {
  it("is the ms to the first pod ADDED at or after the request, none before it counted", () => {
    const events = [ev("ADDED", pod("old-0"), 90), ev("MODIFIED", pod("web-0"), 105), ev("ADDED", pod("web-0"), 130), ev("ADDED", pod("web-1"), 180)];
    expect(firstAddedAfter(events, 100)).toBe(30);
    expect(firstAddedAfter(events, 90)).toBe(0);
    expect(firstAddedAfter(events, 200)).toBeUndefined();
  });
});
