import { describe, expect, it } from "vitest";
import type { PodState } from "../fixtures.ts";
import { findFirstUnhealthy } from "../../../src/core/replicas.ts";
import { planScaleDown } from "../../../src/core/scale-down.ts";
import { brief, claimFor, countsOf, ctxFor, makeSet, pod, revisionOf, slotsOf } from "./helpers.ts";

describe("planScaleDown", () => {
  const ordered = makeSet({ replicas: 1 });
  const parallel = makeSet({ replicas: 1, podManagementPolicy: "Parallel" });
  it.each([
    ["OrderedReady deletes the highest and halts", ordered, ["ready"], ["ready", "ready"], ["deletePod web-2 (scaleDown)"], true],
    ["OrderedReady waits on a terminating pod", ordered, ["ready"], ["ready", "terminating"], [], true],
    ["OrderedReady deletes the first unhealthy pod", ordered, ["ready"], ["ready", "running"], ["deletePod web-2 (scaleDown)"], true],
    ["OrderedReady waits on an unhealthy pod that is not the first unhealthy", ordered, ["ready"], ["running", "running"], [], true],
    // A Failed pod never recovers (phase Failed is terminal): waiting on it would block the scale-down for ever.
    ["OrderedReady deletes a Failed pod that is not the first unhealthy", ordered, ["ready"], ["failed", "failed"], ["deletePod web-2 (scaleDown)"], true],
    ["Parallel deletes every condemned pod, highest first", parallel, ["ready"], ["ready", "running"], ["deletePod web-2 (scaleDown)", "deletePod web-1 (scaleDown)"], false],
    ["Parallel skips a terminating pod and goes on", parallel, ["ready"], ["ready", "terminating"], ["deletePod web-1 (scaleDown)"], false],
    ["nothing condemned: nothing to do", ordered, ["ready"], [], [], false],
  ])("%s", (_, set, replicaStates, condemnedStates, want, halt) => {
    const ctx = ctxFor(set);
    const rev = ctx.revisions.updateName;
    const replicas = (replicaStates as PodState[]).map((s, i) => pod(set, i, rev, s));
    const condemned = (condemnedStates as PodState[]).map((s, i) => pod(set, 1 + i, rev, s));
    const r = planScaleDown(ctx, condemned, findFirstUnhealthy({ replicas: slotsOf(replicas), condemned }), countsOf(ctx, [...replicas, ...condemned]));
    expect(brief(r.actions)).toEqual(want);
    expect(r.halt).toBe(halt);
    expect(r.waiting).toBe(condemned.length > 0);
  });
  it("OrderedReady does not wait on a pod it marked not ready itself to delete it (preDelete markPodNotReady)", () => {
    // Found by the lifecycle random runs, seed 81 (ORDINAL_RANDOM_SEED=81 ORDINAL_RANDOM_RUNS=1 npx vitest
    // run test/reconciler/lifecycle-random-runs.test.ts): pods marked not ready for their recreate
    // (maxUnavailable 2), then the set scaled to 0; the highest waited to be Ready, which only its
    // deletion's end would undo: never converged.
    const set = makeSet({ replicas: 0, lifecycle: { preDelete: { labelsHandler: { "example.io/drain": "true" }, markPodNotReady: true } } });
    const ctx = ctxFor(set);
    const rev = ctx.revisions.updateName;
    const marked = (ordinal: number) => {
      const p = pod(set, ordinal, rev, "running");
      p.metadata!.labels!["example.io/drain"] = "true";
      p.status!.conditions = [
        { type: "Ready", status: "False" },
        { type: "InPlaceUpdateReady", status: "False", reason: "PreparingDelete" },
      ];
      return p;
    };
    const condemned = [pod(set, 0, rev, "ready"), marked(1), marked(2)];
    const r = planScaleDown(ctx, condemned, findFirstUnhealthy({ replicas: slotsOf([]), condemned }), countsOf(ctx, condemned));
    expect(brief(r.actions)).toEqual(["setLifecycleState web-2"]);
    expect(r.halt).toBe(true);
  });

  it("points the claim at the pod (whenScaled Delete) before deleting it", () => {
    const set = makeSet({ replicas: 0, persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Delete" } });
    const ctx = ctxFor(set, [claimFor(set, 0)]);
    const p = pod(set, 0, revisionOf(set).metadata?.name ?? "");
    const r = planScaleDown(ctx, [p], undefined, countsOf(ctx, [p]));
    expect(brief(r.actions)).toEqual(["setClaimOwners www-web-0", "deletePod web-0 (scaleDown)"]);
    expect(r.counts.currentReplicas).toBe(0);
    expect(r.counts.replicas).toBe(1);
  });
});
