/**
 * spec.reserveOrdinals through plan(): reserved ordinals never get a pod; reserving the ordinal of
 * an existing pod deletes it as a scale-down does (OrderedReady one at a time after creating the
 * replacement ordinal, Parallel at once; claims per whenScaled); the partition counts replicas,
 * not ordinals (Kruise v1.8).
 */
import { describe, expect, it } from "vitest";
import type { Action } from "../../src/core/actions.ts";
import { plan } from "../../src/core/planner.ts";
import { NOW, claimFor, makeSet, pod, revisionOf, type PodState } from "./fixtures.ts";

const summary = (actions: Action[]) =>
  actions.flatMap((a) => {
    if (a.type === "createPod") return [`create ${a.pod.metadata!.name}@${a.pod.metadata!.labels!["controller-revision-hash"]}`];
    if (a.type === "createClaim") return [`claim ${a.claim.metadata!.name}`];
    if (a.type === "deletePod") return [`delete ${a.name} (${a.reason})`];
    if (a.type === "setClaimOwners") return [`owners ${a.name}: ${a.ownerReferences.map((r) => r.kind).join(",")}`];
    return [];
  });

/** The plan of `set` with pods at the given ordinals (state "ready" unless said) at revision `rev`. */
function planWith(set: ReturnType<typeof makeSet>, pods: Record<number, PodState>, rev = revisionOf(set).metadata!.name!, revisions = [revisionOf(set)]) {
  const ordinals = Object.keys(pods).map(Number);
  return plan({ set, pods: ordinals.map((o) => pod(set, o, rev, pods[o])), claims: ordinals.map((o) => claimFor(set, o)), revisions, now: NOW });
}

