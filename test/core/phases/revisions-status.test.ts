import { describe, expect, it } from "vitest";
import { adjustCounts } from "../../../src/core/plan-context.ts";
import { getStatefulSetRevisions, newRevision } from "../../../src/core/revisions.ts";
import { countReplicas, planStatus, statusAfter } from "../../../src/core/status.ts";
import { brief, ctxFor, makeSet, pod, revisionOf } from "./helpers.ts";

const old = makeSet();
/** A rollout neither paused nor blocked (the conditions are computed only with a \`now\`). */
const noRollout = { paused: false, blocked: [] };
const next = makeSet({ template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "img:2" }] } } }, { generation: 2 }, { currentRevision: revisionOf(old).metadata?.name });

describe("getStatefulSetRevisions", () => {
  it.each([
    ["no revisions: plans one; current = update", old, [], 1, true],
    ["the template's revision exists: no writes", old, [revisionOf(old)], 1, false],
    ["changed template: new update revision, current stays", next, [revisionOf(old)], 2, true],
  ])("%s", (_, set, revisions, count, writes) => {
    const r = getStatefulSetRevisions(set, revisions);
    expect(r.revisions).toHaveLength(count);
    expect(r.actions.length > 0).toBe(writes);
    expect(r.updateName).toBe(revisionOf(set).metadata?.name);
    expect(r.updateSet.spec.template.spec.containers[0].image).toBe(set.spec.template.spec.containers[0].image);
    expect(r.currentSet.spec.template.spec.containers[0].image).toBe(set === next ? "img:1" : set.spec.template.spec.containers[0].image);
  });
});

describe("getStatefulSetRevisions and collisionCount", () => {
  it("keeps the stored collisionCount and names a new revision with it", () => {
    const s = makeSet({}, {}, { collisionCount: 2 });
    const r = getStatefulSetRevisions(s, []);
    expect(r.collisionCount).toBe(2);
    expect(r.updateName).toBe(newRevision(s, 1, 2).metadata?.name);
    expect(r.updateName).not.toBe(newRevision(s, 1, 0).metadata?.name);
  });
});

describe("countReplicas", () => {
  it("counts a terminating pod in replicas and readyReplicas, never at a revision (upstream computeReplicaStatus)", () => {
    const rev = revisionOf(old).metadata!.name!;
    const c = countReplicas([pod(old, 0, rev, "ready"), pod(old, 1, rev, "readyTerminating"), pod(old, 2, rev, "terminating")], rev, rev, 0, new Date("2026-11-21T12:00:00Z"));
    expect(c).toEqual({ replicas: 3, readyReplicas: 2, availableReplicas: 2, currentReplicas: 1, updatedReplicas: 1, updatedReadyReplicas: 1 });
  });
});

describe("adjustCounts", () => {
  const ctx = ctxFor(old);
  const base = { replicas: 2, readyReplicas: 2, availableReplicas: 2, currentReplicas: 2, updatedReplicas: 2, updatedReadyReplicas: 2 };
  it.each([
    // The pod is ready: it moves updatedReadyReplicas with updatedReplicas.
    ["+1 at the revision, replicas too", +1, true, { ...base, replicas: 3, currentReplicas: 3, updatedReplicas: 3, updatedReadyReplicas: 3 }],
    ["-1 at the revision only", -1, false, { ...base, currentReplicas: 1, updatedReplicas: 1, updatedReadyReplicas: 1 }],
  ])("%s", (_, delta, alsoReplicas, want) => {
    expect(adjustCounts(base, ctx, pod(old, 0, ctx.revisions.updateName), delta, alsoReplicas)).toEqual(want);
  });
  it("a pod at another revision moves only replicas", () => {
    expect(adjustCounts(base, ctx, pod(old, 0, "elsewhere"), +1, true)).toEqual({ ...base, replicas: 3 });
  });
  it("a pod not ready leaves updatedReadyReplicas", () => {
    expect(adjustCounts(base, ctx, pod(old, 0, ctx.revisions.updateName, "running"), -1)).toEqual({ ...base, currentReplicas: 1, updatedReplicas: 1 });
  });
});

