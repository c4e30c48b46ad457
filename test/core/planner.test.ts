import { describe, expect, it } from "vitest";
import type { ImageList } from "../../src/api/imagelist.ts";
import type { Action } from "../../src/core/actions.ts";
import { PREWARM_ADDED_ANNOTATION } from "../../src/objects/constants.ts";
import { plan, type PlanInput } from "../../src/core/planner.ts";
import { NOW, claimFor, makeSet, pod, revisionOf, type PodState } from "./fixtures.ts";

const summary = (actions: Action[]) =>
  actions
    .filter((a) => a.type !== "event" && a.type !== "updateStatus")
    .map((a) => {
      switch (a.type) {
        case "createPod":
          return `create ${a.pod.metadata!.name}@${a.pod.metadata!.labels!["controller-revision-hash"]}`;
        case "createClaim":
          return `claim ${a.claim.metadata!.name}`;
        case "deletePod":
          return `delete ${a.name} (${a.reason})`;
        case "createRevision":
          return `revision ${a.revision.metadata!.name}`;
        default:
          return "name" in a ? `${a.type} ${a.name}` : (a as Action).type;
      }
    });

function input(set: ReturnType<typeof makeSet>, states: (PodState | null)[], rev?: string, extra: Partial<PlanInput> = {}): PlanInput {
  const r = revisionOf(set);
  const name = rev ?? r.metadata!.name!;
  const pods = states.flatMap((s, i) => (s ? [pod(set, i, name, s)] : []));
  return { set, pods, claims: states.map((_, i) => claimFor(set, i)), revisions: [r], now: NOW, ...extra };
}

describe("plan: scale up", () => {
  const set = makeSet();
  const rev = revisionOf(set).metadata!.name!;
  it.each([
    ["OrderedReady, nothing yet: revision, claim and pod for ordinal 0 only", makeSet(), [], undefined, [`revision ${rev}`, "claim www-web-0", `create web-0@${rev}`]],
    ["OrderedReady waits while web-0 is pending", set, ["pending"], [rev], []],
    ["OrderedReady waits while web-0 is running but not ready", set, ["running"], [rev], []],
    ["OrderedReady creates web-1 (claim first) once web-0 is ready", set, ["ready"], [rev], ["claim www-web-1", `create web-1@${rev}`]],
    ["OrderedReady creates a missing middle pod first", set, ["ready", null, "ready"], [rev], [`create web-1@${rev}`]],
    ["Parallel creates every missing pod", makeSet({ podManagementPolicy: "Parallel" }), [], undefined, ["claim www-web-0", "create web-0", "claim www-web-1", "create web-1", "claim www-web-2", "create web-2"]],
  ])("%s", (_, s, states, withRev, expected) => {
    const i = input(s, states as (PodState | null)[]);
    if (!withRev) {
      i.revisions = [];
      i.claims = [];
    }
    const got = summary(plan(i).actions).map((x) => (s.spec.podManagementPolicy === "Parallel" ? x.replace(/@.*/, "").replace(/^revision.*/, "") : x)).filter(Boolean);
    expect(got).toEqual(expected);
  });

  it("honours ordinals.start", () => {
    const s = makeSet({ ordinals: { start: 5 }, replicas: 2 });
    const r = revisionOf(s).metadata!.name!;
    const p = plan({ set: s, pods: [pod(s, 5, r)], claims: [claimFor(s, 5)], revisions: [revisionOf(s)], now: NOW });
    expect(summary(p.actions)).toEqual(["claim www-web-6", `create web-6@${r}`]);
  });

  it("creates no claim that already exists and never plans a claim deletion", () => {
    const p = plan(input(set, ["ready", null], undefined));
    expect(summary(p.actions)).toEqual([`create web-1@${rev}`]);
    expect(p.actions.some((a) => a.type.toLowerCase().includes("deleteclaim"))).toBe(false);
  });

  it("plans a pending pod's missing claim once, even when its volumes do not match (Parallel)", () => {
    const s = makeSet({ replicas: 1, podManagementPolicy: "Parallel" });
    const p0 = pod(s, 0, revisionOf(s).metadata!.name!, "pending");
    p0.spec!.volumes = [];
    const p = plan({ set: s, pods: [p0], claims: [], revisions: [revisionOf(s)], now: NOW });
    expect(summary(p.actions)).toEqual(["claim www-web-0"]);
  });

  it("waits when a claim of the next pod is terminating", () => {
    const i = input(set, ["ready"]);
    i.claims = [claimFor(set, 0), claimFor(set, 1, { deletionTimestamp: "2026-11-21T11:00:00Z" })];
    expect(summary(plan(i).actions)).toEqual([]);
  });
});

