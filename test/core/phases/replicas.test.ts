import { describe, expect, it } from "vitest";
import type { PodState } from "../fixtures.ts";
import { MAX_CREATES_PER_PLAN, findFirstUnhealthy, newReplica, planReplicas, splitReplicas } from "../../../src/core/replicas.ts";
import { getStatefulSetRevisions } from "../../../src/core/revisions.ts";
import { newPlanContext } from "../../../src/core/plan-context.ts";
import { ordinalRange } from "../../../src/objects/ordinal-range.ts";
import { brief, claimFor, countsOf, ctxFor, makeSet, pod, podsIn, present, revisionOf, slotArray, slotsOf } from "./helpers.ts";

describe("splitReplicas", () => {
  const set = makeSet({ replicas: 2, ordinals: { start: 1 } });
  const rev = revisionOf(set).metadata?.name ?? "";
  it.each([
    ["empty", [], [undefined, undefined], []],
    ["in range and condemned, condemned sorted by ordinal (not by name)", [3, 10, 1, 0, 2], [1, 2], [0, 3, 10]],
    ["a gap stays undefined", [2], [undefined, 2], []],
  ])("%s", (_, ordinals, replicas, condemned) => {
    const slots = splitReplicas(ordinalRange(set.spec), (ordinals as number[]).map((o) => pod(set, o, rev)));
    const ord = (p: { metadata?: { name?: string } } | undefined) => (p ? Number(p.metadata?.name?.split("-").pop()) : undefined);
    expect(slotArray(slots.replicas).map(ord)).toEqual(replicas);
    expect(slots.condemned.map(ord)).toEqual(condemned);
  });
  it("ignores pods whose name has no ordinal", () => {
    const p = pod(set, 1, rev);
    p.metadata = { ...p.metadata, name: "web-x" };
    expect(splitReplicas(ordinalRange(set.spec), [p])).toEqual({ replicas: slotsOf([undefined, undefined]), condemned: [] });
  });
});

describe("findFirstUnhealthy", () => {
  const set = makeSet({ replicas: 2 });
  const rev = revisionOf(set).metadata?.name ?? "";
  it.each([
    ["all healthy", ["ready", "ready"], ["ready"], undefined],
    ["lowest unhealthy replica", ["ready", "running"], ["pending"], "web-1"],
    ["a terminating replica is unhealthy", ["readyTerminating", "running"], [], "web-0"],
    ["replicas before condemned", ["ready", "ready"], ["running"], "web-2"],
  ])("%s", (_, replicaStates, condemnedStates, want) => {
    const replicas = (replicaStates as PodState[]).map((s, i) => pod(set, i, rev, s));
    const condemned = (condemnedStates as PodState[]).map((s, i) => pod(set, 2 + i, rev, s));
    expect(findFirstUnhealthy({ replicas: slotsOf(replicas), condemned })?.metadata?.name).toBe(want);
  });
});

describe("newReplica", () => {
  const old = makeSet();
  const next = makeSet({ template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "img:2" }] } }, updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } } }, {}, { currentRevision: revisionOf(old).metadata?.name });
  const revs = getStatefulSetRevisions(next, [revisionOf(old, 1), revisionOf(next, 2)]);
  const ctx = newPlanContext(next, revs, [], new Date(0));
  it.each([
    [0, "img:1"],
    [1, "img:1"],
    [2, "img:2"],
  ])("ordinal %i below/above partition 2 gets %s", (ordinal, image) => {
    const p = newReplica(ctx, ordinal);
    expect(p.spec?.containers[0].image).toBe(image);
    expect(p.metadata?.labels?.["controller-revision-hash"]).toBe(image === "img:1" ? revs.currentName : revs.updateName);
  });
  it("OnDelete builds every ordinal at the update revision", () => {
    const od = makeSet({ ...next.spec, updateStrategy: { type: "OnDelete" } }, {}, next.status);
    const c = newPlanContext(od, getStatefulSetRevisions(od, [revisionOf(old, 1), revisionOf(od, 2)]), [], new Date(0));
    expect(newReplica(c, 0).spec?.containers[0].image).toBe("img:2");
  });
});

