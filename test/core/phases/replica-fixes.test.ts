import { describe, expect, it } from "vitest";
import { createClaims, ensureGateCondition, ensureGateConditions, fixClaimOwners, missingClaims, repairIdentity } from "../../../src/core/replica-fixes.ts";
import { plan } from "../../../src/core/planner.ts";
import { NOW, brief, claimFor, ctxFor, makeSet, pod, revisionOf } from "./helpers.ts";

const set = makeSet();
const rev = revisionOf(set).metadata?.name ?? "";
const setRef = { apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet", name: "web", uid: "set-uid" };

describe("missingClaims", () => {
  it.each([
    ["no claim yet: one to create", [], ["www-web-1"], false],
    ["claim exists: nothing", [claimFor(set, 1)], [], false],
    ["claim terminating: stale", [claimFor(set, 1, { deletionTimestamp: "2026-11-21T11:00:00Z" })], [], true],
  ])("%s", (_, claims, create, stale) => {
    const r = missingClaims(ctxFor(set, claims), 1);
    expect(r.create.map((c) => c.metadata?.name)).toEqual(create);
    expect(r.stale).toBe(stale);
  });
  it("a new claim carries the owners the retention policy wants", () => {
    const s = makeSet({ persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" } });
    expect(missingClaims(ctxFor(s), 0).create[0].metadata?.ownerReferences).toEqual([setRef]);
    expect(missingClaims(ctxFor(set), 0).create[0].metadata).not.toHaveProperty("ownerReferences");
  });
});

describe("createClaims", () => {
  it("one createClaim per claim, for the pod", () => {
    const claims = missingClaims(ctxFor(set), 0).create;
    expect(createClaims(claims, "web-0")).toEqual([{ type: "createClaim", claim: claims[0], pod: "web-0" }]);
  });
});

describe("fixClaimOwners", () => {
  it.each([
    ["Retain/Retain, no refs: nothing", set, [], []],
    ["Retain/Retain, a stray set ref: removed", set, [setRef], [[]]],
  ])("%s", (_, s, refs, want) => {
    const claim = claimFor(s, 0, { ownerReferences: refs });
    const got = fixClaimOwners(ctxFor(s, [claim]), pod(s, 0, rev), 0);
    expect(got.map((a) => (a.type === "setClaimOwners" ? a.ownerReferences : undefined))).toEqual(want);
  });
  it("whenDeleted Delete adds the set reference; a terminating claim is left alone", () => {
    const s = makeSet({ persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" } });
    expect(brief(fixClaimOwners(ctxFor(s, [claimFor(s, 0)]), pod(s, 0, rev), 0))).toEqual(["setClaimOwners www-web-0"]);
    expect(fixClaimOwners(ctxFor(s, [claimFor(s, 0, { deletionTimestamp: "x" })]), pod(s, 0, rev), 0)).toEqual([]);
  });
});

describe("ensureGateCondition", () => {
  it.each([
    ["gate and condition present: nothing", (p: ReturnType<typeof pod>) => p, 0],
    ["condition missing: set True", (p: ReturnType<typeof pod>) => ({ ...p, status: { ...p.status, conditions: [] } }), 1],
    ["no gate: nothing", (p: ReturnType<typeof pod>) => ({ ...p, spec: { ...p.spec, containers: [], readinessGates: [] }, status: { conditions: [] } }), 0],
  ])("%s", (_, edit, n) => {
    expect(ensureGateCondition(edit(pod(set, 0, rev)), NOW)).toHaveLength(n);
  });
  it("leaves a terminating pod alone", () => {
    const p = pod(set, 0, rev, "terminating");
    p.status = { conditions: [] };
    expect(ensureGateCondition(p, NOW)).toEqual([]);
  });
});

describe("repairIdentity", () => {
  it.each([
    ["labels intact: nothing", [], {}],
    ["pod-index lost", ["apps.kubernetes.io/pod-index"], { "apps.kubernetes.io/pod-index": "0" }],
    ["set label lost", ["ordinal.dev/statefulset"], { "ordinal.dev/statefulset": "web" }],
  ])("%s", (_, drop, want) => {
    const p = pod(set, 0, rev);
    for (const k of drop) delete p.metadata?.labels?.[k];
    const got = repairIdentity(set, p, 0);
    expect(got.length ? got[0] : undefined).toEqual(Object.keys(want).length ? { type: "repairPodLabels", name: "web-0", uid: p.metadata?.uid, labels: want } : undefined);
  });
});

describe("ensureGateConditions", () => {
  it("covers every pod, including one OrderedReady scale-down would never reach", () => {
    const s = makeSet({ replicas: 0 });
    const r = revisionOf(s).metadata?.name ?? "";
    const lacking = pod(s, 0, r, "running");
    lacking.status = { ...lacking.status, conditions: (lacking.status?.conditions ?? []).filter((c) => c.type !== "InPlaceUpdateReady") };
    const failed = pod(s, 2, r, "failed");
    expect(brief(ensureGateConditions([lacking, failed], NOW))).toEqual(["setPodCondition web-0"]);
    // Regression (random-runs seed 177): web-2 failed and condemned blocks the scale-down until
    // web-0 is the first unhealthy pod, so web-0 must get its condition to ever become Ready.
    const p = plan({ set: s, pods: [lacking, failed], claims: [], revisions: [revisionOf(s)], now: NOW });
    expect(brief(p.actions)).toContain("setPodCondition web-0");
  });
});