describe("plan: scale down", () => {
  const set = makeSet({ replicas: 1 });
  const rev = revisionOf(set).metadata!.name!;
  it.each([
    ["deletes the highest ordinal first", ["ready", "ready", "ready"], ["delete web-2 (scaleDown)"]],
    ["waits while the highest is terminating", ["ready", "ready", "terminating"], []],
    ["deletes an unhealthy highest pod (first unhealthy exception)", ["ready", "ready", "running"], ["delete web-2 (scaleDown)"]],
    ["deletes a healthy web-2 even while condemned web-1 is unhealthy", ["ready", "running", "ready"], ["delete web-2 (scaleDown)"]],
    ["waits when web-2 is unhealthy but not the first unhealthy pod", ["ready", "running", "running"], []],
    ["waits for replicas to be healthy before deleting", ["running", "ready", "ready"], []],
  ])("OrderedReady %s", (_, states, expected) => {
    expect(summary(plan(input(set, states as PodState[], rev)).actions)).toEqual(expected);
  });

  it("Parallel deletes every condemned pod at once", () => {
    const s = makeSet({ replicas: 1, podManagementPolicy: "Parallel" });
    expect(summary(plan(input(s, ["ready", "ready", "running"])).actions)).toEqual(["delete web-2 (scaleDown)", "delete web-1 (scaleDown)"]);
  });
});

describe("plan: failed pods", () => {
  it("deletes a failed pod and waits (OrderedReady) before recreating it", () => {
    const set = makeSet();
    const p = plan(input(set, ["failed", "ready", "ready"]));
    expect(summary(p.actions)).toEqual(["delete web-0 (failed)"]);
    // One event per action: the executor records RecreatingFailedPod for this deletion.
    expect(p.actions.filter((a) => a.type === "event")).toEqual([]);
  });
  it("recreates the pod once the failed one is gone", () => {
    const set = makeSet();
    const rev = revisionOf(set).metadata!.name!;
    expect(summary(plan(input(set, [null, "ready", "ready"])).actions)).toEqual([`create web-0@${rev}`]);
  });
});

describe("plan: rolling update", () => {
  const old = makeSet();
  const oldRev = revisionOf(old);
  const next = makeSet({ template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "img:2" }] } } }, { generation: 2 }, { currentRevision: oldRev.metadata!.name, collisionCount: 0 });
  const nextRev = revisionOf(next, 2);
  const run = (states: PodState[], revs: string[], setOverride = next) =>
    plan({
      set: setOverride,
      pods: states.map((s, i) => pod(setOverride, i, revs[i], s)),
      claims: states.map((_, i) => claimFor(setOverride, i)),
      revisions: [oldRev, nextRev],
      now: NOW,
    });
  const o = oldRev.metadata!.name!;
  const n = nextRev.metadata!.name!;

  it("plans a new revision for a changed template and deletes the highest old pod", () => {
    const p = plan({ set: next, pods: [0, 1, 2].map((i) => pod(next, i, o)), claims: [0, 1, 2].map((i) => claimFor(next, i)), revisions: [oldRev], now: NOW });
    expect(summary(p.actions)).toEqual([`revision ${n}`, "delete web-2 (update)"]);
    expect(p.status).toMatchObject({ currentRevision: o, updateRevision: n, currentReplicas: 2, updatedReplicas: 0 });
  });
  it("recreates the deleted pod at the update revision", () => {
    const p = plan({ set: next, pods: [0, 1].map((i) => pod(next, i, o)), claims: [0, 1, 2].map((i) => claimFor(next, i)), revisions: [oldRev, nextRev], now: NOW });
    expect(summary(p.actions)).toEqual([`create web-2@${n}`]);
    const created = p.actions.find((a) => a.type === "createPod");
    expect(created?.type === "createPod" && created.pod.spec!.containers[0].image).toBe("img:2");
  });
  it("waits for the updated pod to be healthy before the next", () => {
    expect(summary(run(["ready", "ready", "running"], [o, o, n]).actions)).toEqual([]);
  });
  it("continues with web-1 once web-2 is healthy", () => {
    expect(summary(run(["ready", "ready", "ready"], [o, o, n]).actions)).toEqual(["delete web-1 (update)"]);
  });
  it("respects the partition", () => {
    const part = makeSet({ ...next.spec, updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } } }, { generation: 2 }, next.status);
    expect(summary(run(["ready", "ready", "ready"], [o, o, n], part).actions)).toEqual([]);
    const missing = plan({ set: part, pods: [pod(part, 1, o), pod(part, 2, n)], claims: [0, 1, 2].map((i) => claimFor(part, i)), revisions: [oldRev, nextRev], now: NOW });
    expect(summary(missing.actions)).toEqual([`create web-0@${o}`]);
  });
  it("completes the rollout in the status once all pods are updated and ready", () => {
    const p = run(["ready", "ready", "ready"], [n, n, n]);
    expect(p.status).toMatchObject({ currentRevision: n, updateRevision: n, currentReplicas: 3, updatedReplicas: 3, readyReplicas: 3 });
  });
  it("OnDelete updates nothing", () => {
    const od = makeSet({ ...next.spec, updateStrategy: { type: "OnDelete" } }, { generation: 2 }, next.status);
    expect(summary(run(["ready", "ready", "ready"], [o, o, o], od).actions)).toEqual([]);
    const missing = plan({ set: od, pods: [pod(od, 0, o), pod(od, 2, o)], claims: [0, 1, 2].map((i) => claimFor(od, i)), revisions: [oldRev, nextRev], now: NOW });
    expect(summary(missing.actions)).toEqual([`create web-1@${n}`]);
  });
});

