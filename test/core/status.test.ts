/** Status counts and completion at their edges (src/core/status.ts, upstream computeReplicaStatus / completeRollingUpdate). */
import { describe, expect, it } from "vitest";
import { getStatefulSetRevisions } from "../../src/core/revisions.ts";
import { countReplicas, planStatus, statusAfter } from "../../src/core/status.ts";
import { NOW, newPod, newSet, revisionOf } from "../support/fixtures.ts";

describe("countReplicas", () => {
  it("a pod the planner has not created yet (no status) counts nowhere", () => {
    const set = newSet();
    const planned = { metadata: { name: "web-1", labels: { "controller-revision-hash": "r" } } };
    expect(countReplicas([newPod(set, 0, "r"), planned], "r", "r", 0, NOW)).toEqual({ replicas: 1, readyReplicas: 1, availableReplicas: 1, currentReplicas: 1, updatedReplicas: 1, updatedReadyReplicas: 1 });
  });

  it("updatedReadyReplicas: running and ready pods at the update revision only (Kruise)", () => {
    const set = newSet();
    const unready = newPod(set, 1, "upd");
    unready.status = { ...unready.status, conditions: unready.status?.conditions?.map((c) => (c.type === "Ready" ? { ...c, status: "False" } : c)) };
    const pods = [newPod(set, 0, "upd"), unready, newPod(set, 2, "cur")];
    expect(countReplicas(pods, "cur", "upd", 0, NOW)).toMatchObject({ readyReplicas: 2, updatedReplicas: 2, updatedReadyReplicas: 1, currentReplicas: 1 });
  });
});

describe("completing an update: RollingUpdate only", () => {
  const counts = { replicas: 3, readyReplicas: 3, availableReplicas: 3, currentReplicas: 0, updatedReplicas: 3, updatedReadyReplicas: 3 };
  const at = (strategy: Record<string, unknown>) => {
    const old = newSet({ spec: { updateStrategy: strategy } });
    const next = newSet({ image: "img:2", spec: { updateStrategy: strategy } }, { currentRevision: revisionOf(old).metadata?.name });
    return { next, revs: getStatefulSetRevisions(next, [revisionOf(old, 1), revisionOf(next, 2)]) };
  };
  it.each<[string, Record<string, unknown>, boolean]>([
    ["RollingUpdate: all updated and ready makes the update revision current", { type: "RollingUpdate" }, true],
    // upstream completeRollingUpdate: OnDelete keeps currentRevision until the user is done.
    ["OnDelete: the current revision stays", { type: "OnDelete" }, false],
  ])("%s", (_, strategy, completes) => {
    const { next, revs } = at(strategy);
    const want = completes ? { currentRevision: revs.updateName, currentReplicas: 3 } : { currentRevision: revs.currentName, currentReplicas: 0 };
    expect(planStatus(next, counts, revs, [], { paused: false, blocked: [] }).status).toMatchObject(want);
    const basis = { observed: counts, currentRevision: revs.currentName, updateRevision: revs.updateName, collisionCount: 0 };
    expect(statusAfter(next, basis, [])).toMatchObject(want);
  });
});
