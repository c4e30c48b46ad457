/** persistentVolumeClaimRetentionPolicy as ownerReferences: which owners a claim should carry. */
import { describe, expect, it } from "vitest";
import type { OwnerReference, PersistentVolumeClaim } from "../../src/api/k8s.ts";
import { setView } from "../../src/core/plan-context.ts";
import { claimOwnersMatch, wantedClaimOwners } from "../../src/core/retention.ts";
import { newClaim, newPod, newSet } from "../support/fixtures.ts";

type R = "Retain" | "Delete";
const setWith = (whenDeleted: R, whenScaled: R) => newSet({ replicas: 2, metadata: { uid: "set-uid" }, spec: { persistentVolumeClaimRetentionPolicy: { whenDeleted, whenScaled } } });
const foreign: OwnerReference = { apiVersion: "v1", kind: "ConfigMap", name: "keep", uid: "other-uid" };
const setRef = { apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet", name: "web", uid: "set-uid" };
const podRef = (i: number, uid: string) => ({ apiVersion: "v1", kind: "Pod", name: `web-${i}`, uid });
const claimWith = (i: number, refs: OwnerReference[]): PersistentVolumeClaim => newClaim(setWith("Retain", "Retain"), i, "www", { ownerReferences: refs });

describe("wantedClaimOwners", () => {
  it.each<[string, R, R, number, OwnerReference[], boolean, unknown[]]>([
    ["Retain/Retain: only the foreign owner stays", "Retain", "Retain", 0, [foreign, setRef], true, [foreign]],
    ["whenDeleted=Delete in range: the set", "Delete", "Retain", 1, [foreign], true, [foreign, setRef]],
    ["whenDeleted=Delete, scaled down but whenScaled=Retain: still the set", "Delete", "Retain", 2, [], true, [setRef]],
    ["whenScaled=Delete, scaled down: the pod, not the set", "Delete", "Delete", 2, [setRef], true, [podRef(2, "pod-2-r")]],
    ["whenScaled=Delete, scaled down, no pod (gone already): nothing to own it", "Retain", "Delete", 2, [foreign], false, [foreign]],
    ["whenScaled=Delete in range: no pod reference", "Retain", "Delete", 1, [podRef(1, "pod-1-r")], true, []],
  ])("%s", (_, whenDeleted, whenScaled, ordinal, refs, withPod, want) => {
    const set = setWith(whenDeleted, whenScaled);
    const pod = withPod ? newPod(set, ordinal, "r") : undefined;
    expect(wantedClaimOwners(setView(set), claimWith(ordinal, refs), pod, ordinal)).toEqual(want);
  });

  it("keeps an existing reference as it is (blockOwnerDeletion and all) rather than writing a new one", () => {
    const set = setWith("Delete", "Delete");
    const existingSet = { ...setRef, blockOwnerDeletion: true };
    expect(wantedClaimOwners(setView(set), claimWith(0, [existingSet]), newPod(set, 0, "r"), 0)).toEqual([existingSet]);
    const existingPod = { ...podRef(3, "pod-3-r"), controller: false };
    expect(wantedClaimOwners(setView(set), claimWith(3, [existingPod]), newPod(set, 3, "r"), 3)).toEqual([existingPod]);
  });
});

describe("claimOwnersMatch", () => {
  const set = setWith("Delete", "Delete");
  it.each<[string, number, OwnerReference[], boolean]>([
    ["in range with the set reference", 0, [setRef], true],
    ["in range without it", 0, [], false],
    ["scaled down with the pod reference only", 3, [podRef(3, "pod-3-r")], true],
    ["scaled down still owned by the set", 3, [setRef, podRef(3, "pod-3-r")], false],
    ["scaled down without the pod reference", 3, [], false],
  ])("%s", (_, ordinal, refs, want) => {
    expect(claimOwnersMatch(setView(set), claimWith(ordinal, refs), newPod(set, ordinal, "r"), ordinal)).toBe(want);
  });
});

describe("wantedClaimOwners: the policy's edges", () => {
  it("no policy is Retain/Retain: a stale set or pod reference goes, foreign ones stay", () => {
    const set = newSet({ replicas: 2, metadata: { uid: "set-uid" } });
    expect(wantedClaimOwners(setView(set), claimWith(3, [foreign, setRef, podRef(3, "pod-3-r")]), newPod(set, 3, "r"), 3)).toEqual([foreign]);
  });
  it.each<[string, number, unknown[]]>([
    // ordinals.start 2, 2 replicas: ordinals 2 and 3 are in range; 0 and 1 were condemned by the start.
    ["below the start ordinal: scaled away, the pod owns it", 0, [podRef(0, "pod-0-r")]],
    ["at the start ordinal: the set owns it", 2, [setRef]],
    ["the last ordinal in range", 3, [setRef]],
    ["past the end", 4, [podRef(4, "pod-4-r")]],
  ])("%s", (_, ordinal, want) => {
    const set = newSet({ replicas: 2, metadata: { uid: "set-uid" }, spec: { ordinals: { start: 2 }, persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Delete" } } });
    expect(wantedClaimOwners(setView(set), claimWith(ordinal, []), newPod(set, ordinal, "r"), ordinal)).toEqual(want);
  });
  it("a claim with no ownerReferences, or no metadata at all, gets just what the policy wants", () => {
    const set = setWith("Delete", "Retain");
    expect(wantedClaimOwners(setView(set), newClaim(set, 0), newPod(set, 0, "r"), 0)).toEqual([setRef]);
    expect(wantedClaimOwners(setView(set), {}, newPod(set, 0, "r"), 0)).toEqual([setRef]);
    expect(claimOwnersMatch(setView(set), {}, newPod(set, 0, "r"), 0)).toBe(false);
    expect(claimOwnersMatch(setView(setWith("Retain", "Retain")), {}, newPod(set, 0, "r"), 0)).toBe(true);
  });
});