describe("plan: revisions", () => {
  const set = makeSet();
  it("reuses an older equal revision on rollback, renumbering it", () => {
    const r1 = revisionOf(set, 1);
    const other = makeSet({ template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "img:2" }] } } });
    const r2 = revisionOf(other, 2);
    const p = plan({ set, pods: [], claims: [], revisions: [r1, r2], now: NOW });
    expect(p.actions[0]).toEqual({ type: "updateRevisionNumber", name: r1.metadata!.name, revision: 3 });
    expect(p.status.updateRevision).toBe(r1.metadata!.name);
  });
  it("bumps collisionCount when the hashed name is taken by other data", () => {
    const r = revisionOf(set);
    const impostor = { ...r, data: { spec: { template: { different: true } } }, revision: 1 };
    const p = plan({ set, pods: [], claims: [], revisions: [impostor], now: NOW });
    const created = p.actions.find((a) => a.type === "createRevision");
    expect(created?.type === "createRevision" && created.revision.metadata!.name).not.toBe(r.metadata!.name);
    expect(p.status.collisionCount).toBe(1);
  });
  it("truncates history to revisionHistoryLimit, never a revision in use", () => {
    const s = makeSet({ revisionHistoryLimit: 1 });
    const revs = [1, 2, 3, 4].map((n) => revisionOf(makeSet({ template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: `img:${n}` }] } } }), n));
    const current = revisionOf(s, 5);
    const pods = [pod(s, 0, revs[0].metadata!.name!), pod(s, 1, current.metadata!.name!), pod(s, 2, current.metadata!.name!)];
    const p = plan({ set: s, pods, claims: [0, 1, 2].map((i) => claimFor(s, i)), revisions: [...revs, current], now: NOW });
    const deleted = p.actions.filter((a) => a.type === "deleteRevision").map((a) => (a.type === "deleteRevision" ? a.name : ""));
    expect(deleted).toEqual([revs[1].metadata!.name, revs[2].metadata!.name]);
  });
});