describe("plan: reserveOrdinals", () => {
  it("never creates a pod at a reserved ordinal (replicas 3, reserve [1]: web-0, web-2, web-3)", () => {
    const set = makeSet({ podManagementPolicy: "Parallel", reserveOrdinals: [1] });
    const rev = revisionOf(set).metadata!.name!;
    expect(summary(planWith(set, {}).actions)).toEqual(["claim www-web-0", `create web-0@${rev}`, "claim www-web-2", `create web-2@${rev}`, "claim www-web-3", `create web-3@${rev}`]);
  });

  it("OrderedReady: two Failed pods at reserved ordinals do not block each other's deletion (random runs, seed 360)", () => {
    // ORDINAL_RANDOM_SEED=360 ORDINAL_RANDOM_RUNS=1 npx vitest run test/reconciler/random-runs.test.ts: the
    // test reserved "0-2" while web-0 and web-2 had failed; the highest condemned (web-2) waited to be
    // Running and Ready as it was not the first unhealthy pod (web-0), which waited its turn: never converged.
    const set = makeSet({ replicas: 4, reserveOrdinals: ["0-2"] });
    const failed = planWith(set, { 0: "failed", 1: "ready", 2: "failed", 3: "ready", 4: "ready", 5: "ready", 6: "ready" });
    expect(summary(failed.actions)).toEqual(["delete web-2 (scaleDown)"]);
  });

  it("honours ordinals.start and ranges", () => {
    const set = makeSet({ podManagementPolicy: "Parallel", replicas: 2, ordinals: { start: 5 }, reserveOrdinals: ["5-6", 8] });
    const rev = revisionOf(set).metadata!.name!;
    expect(summary(planWith(set, {}).actions).filter((s) => s.startsWith("create"))).toEqual([`create web-7@${rev}`, `create web-9@${rev}`]);
  });

  it("a reserved range straddling ordinals.start (start 2, reserve \"1-3\") still reserves 2 and 3 (issue 34)", () => {
    const set = makeSet({ podManagementPolicy: "Parallel", replicas: 2, ordinals: { start: 2 }, reserveOrdinals: ["1-3"] });
    const rev = revisionOf(set).metadata!.name!;
    expect(summary(planWith(set, {}).actions).filter((s) => s.startsWith("create"))).toEqual([`create web-4@${rev}`, `create web-5@${rev}`]);
    // Pods at 2 and 3 (made before the reservation) are condemned.
    expect(summary(planWith(set, { 2: "ready", 3: "ready", 4: "ready", 5: "ready" }).actions)).toEqual(["delete web-3 (scaleDown)", "delete web-2 (scaleDown)"]);
  });

  it("OrderedReady: creates the next ordinal first, then deletes the reserved pod once all are Ready", () => {
    const set = makeSet({ reserveOrdinals: [1], persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Delete" } });
    const rev = revisionOf(set).metadata!.name!;
    expect(summary(planWith(set, { 0: "ready", 1: "ready", 2: "ready" }).actions)).toEqual(["claim www-web-3", `create web-3@${rev}`]);
    expect(summary(planWith(set, { 0: "ready", 1: "ready", 2: "ready", 3: "running" }).actions)).toEqual([]);
    // The reserved pod's claim gets the pod as owner (whenScaled Delete: the garbage collector deletes it after the pod).
    expect(summary(planWith(set, { 0: "ready", 1: "ready", 2: "ready", 3: "ready" }).actions)).toEqual(["owners www-web-1: Pod", "delete web-1 (scaleDown)"]);
  });

  it("Parallel: creates the next ordinal and deletes the reserved pod in one plan; Retain leaves its claim alone", () => {
    const set = makeSet({ podManagementPolicy: "Parallel", reserveOrdinals: [1] });
    const rev = revisionOf(set).metadata!.name!;
    expect(summary(planWith(set, { 0: "ready", 1: "ready", 2: "ready" }).actions)).toEqual(["claim www-web-3", `create web-3@${rev}`, "delete web-1 (scaleDown)"]);
  });

  it("counts the reserved pod out of the status once it is gone, and the set is complete", () => {
    const set = makeSet({ reserveOrdinals: [1] }, {}, {});
    const p = planWith(set, { 0: "ready", 2: "ready", 3: "ready" });
    expect(summary(p.actions)).toEqual([]);
    expect(p.status).toMatchObject({ replicas: 3, readyReplicas: 3 });
  });

  describe("partition counts replicas, not ordinals (Kruise v1.8)", () => {
    const old = makeSet({ reserveOrdinals: [1] });
    const oldRev = revisionOf(old);
    const o = oldRev.metadata!.name!;
    const next = (partition: number, extra: Record<string, unknown> = {}) =>
      makeSet(
        {
          reserveOrdinals: [1],
          template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "img:2" }] } },
          updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition, maxUnavailable: 3 } },
          ...extra,
        },
        { generation: 2 },
        { currentRevision: o },
      );
    it("partition 1 keeps web-0 (the lowest replica) and updates web-3 and web-2", () => {
      const set = next(1, { podManagementPolicy: "Parallel" });
      const p = planWith(set, { 0: "ready", 2: "ready", 3: "ready" }, o, [oldRev, revisionOf(set, 2)]);
      expect(summary(p.actions)).toEqual(["delete web-3 (update)", "delete web-2 (update)"]);
    });
    it("partition 2 keeps web-0 and web-2 (ordinal 2 is the second replica, though 2 ≥ partition)", () => {
      const set = next(2);
      const p = planWith(set, { 0: "ready", 2: "ready", 3: "ready" }, o, [oldRev, revisionOf(set, 2)]);
      expect(summary(p.actions)).toEqual(["delete web-3 (update)"]);
    });
    it("a missing replica below the partition is created at the current revision", () => {
      const set = next(2);
      const p = planWith(set, { 0: "ready", 3: "ready" }, o, [oldRev, revisionOf(set, 2)]);
      expect(summary(p.actions)).toEqual(["claim www-web-2", `create web-2@${o}`]);
    });
  });
});
