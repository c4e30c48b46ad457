/** pullOutcome and pullerPodName (src/core/puller-pod.ts) as tables: what a puller pod says about its image. */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { pullerPodName, pullOutcome, type PullOutcome } from "../../src/core/puller-pod.ts";

const NOW = new Date("2026-11-21T12:00:00Z");
const ago = (s: number) => new Date(NOW.getTime() - s * 1000).toISOString();
const withState = (state: Record<string, unknown>, phase = "Pending"): Pod => ({ metadata: { creationTimestamp: ago(5) as unknown as Date }, status: { phase, containerStatuses: [{ name: "pull", state } as never] } });
const bare = (status: Record<string, unknown> | undefined, createdAgo?: number): Pod => ({
  metadata: createdAgo === undefined ? {} : { creationTimestamp: ago(createdAgo) as unknown as Date },
  ...(status ? { status } : {}),
});

describe("pullOutcome", () => {
  it.each<[string, Pod, PullOutcome]>([
    ["the container runs", withState({ running: {} }, "Running"), { state: "present", message: "pulled (container started)" }],
    ["the container terminated", withState({ terminated: { reason: "Completed" } }), { state: "present", message: "pulled (container Completed)" }],
    ["terminated without a reason", withState({ terminated: {} }), { state: "present", message: "pulled (container terminated)" }],
    ["could not start (no `true` in the image)", withState({ waiting: { reason: "CreateContainerError", message: "exec: true: not found" } }), { state: "present", message: "pulled (container could not start: CreateContainerError: exec: true: not found)" }],
    ["could not start, no message", withState({ waiting: { reason: "StartError" } }), { state: "present", message: "pulled (container could not start: StartError)" }],
    ["the pull failed", withState({ waiting: { reason: "ErrImagePull", message: "not found" } }), { state: "failed", message: "ErrImagePull: not found" }],
    ["backing off, no message", withState({ waiting: { reason: "ImagePullBackOff" } }), { state: "failed", message: "ImagePullBackOff" }],
    ["still creating", withState({ waiting: { reason: "ContainerCreating" } }), { state: "pulling" }],
    ["no state yet", withState({}), { state: "pulling" }],
    ["Succeeded without container news", bare({ phase: "Succeeded" }, 5), { state: "present", message: "pulled (container completed)" }],
    ["Failed at its deadline", bare({ phase: "Failed", reason: "DeadlineExceeded", message: "Pod was active on the node longer than the specified deadline" }, 700), { state: "failed", message: "puller pod failed: DeadlineExceeded: Pod was active on the node longer than the specified deadline" }],
    ["Failed, nothing said", bare({ phase: "Failed" }, 5), { state: "failed", message: "puller pod failed: Failed" }],
    ["no kubelet news for longer than deadline + grace (660 s)", bare({ phase: "Pending" }, 661), { state: "failed", message: "no kubelet reported on the puller pod within 660s (is the node there?)" }],
    ["exactly 660 s: still pulling", bare({ phase: "Pending" }, 660), { state: "pulling" }],
    ["no status at all, long ago", bare(undefined, 10_000), { state: "failed", message: "no kubelet reported on the puller pod within 660s (is the node there?)" }],
    ["a kubelet reported, long ago: still pulling", { ...withState({ waiting: { reason: "ContainerCreating" } }), metadata: { creationTimestamp: ago(10_000) as unknown as Date } }, { state: "pulling" }],
    ["no creation time: pulling", bare({ phase: "Pending" }), { state: "pulling" }],
  ])("%s", (_, pod, want) => {
    expect(pullOutcome(pod, NOW)).toEqual(want);
  });
});

describe("pullerPodName", () => {
  it("is the list's name, -pull-, and eight hex digits of the image's hash", () => {
    expect(pullerPodName("node-1.example", "nginx:1.25")).toMatch(/^node-1\.example-pull-[0-9a-f]{8}$/);
    expect(pullerPodName("node-1", "nginx:1.25")).not.toBe(pullerPodName("node-1", "nginx:1.26"));
  });
  it("cuts a long list name to fit 253 characters, without a trailing - or .", () => {
    const name = pullerPodName(`${"a".repeat(237)}-.${"b".repeat(30)}`, "nginx:1.25");
    expect(name).toMatch(/^a{237}-pull-[0-9a-f]{8}$/);
    expect(pullerPodName("n".repeat(300), "x").length).toBe(253);
  });
});