describe("planStatus", () => {
  const counts = { replicas: 3, readyReplicas: 3, availableReplicas: 3, currentReplicas: 0, updatedReplicas: 3, updatedReadyReplicas: 3 };
  it("completes a rolling update once all pods are updated and ready, and writes the change", () => {
    const revs = getStatefulSetRevisions(next, [revisionOf(old, 1), revisionOf(next, 2)]);
    const r = planStatus(next, counts, revs, [], noRollout);
    expect(r.status).toMatchObject({ currentRevision: revs.updateName, currentReplicas: 3, observedGeneration: 2 });
    expect(brief(r.actions)).toEqual(["updateStatus"]);
  });
  it.each([
    ["one pod not ready", { ...counts, readyReplicas: 2 }],
    ["one pod not updated", { ...counts, updatedReplicas: 2 }],
  ])("does not complete the rolling update with %s", (_, c) => {
    const revs = getStatefulSetRevisions(next, [revisionOf(old, 1), revisionOf(next, 2)]);
    const r = planStatus(next, c, revs, [], noRollout);
    expect(r.status).toMatchObject({ currentRevision: revs.currentName, currentReplicas: 0 });
    expect(revs.currentName).not.toBe(revs.updateName);
  });
  it("writes nothing when the status is unchanged", () => {
    const revs = getStatefulSetRevisions(old, [revisionOf(old)]);
    const first = planStatus(old, counts, revs, [], noRollout);
    expect(planStatus({ ...old, status: first.status }, counts, revs, [], noRollout).actions).toEqual([]);
  });
  it("truncates history, keeping revisions pods still use", () => {
    const third = { template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "img:3" }] } } };
    const s = makeSet({ ...third, revisionHistoryLimit: 0 }, {}, { currentRevision: revisionOf(old).metadata?.name });
    const history = [revisionOf(old, 1), revisionOf(next, 2)];
    const revs = getStatefulSetRevisions(s, history);
    const inUse = pod(s, 0, revisionOf(next).metadata?.name ?? "");
    const r = planStatus(s, counts, revs, [inUse], noRollout);
    expect(brief(r.actions).filter((a) => a.startsWith("deleteRevision"))).toEqual([]);
    expect(brief(planStatus(s, counts, revs, [], noRollout).actions).filter((a) => a.startsWith("deleteRevision"))).toEqual([`deleteRevision ${revisionOf(next).metadata?.name}`]);
  });
});

describe("statusAfter", () => {
  const observed = { replicas: 3, readyReplicas: 3, availableReplicas: 3, currentReplicas: 2, updatedReplicas: 1, updatedReadyReplicas: 1 };
  const basis = { observed, currentRevision: "cur", updateRevision: "upd", collisionCount: 0 };
  const created = (rev: string) => ({ type: "createPod" as const, pod: pod(old, 3, rev), reason: "create" as const });
  const deleted = (reason: "failed" | "update", revision: string) => ({ type: "deletePod" as const, name: "web-0", uid: "u", reason, revision });
  it.each([
    ["nothing done: the observed counts", [], { replicas: 3, currentReplicas: 2, updatedReplicas: 1, updatedReadyReplicas: 1 }],
    // A created pod is not ready yet: updatedReadyReplicas stays.
    ["a pod created at the update revision", [created("upd")], { replicas: 4, currentReplicas: 2, updatedReplicas: 2, updatedReadyReplicas: 1 }],
    ["a pod created at the current revision", [created("cur")], { replicas: 4, currentReplicas: 3, updatedReplicas: 1, updatedReadyReplicas: 1 }],
    ["an update deletion leaves replicas, leaves its revision", [deleted("update", "cur")], { replicas: 3, currentReplicas: 1, updatedReplicas: 1, updatedReadyReplicas: 1 }],
    // Never above updatedReplicas, even when the pod counted ready is the one deleted.
    ["a failed pod deleted leaves replicas too", [deleted("failed", "upd")], { replicas: 2, currentReplicas: 2, updatedReplicas: 0, updatedReadyReplicas: 0 }],
    ["a pod at neither revision moves only replicas", [created("other")], { replicas: 4, currentReplicas: 2, updatedReplicas: 1, updatedReadyReplicas: 1 }],
  ])("%s", (_, done, want) => {
    expect(statusAfter(old, basis, done)).toMatchObject({ ...want, currentRevision: "cur", updateRevision: "upd" });
  });
  it("carries the planned conditions, else the stored ones", () => {
    const planned = [{ type: "Progressing", status: "True" as const, reason: "RollingUpdate", message: "m" }];
    expect(statusAfter(old, { ...basis, conditions: planned }, []).conditions).toEqual(planned);
    const stored = makeSet({}, {}, { conditions: [{ type: "Progressing", status: "False", reason: "Done", message: "d" }] });
    expect(statusAfter(stored, basis, []).conditions).toEqual(stored.status?.conditions);
  });
});

describe("statusAfter: a deleted ready pod at the update revision", () => {
  const observed = { replicas: 3, readyReplicas: 2, availableReplicas: 2, currentReplicas: 3, updatedReplicas: 3, updatedReadyReplicas: 2 };
  const basis = { observed, currentRevision: "upd", updateRevision: "upd", collisionCount: 0 };
  it("leaves updatedReadyReplicas (a terminating pod is at no revision)", () => {
    const done = [{ type: "deletePod" as const, name: "web-2", uid: "u", reason: "scaleDown" as const, revision: "upd", ready: true }];
    expect(statusAfter(makeSet({ replicas: 1 }), basis, done)).toMatchObject({ updatedReplicas: 2, updatedReadyReplicas: 1 });
  });
});
