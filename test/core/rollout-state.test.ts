/** rolloutState: where a set's rollout stands, kubectl's statefulSetStatusViewer plus Ordinal's paused, stuck and failing states. */
import { describe, expect, it } from "vitest";
import { StatefulSetSchema } from "../../src/api/statefulset.ts";
import { rolloutState } from "../../src/core/rollout-state.ts";
import { setManifest } from "../support/fixtures.ts";

const webSet = () => setManifest({ name: "web", replicas: 3, container: "nginx", image: "nginx:1.25" });

describe("rolloutState", () => {
  const base = (over: Record<string, unknown> = {}, status: Record<string, unknown> = {}) =>
    StatefulSetSchema.parse({
      ...webSet(),
      metadata: { name: "web", namespace: "default", generation: 2 },
      spec: { ...webSet().spec, ...over },
      status: { observedGeneration: 2, replicas: 3, readyReplicas: 3, updatedReplicas: 1, currentReplicas: 2, currentRevision: "web-a", updateRevision: "web-b", ...status },
    });
  const failingPod = (reason: string) => ({
    metadata: { name: "web-2", labels: { "controller-revision-hash": "web-b" } },
    status: { containerStatuses: [{ name: "nginx", ready: false, restartCount: 0, image: "x", imageID: "", state: { waiting: { reason } } }] },
  });
  it.each([
    ["not observed", base({}, { observedGeneration: 1 }), [], { done: false, message: "Waiting for statefulset spec update to be observed..." }],
    ["pods not ready", base({}, { readyReplicas: 1 }), [], { done: false, message: "Waiting for 2 pods to be ready..." }],
    ["rolling", base(), [], { done: false, message: "waiting for statefulset rolling update to complete 1 pods at revision web-b..." }],
    ["complete", base({}, { currentRevision: "web-b", currentReplicas: 3, updatedReplicas: 3 }), [], { done: true, message: "statefulset rolling update complete 3 pods at revision web-b..." }],
    ["partition reached", base({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } } }), [], { done: true, message: "partitioned roll out complete: 1 new pods have been updated..." }],
    ["paused", base({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { paused: true } } }), [], { done: false, blocked: "paused" }],
    ["stuck condition", base({}, { conditions: [{ type: "RolloutStuck", status: "True", reason: "PodNotReady", message: "web-2 not ready for 10m" }] }), [], { done: false, blocked: "stuck" }],
    ["bad image", base(), [failingPod("ImagePullBackOff")], { done: false, blocked: "failing" }],
    ["OnDelete", base({ updateStrategy: { type: "OnDelete" } }), [], { done: true }],
  ])("%s", (_name, set, pods, want) => {
    expect(rolloutState(set, pods as never)).toMatchObject(want);
  });
});