describe("planReplicas", () => {
  const ordered = makeSet();
  const parallel = makeSet({ podManagementPolicy: "Parallel" });
  const claims = (n: number) => Array.from({ length: n }, (_, i) => claimFor(ordered, i));
  it.each([
    ["OrderedReady creates web-0 with its claim and halts", ordered, [null, null, null], 0, ["createClaim www-web-0", "createPod web-0"], { waiting: true, halt: true }],
    ["OrderedReady halts on a running, unready pod", ordered, ["ready", "running", null], 3, [], { waiting: true, halt: true }],
    ["OrderedReady halts on a terminating pod", ordered, ["terminating", null, null], 3, [], { waiting: true, halt: true }],
    ["OrderedReady halts on a terminating pod that still reports Ready", ordered, ["readyTerminating", null, null], 3, [], { waiting: true, halt: true }],
    ["OrderedReady deletes a failed pod and halts", ordered, ["ready", "failed", "ready"], 3, ["deletePod web-1 (failed)"], { waiting: true, halt: true }],
    ["OrderedReady: everything ready, nothing to do", ordered, ["ready", "ready", "ready"], 3, [], { waiting: false, halt: false }],
    ["Parallel creates every missing pod and does not halt", parallel, [null, "running", null], 3, ["createPod web-0", "createPod web-2"], { waiting: false, halt: false }],
    ["Parallel deletes a failed pod and goes on", parallel, ["failed", null, "ready"], 3, ["deletePod web-0 (failed)", "createPod web-1"], { waiting: true, halt: false }],
    ["a pending pod's missing claim is created", ordered, ["pending", null, null], 0, ["createClaim www-web-0"], { waiting: true, halt: true }],
  ])("%s", (_, set, states, claimCount, want, flags) => {
    const ctx = ctxFor(set, claims(claimCount));
    const slots = podsIn(set, states as (PodState | null)[]);
    const r = planReplicas(ctx, slots, countsOf(ctx, present(slots)));
    expect(brief(r.actions)).toEqual(want);
    expect({ waiting: r.waiting, halt: r.halt }).toEqual(flags);
  });

  it("counts a created pod in and a deleted failed pod out", () => {
    const ctx = ctxFor(parallel, claims(3));
    const slots = podsIn(parallel, ["failed", null, "ready"]);
    const before = countsOf(ctx, present(slots));
    const r = planReplicas(ctx, slots, before);
    expect(before).toMatchObject({ replicas: 2, currentReplicas: 2, updatedReplicas: 2 });
    expect(r.counts).toMatchObject({ replicas: 2, currentReplicas: 2, updatedReplicas: 2, readyReplicas: 1 });
  });

  it("returns the slots with the planned pods filled in, leaving its input alone", () => {
    const ctx = ctxFor(parallel, claims(3));
    const slots = podsIn(parallel, [null, "ready", null]);
    const r = planReplicas(ctx, slots, countsOf(ctx, present(slots)));
    expect(slotArray(r.replicas).map((p) => p?.metadata?.name)).toEqual(["web-0", "web-1", "web-2"]);
    expect(slots.pods.get(0)).toBeUndefined();
  });

  it("waits (Parallel: skips) an ordinal whose claim is terminating", () => {
    const terminating = [claimFor(parallel, 0, { deletionTimestamp: "2026-11-21T11:00:00Z" }), claimFor(parallel, 1), claimFor(parallel, 2)];
    const ctx = ctxFor(parallel, terminating);
    const r = planReplicas(ctx, slotsOf([undefined, undefined, undefined]), countsOf(ctx, []));
    expect(brief(r.actions)).toEqual(["createPod web-1", "createPod web-2"]);
    expect(r.waiting).toBe(true);
  });

  it("Parallel creates at most MAX_CREATES_PER_PLAN missing pods, the lowest ordinals, and waits for the rest; existing pods are still visited", () => {
    const set = makeSet({ replicas: MAX_CREATES_PER_PLAN + 100, podManagementPolicy: "Parallel" });
    const ctx = ctxFor(set, []);
    const rev = ctx.revisions.updateName;
    const failed = pod(set, MAX_CREATES_PER_PLAN + 50, rev, "failed");
    const slots = slotsOf(Object.assign(new Array<undefined>(MAX_CREATES_PER_PLAN + 100).fill(undefined), { [MAX_CREATES_PER_PLAN + 50]: failed }));
    const r = planReplicas(ctx, slots, countsOf(ctx, [failed]));
    const created = r.actions.flatMap((a) => (a.type === "createPod" ? [a.pod.metadata?.name] : []));
    expect(created).toEqual(Array.from({ length: MAX_CREATES_PER_PLAN }, (_, i) => `web-${i}`));
    expect(brief(r.actions).filter((a) => a.startsWith("deletePod"))).toEqual([`deletePod web-${MAX_CREATES_PER_PLAN + 50} (failed)`]);
    expect(r.waiting).toBe(true);
    expect(r.replicas.pods.size).toBe(MAX_CREATES_PER_PLAN + 1);
  });

  it("repairs identity labels and claim owners of a ready pod", () => {
    const set = makeSet({ replicas: 1, persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" } });
    const ctx = ctxFor(set, [claimFor(set, 0)]);
    const p = pod(set, 0, ctx.revisions.updateName);
    delete p.metadata?.labels?.["statefulset.kubernetes.io/pod-name"];
    const r = planReplicas(ctx, slotsOf([p]), countsOf(ctx, [p]));
    expect(brief(r.actions)).toEqual(["repairPodLabels web-0", "setClaimOwners www-web-0"]);
  });
});
