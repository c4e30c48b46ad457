/** rolloutState: where a set's rollout stands, kubectl's statefulSetStatusViewer plus Ordinal's paused, stuck and failing states. */
import { describe, expect, it } from "vitest";
import { StatefulSetSchema } from "../../src/api/statefulset.ts";
import { followedRevision, rolledBackFrom, rolloutState } from "../../src/core/rollout-state.ts";
import { NOW, setManifest } from "../support/fixtures.ts";

const webSet = () => setManifest({ name: "web", replicas: 3, container: "nginx", image: "nginx:1.25" });

describe("rolloutState", () => {
  const base = (over: Record<string, unknown> = {}, status: Record<string, unknown> = {}) =>
    StatefulSetSchema.parse({
      ...webSet(),
      metadata: { name: "web", namespace: "default", generation: 2 },
      spec: { ...webSet().spec, ...over },
      status: { observedGeneration: 2, replicas: 3, readyReplicas: 3, updatedReplicas: 1, currentReplicas: 2, currentRevision: "web-a", updateRevision: "web-b", ...status },
    });
  const waitingPod = (reason: string, { revision = "web-b", message, init = false }: { revision?: string; message?: string; init?: boolean } = {}) => {
    const statuses = [{ name: "nginx", ready: false, restartCount: 0, image: "x", imageID: "", state: { waiting: { reason, message } } }];
    return { metadata: { name: "web-2", labels: { "controller-revision-hash": revision } }, status: init ? { initContainerStatuses: statuses } : { containerStatuses: statuses } };
  };
  const failingPod = (reason: string) => waitingPod(reason);
  const rolling = { done: false, message: "waiting for statefulset rolling update to complete 1 pods at revision web-b..." };
  const pausedMessage = "rollout of web is paused (spec.updateStrategy.rollingUpdate.paused); resume it with: ordinal rollout resume web -n default";
  const paused = { type: "RollingUpdate", rollingUpdate: { paused: true } };
  const partitioned = (partition: number, more: Record<string, unknown> = {}) => ({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition, ...more } } });
  it.each([
    ["not observed", base({}, { observedGeneration: 1 }), [], { done: false, message: "Waiting for statefulset spec update to be observed..." }],
    ["pods not ready", base({}, { readyReplicas: 1 }), [], { done: false, message: "Waiting for 2 pods to be ready (pod web-0 is not created yet: Ordinal creates it next)..." }],
    ["rolling", base(), [], rolling],
    ["complete", base({}, { currentRevision: "web-b", currentReplicas: 3, updatedReplicas: 3 }), [], { done: true, message: "statefulset rolling update complete 3 pods at revision web-b..." }],
    ["scaled down, a condemned pod still terminating", base({}, { replicas: 4, currentRevision: "web-b", currentReplicas: 3, updatedReplicas: 3 }), [], { done: false, message: "Waiting for 1 pods to terminate..." }],
    [
      "scaled down, the status caught up but the pod is deleting",
      base({}, { currentRevision: "web-b", currentReplicas: 3, updatedReplicas: 3 }),
      [{ metadata: { name: "web-3", deletionTimestamp: "2026-11-27T02:00:00Z", labels: { "controller-revision-hash": "web-b" } } }],
      { done: false, message: "Waiting for 1 pods to terminate..." },
    ],
    ["partition reached", base(partitioned(2)), [], { done: true, message: "partitioned roll out complete: 1 new pods have been updated..." }],
    ["partition beyond replicas", base(partitioned(5), { updatedReplicas: 0 }), [], { done: true, message: "partitioned roll out complete: 0 new pods have been updated..." }],
    ["partition not reached", base(partitioned(1)), [], { done: false, message: "Waiting for partitioned roll out to finish: 1 out of 2 new pods have been updated..." }],
    ["partition not reached, none updated yet", base(partitioned(1), { updatedReplicas: undefined }), [], { done: false, message: "Waiting for partitioned roll out to finish: 0 out of 2 new pods have been updated..." }],
    ["partition not reached, paused", base(partitioned(1, { paused: true })), [], { done: false, blocked: "paused", message: pausedMessage }],
    ["paused", base({ updateStrategy: paused }), [], { done: false, blocked: "paused", message: pausedMessage }],
    ["paused while pods are not ready", base({ updateStrategy: paused }, { readyReplicas: 2 }), [], { done: false, blocked: "paused", message: pausedMessage }],
    ["paused with nothing to roll, pods not ready", base({ updateStrategy: paused }, { readyReplicas: 2, currentRevision: "web-b" }), [], { done: false, message: "Waiting for 1 pods to be ready (pod web-0 is not created yet: Ordinal creates it next)..." }],
    ["paused with nothing to roll", base({ updateStrategy: paused }, { currentRevision: "web-b", currentReplicas: 3 }), [], { done: true, message: "statefulset rolling update complete 3 pods at revision web-b..." }],
    ["bad image", base(), [failingPod("ImagePullBackOff")], { done: false, blocked: "failing", message: "pod web-2 container nginx: image x cannot be pulled (ImagePullBackOff)" }],
    ["bad image, with the kubelet's message", base(), [waitingPod("ErrImagePull", { message: "not found" })], { done: false, blocked: "failing", message: "pod web-2 container nginx: image x cannot be pulled (ErrImagePull: not found)" }],
    ["failing init container", base(), [waitingPod("CrashLoopBackOff", { init: true })], { done: false, blocked: "failing", message: "pod web-2 container nginx is crashing (CrashLoopBackOff)" }],
    ["failing pod at the old revision", base(), [failingPod("ImagePullBackOff"), waitingPod("CrashLoopBackOff", { revision: "web-a" })], { done: false, blocked: "failing", message: "pod web-2 container nginx: image x cannot be pulled (ImagePullBackOff)" }],
    ["only the old revision's pod fails", base(), [waitingPod("CrashLoopBackOff", { revision: "web-a" })], rolling],
    ["waiting, not failing", base(), [failingPod("ContainerCreating"), failingPod("PodInitializing")], rolling],
    ["pod without status, container without state", base(), [{ metadata: { name: "web-1", labels: { "controller-revision-hash": "web-b" } } }, { metadata: { name: "web-2", labels: { "controller-revision-hash": "web-b" } }, status: { containerStatuses: [{ name: "nginx", ready: true, restartCount: 0, image: "x", imageID: "" }] } }], rolling],
    ["stuck condition", base({}, { conditions: [{ type: "RolloutStuck", status: "True", reason: "PodNotReady", message: "web-2 not ready for 10m" }] }), [], { done: false, blocked: "stuck", message: "rollout of web is stuck: RolloutStuck PodNotReady: web-2 not ready for 10m" }],
    ["in-place update blocked", base({}, { conditions: [{ type: "InPlaceUpdateBlocked", status: "True" }] }), [], { done: false, blocked: "stuck", message: "rollout of web is stuck: InPlaceUpdateBlocked" }],
    ["stuck condition cleared", base({}, { conditions: [{ type: "RolloutStuck", status: "False", reason: "PodNotReady" }, { type: "InPlaceUpdateBlocked", status: "Unknown" }] }), [], rolling],
    ["Progressing False", base({}, { conditions: [{ type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded" }] }), [], { done: false, blocked: "stuck", message: "rollout of web is stuck: Progressing ProgressDeadlineExceeded" }],
    ["Progressing True", base({}, { conditions: [{ type: "Progressing", status: "True", reason: "Updating" }] }), [], rolling],
    ["another condition False", base({}, { conditions: [{ type: "Available", status: "False", reason: "MinimumReplicasUnavailable" }] }), [], rolling],
    ["Progressing False because paused", base({ updateStrategy: paused }, { conditions: [{ type: "Progressing", status: "False", reason: "Paused" }] }), [], { done: false, blocked: "paused", message: pausedMessage }],
    ["OnDelete", base({ updateStrategy: { type: "OnDelete" } }), [], { done: true, message: "rollout status is only available for RollingUpdate strategy type (web is OnDelete)" }],
  ])("%s", (_name, set, pods, want) => {
    expect(rolloutState(set, pods as never, NOW)).toEqual(want);
  });
  it.each(["ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CrashLoopBackOff", "CreateContainerConfigError", "CreateContainerError", "RunContainerError"])("%s blocks the rollout", (reason) => {
    const words = reason === "CrashLoopBackOff" ? ` is crashing (${reason})` : /Image/.test(reason) ? `: image x cannot be pulled (${reason})` : ` cannot start (${reason})`;
    expect(rolloutState(base(), [failingPod(reason)] as never, NOW)).toEqual({ done: false, blocked: "failing", message: `pod web-2 container nginx${words}` });
  });
});

describe("rolloutState with volumeClaimUpdateStrategy OnPodRollingUpdate (issue 23)", () => {
  const done = { observedGeneration: 2, replicas: 3, readyReplicas: 3, updatedReplicas: 3, currentReplicas: 3, currentRevision: "web-b", updateRevision: "web-b" };
  const set = (volumeClaims: unknown[], type = "OnPodRollingUpdate", extra: Record<string, unknown> = {}) =>
    StatefulSetSchema.parse({
      ...webSet(),
      metadata: { name: "web", namespace: "default", generation: 2 },
      spec: { ...webSet().spec, volumeClaimTemplates: [{ metadata: { name: "data" }, spec: {} }], volumeClaimUpdateStrategy: { type } },
      status: { ...done, volumeClaims, ...extra },
    });
  it.each([
    ["claims still growing: not done", set([{ volumeClaimName: "data", compatibleReplicas: 2, compatibleReadyReplicas: 1 }]), { done: false, message: "Waiting for claims of template data: 1 out of 3 pods have theirs at the template's size and mounted..." }],
    [
      "a claim to grow not Bound yet: waiting, naming it (Progressing WaitingForClaim)",
      set([{ volumeClaimName: "data", compatibleReplicas: 2, compatibleReadyReplicas: 2 }], "OnPodRollingUpdate", {
        conditions: [{ type: "Progressing", status: "True", reason: "WaitingForClaim", message: "3 of 3 pods at revision web-b, all ready; claims wait to be Bound before they can grow: claim data-web-1 is not Bound (Pending): it grows to 2Gi once it is" }],
      }),
      { done: false, message: "Waiting for claims of template data: 2 out of 3 pods have theirs at the template's size and mounted (claims wait to be Bound before they can grow: claim data-web-1 is not Bound (Pending): it grows to 2Gi once it is)..." },
    ],
    ["every claim grown: done", set([{ volumeClaimName: "data", compatibleReplicas: 3, compatibleReadyReplicas: 3 }]), { done: true, message: "statefulset rolling update complete 3 pods at revision web-b..." }],
    ["OnDelete: claims are not the rollout's", set([{ volumeClaimName: "data", compatibleReplicas: 0, compatibleReadyReplicas: 0 }], "OnDelete"), { done: true, message: "statefulset rolling update complete 3 pods at revision web-b..." }],
    [
      "a class without expansion: stuck",
      set([{ volumeClaimName: "data", compatibleReplicas: 0, compatibleReadyReplicas: 0 }], "OnPodRollingUpdate", { conditions: [{ type: "VolumeExpansionBlocked", status: "True", reason: "ExpansionNotAllowed", message: "claim data-web-2: …" }] }),
      { done: false, blocked: "stuck", message: "rollout of web is stuck: VolumeExpansionBlocked ExpansionNotAllowed: claim data-web-2: …" },
    ],
  ])("%s", (_, s, want) => {
    expect(rolloutState(s, [], NOW)).toEqual(want);
  });
});

describe("followedRevision and rolledBackFrom: the revision `rollout status` follows, and whether it was rolled back", () => {
  const set = (generation: number, status: Record<string, unknown>, failed?: string) =>
    StatefulSetSchema.parse({
      ...webSet(),
      metadata: { name: "web", namespace: "default", generation, ...(failed ? { annotations: { "ordinal.dev/failed-revisions": failed } } : {}) },
      status: { observedGeneration: 2, replicas: 3, readyReplicas: 3, ...status },
    });
  const rolling = set(2, { currentRevision: "web-a", updateRevision: "web-b" });
  const rollbackWritten = set(3, { currentRevision: "web-a", updateRevision: "web-b" }, "web-b");
  const rollbackObserved = set(3, { observedGeneration: 3, currentRevision: "web-a", updateRevision: "web-a" }, "web-b");

  it("follows the update revision, and sees its rollback once written and once observed", () => {
    expect(followedRevision(rolling, undefined)).toBe("web-b");
    for (const later of [rollbackWritten, rollbackObserved]) {
      expect(followedRevision(later, "web-b")).toBe("web-b");
      expect(rolledBackFrom(later, "web-b")).toEqual({ from: "web-b", to: "web-a" });
    }
  });

  it("a follower that starts on the rollback's unobserved write takes up the failed revision; one that starts later follows the set as it is", () => {
    expect(followedRevision(rollbackWritten, undefined)).toBe("web-b");
    expect(followedRevision(rollbackObserved, undefined)).toBe("web-a");
    expect(rolledBackFrom(rollbackObserved, "web-a")).toBeUndefined();
  });

  it("a follower that starts before its change is observed takes up neither the older spec's update revision nor, after a rollback it slept through, the revision rolled back to", () => {
    // Generation 3 applied (web-b), the status still generation 2's: web-a is not what was applied.
    const applied = set(3, { observedGeneration: 2, currentRevision: "web-a", updateRevision: "web-a" });
    expect(followedRevision(applied, undefined)).toBeUndefined();
    // Its next read: web-b failed, was rolled back and the rollback observed (generation 4 at web-a).
    const rolledBack = set(4, { observedGeneration: 4, currentRevision: "web-a", updateRevision: "web-a" }, "web-b");
    const followed = followedRevision(rolledBack, undefined, []);
    expect(followed).toBe("web-b");
    expect(rolledBackFrom(rolledBack, followed)).toEqual({ from: "web-b", to: "web-a" });
    // Once it saw generation 3 observed, it follows web-b as before.
    expect(followedRevision(set(3, { observedGeneration: 3, currentRevision: "web-a", updateRevision: "web-b" }), undefined)).toBe("web-b");
  });

  it("a person's undo, or a revision rolled back from before and applied again, is no rollback", () => {
    const undone = set(3, { observedGeneration: 3, currentRevision: "web-a", updateRevision: "web-a" });
    expect(rolledBackFrom(undone, followedRevision(undone, "web-b"))).toBeUndefined();
    const reapplied = set(4, { observedGeneration: 4, currentRevision: "web-a", updateRevision: "web-b" }, "web-b");
    expect(followedRevision(reapplied, undefined)).toBeUndefined();
    expect(followedRevision(reapplied, "web-a")).toBe("web-a");
    expect(rolledBackFrom(reapplied, "web-a")).toBeUndefined();
  });
});