describe("plan: ownership, identity and readiness gate", () => {
  const set = makeSet({ replicas: 2 });
  const rev = revisionOf(set).metadata!.name!;
  it("adopts a matching orphan named <set>-<n> and ignores other names", () => {
    const orphan = pod(set, 0, rev);
    orphan.metadata!.ownerReferences = [];
    const stranger = pod(set, 1, rev);
    stranger.metadata!.name = "other-1";
    stranger.metadata!.ownerReferences = [];
    const p = plan({ set, pods: [orphan, stranger], claims: [claimFor(set, 0), claimFor(set, 1)], revisions: [revisionOf(set)], now: NOW });
    expect(summary(p.actions)).toEqual(["adoptPod web-0", `create web-1@${rev}`]);
  });
  it("releases an owned pod that no longer matches the selector", () => {
    const p0 = pod(set, 0, rev);
    const p1 = pod(set, 1, rev);
    p1.metadata!.labels!.app = "other";
    expect(summary(plan({ set, pods: [p0, p1], claims: [claimFor(set, 0), claimFor(set, 1)], revisions: [revisionOf(set)], now: NOW }).actions)).toEqual([
      "releasePod web-1",
      `create web-1@${rev}`,
    ]);
  });
  it("ignores pods another controller owns", () => {
    const p0 = pod(set, 0, rev);
    p0.metadata!.ownerReferences = [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: "someone-else", controller: true }];
    expect(summary(plan({ set, pods: [p0], claims: [], revisions: [revisionOf(set)], now: NOW }).actions)).toEqual(["claim www-web-0", `create web-0@${rev}`]);
  });
  it("repairs lost identity labels", () => {
    const p0 = pod(set, 0, rev);
    delete p0.metadata!.labels!["apps.kubernetes.io/pod-index"];
    const p = plan({ set, pods: [p0, pod(set, 1, rev)], claims: [claimFor(set, 0), claimFor(set, 1)], revisions: [revisionOf(set)], now: NOW });
    expect(p.actions).toContainEqual({ type: "repairPodLabels", name: "web-0", uid: p0.metadata!.uid, labels: { "apps.kubernetes.io/pod-index": "0" } });
  });
  it("sets InPlaceUpdateReady True on a pod lacking it (merged by type: its other conditions are left alone)", () => {
    const p0 = pod(set, 0, rev, "running");
    p0.status!.conditions = p0.status!.conditions!.filter((c) => c.type !== "InPlaceUpdateReady");
    const a = plan({ set, pods: [p0], claims: [claimFor(set, 0)], revisions: [revisionOf(set)], now: NOW }).actions.find((x) => x.type === "setPodCondition");
    expect(a?.type === "setPodCondition" && a.conditions.map((c) => `${c.type}=${c.status}`)).toEqual(["InPlaceUpdateReady=True"]);
  });
});

describe("plan: retention policy", () => {
  it("whenDeleted Delete puts a set reference on new claims", () => {
    const set = makeSet({ replicas: 1, persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" } });
    const c = plan({ set, pods: [], claims: [], revisions: [], now: NOW }).actions.find((a) => a.type === "createClaim");
    expect(c?.type === "createClaim" && c.claim.metadata!.ownerReferences).toEqual([{ apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet", name: "web", uid: "set-uid" }]);
  });
  it("whenScaled Delete points the claim of a condemned pod at the pod before deleting it", () => {
    const set = makeSet({ replicas: 1, persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Delete" } });
    const rev = revisionOf(set).metadata!.name!;
    const p = plan({ set, pods: [pod(set, 0, rev), pod(set, 1, rev)], claims: [claimFor(set, 0), claimFor(set, 1)], revisions: [revisionOf(set)], now: NOW });
    expect(summary(p.actions)).toEqual(["setClaimOwners www-web-1", "delete web-1 (scaleDown)"]);
    const a = p.actions[0];
    expect(a.type === "setClaimOwners" && a.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Pod", name: "web-1", uid: `pod-1-${rev}` }]);
  });
  it("Retain/Retain removes stray references to the set", () => {
    const set = makeSet({ replicas: 1 });
    const rev = revisionOf(set).metadata!.name!;
    const claim = claimFor(set, 0, { ownerReferences: [{ apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet", name: "web", uid: "set-uid" }] });
    const p = plan({ set, pods: [pod(set, 0, rev)], claims: [claim], revisions: [revisionOf(set)], now: NOW });
    expect(p.actions).toContainEqual(expect.objectContaining({ type: "setClaimOwners", name: "www-web-0", ownerReferences: [] }));
  });
});

describe("plan: status", () => {
  it("counts available replicas with minReadySeconds against now", () => {
    const set = makeSet({ minReadySeconds: 600 });
    const rev = revisionOf(set).metadata!.name!;
    const pods = [pod(set, 0, rev, "ready", "2026-11-21T11:00:00Z"), pod(set, 1, rev, "ready", "2026-11-21T11:55:00Z")];
    const p = plan({ set, pods, claims: [claimFor(set, 0), claimFor(set, 1)], revisions: [revisionOf(set)], now: NOW });
    expect(p.status).toMatchObject({ replicas: 2, readyReplicas: 2, availableReplicas: 1, observedGeneration: 1, labelSelector: "app=web" });
    // OrderedReady waits for web-1 to be available before creating web-2.
    expect(summary(p.actions)).toEqual([]);
  });
  it("plans no status write when nothing changed", () => {
    const set = makeSet({ replicas: 1 });
    const first = plan({ set, pods: [pod(set, 0, revisionOf(set).metadata!.name!)], claims: [claimFor(set, 0)], revisions: [revisionOf(set)], now: NOW });
    const again = plan({ ...{ set: { ...set, status: first.status }, pods: [pod(set, 0, revisionOf(set).metadata!.name!)], claims: [claimFor(set, 0)], revisions: [revisionOf(set)], now: NOW } });
    expect(again.actions.filter((a) => a.type === "updateStatus")).toEqual([]);
  });
  it("does nothing but status while the set is being deleted", () => {
    const set = makeSet({}, { deletionTimestamp: "2026-11-21T11:00:00Z" });
    expect(summary(plan({ set, pods: [], claims: [], revisions: [], now: NOW }).actions).filter((a) => !a.startsWith("revision"))).toEqual([]);
  });
  it("waits for nothing while the set is being deleted, even with pods not ready", () => {
    const set = makeSet({}, { deletionTimestamp: "2026-11-21T11:00:00Z" });
    const p = plan(input(set, ["ready", "pending"]));
    expect([summary(p.actions), p.waiting, p.requeueAfterMs]).toEqual([[], false, undefined]);
  });
});

describe("plan: pre-warm", () => {
  it("a set that no longer opts in removes the ImageList entries recorded for it", () => {
    const set = makeSet();
    const img = "docker.io/library/img:2";
    const list: ImageList = {
      apiVersion: "apps.ordinal.dev/v1",
      kind: "ImageList",
      metadata: { name: "node-1", namespace: "ns", resourceVersion: "7", annotations: { [PREWARM_ADDED_ANNOTATION]: JSON.stringify({ [img]: ["web"] }) } },
      spec: { images: { [img]: { alwaysPull: false } } },
    };
    const p = plan(input(set, ["ready", "ready", "ready"], undefined, { imageLists: [list] }));
    expect(p.actions.filter((a) => a.type === "writeImageList")).toEqual([
      { type: "writeImageList", node: "node-1", patch: { metadata: { resourceVersion: "7", annotations: { [PREWARM_ADDED_ANNOTATION]: null } }, spec: { images: { [img]: null } } } },
    ]);
  });
});

describe("plan: updatedReadyReplicas after a deletion", () => {
  // web-0 ready, web-1 not ready, web-2 ready, all at the update revision; scaling to 1 deletes
  // web-2 (ready). A terminating pod is at no revision (countReplicas), so the status written now
  // must be the one the next pass computes with web-2 terminating: one updated ready pod (web-0).
  it("a deleted ready pod leaves updatedReadyReplicas, as it leaves updatedReplicas", () => {
    const set = makeSet({ replicas: 1 });
    const rev = revisionOf(set).metadata!.name!;
    const p = plan(input(set, ["ready", "running", "ready"], rev));
    expect(summary(p.actions)).toEqual(["delete web-2 (scaleDown)"]);
    const next = plan(input(set, ["ready", "running", "readyTerminating"], rev));
    expect(next.status).toMatchObject({ updatedReplicas: 2, updatedReadyReplicas: 1 });
    expect(p.status).toMatchObject({ updatedReplicas: 2, updatedReadyReplicas: 1 });
  });
});

describe("plan: Progressing while scaling with the template unchanged", () => {
  // OrderedReady 3 -> 5, each pass fed the status the one before wrote: the last step (web-4
  // created, then not yet Ready) is still the scale, not a rolling update (nothing rolls).
  it("says Scaling at every step of an OrderedReady scale-up, the last one included, then RolloutComplete", () => {
    let set = makeSet({ replicas: 3 });
    const rev = revisionOf(set).metadata!.name!;
    set = makeSet({ replicas: 5 }, {}, plan(input(set, ["ready", "ready", "ready"], rev)).status);
    const steps: (PodState | null)[][] = [
      ["ready", "ready", "ready", null, null],
      ["ready", "ready", "ready", "running", null],
      ["ready", "ready", "ready", "ready", null],
      ["ready", "ready", "ready", "ready", "running"],
      ["ready", "ready", "ready", "ready", "ready"],
    ];
    const seen = steps.map((states) => {
      const p = plan(input(set, states, rev));
      set = makeSet({ replicas: 5 }, {}, p.status);
      const c = p.status.conditions?.find((x) => x.type === "Progressing");
      return `${summary(p.actions).join(",")} | ${c?.reason}: ${c?.message}`;
    });
    expect(seen).toEqual([
      `create web-3@${rev} | Scaling: scaling from 4 to 5 pods at revision ${rev}`,
      ` | Scaling: scaling from 4 to 5 pods at revision ${rev}`,
      `create web-4@${rev} | Scaling: scaling to 5 pods at revision ${rev}: 4 of 5 ready`,
      ` | Scaling: scaling to 5 pods at revision ${rev}: 4 of 5 ready`,
      ` | RolloutComplete: 5 of 5 pods at revision ${rev}, all ready`,
    ]);
  });
});
