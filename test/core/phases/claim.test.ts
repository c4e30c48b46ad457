import { describe, expect, it } from "vitest";
import type { ControllerRevision, Pod } from "../../../src/api/k8s.ts";
import { claimPods, claimRevisions } from "../../../src/core/ownership.ts";
import { brief, makeSet, pod, revisionOf } from "./helpers.ts";

const set = makeSet();
const rev = revisionOf(set).metadata?.name ?? "";
const ours = { apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet", name: "web", uid: "set-uid", controller: true, blockOwnerDeletion: true };
const theirs = { ...ours, uid: "other-uid" };

function podWith(name: string, labels: Record<string, string>, owners: object[] | undefined, deleting = false): Pod {
  const p = pod(set, 0, rev);
  p.metadata = { ...p.metadata, name, labels: { ...labels }, ownerReferences: owners as Pod["metadata"] extends { ownerReferences?: infer R } ? R : never };
  if (deleting) p.metadata.deletionTimestamp = "2026-11-21T11:00:00Z" as unknown as Date;
  return p;
}

describe("claimPods", () => {
  it.each([
    ["owned and matching: kept", "web-0", { app: "web" }, [ours], false, [], ["web-0"]],
    ["matching orphan named <set>-<n>: adopted", "web-3", { app: "web" }, undefined, false, ["adoptPod web-3"], ["web-3"]],
    ["orphan with another name: ignored (isMemberOf)", "webby-0", { app: "web" }, undefined, false, [], []],
    ["orphan of another set with a prefix name: ignored", "web-x-0", { app: "web" }, undefined, false, [], []],
    ["orphan not matching the selector: ignored", "web-1", { app: "db" }, undefined, false, [], []],
    ["terminating orphan: not adopted", "web-1", { app: "web" }, undefined, true, [], []],
    ["owned but no longer matching: released", "web-1", { app: "db" }, [ours], false, ["releasePod web-1"], []],
    ["owned by another controller: ignored", "web-1", { app: "web" }, [theirs], false, [], []],
    ["the set's UID under another kind: ignored", "web-1", { app: "db" }, [{ ...ours, kind: "ImageList" }], false, [], []],
    ["the set's UID under another group: ignored", "web-1", { app: "db" }, [{ ...ours, apiVersion: "apps/v1" }], false, [], []],
    ["the set's UID at another version of its group: owned", "web-1", { app: "web" }, [{ ...ours, apiVersion: "apps.ordinal.dev/v2" }], false, [], ["web-1"]],
  ])("%s", (_, name, labels, owners, deleting, actions, owned) => {
    const r = claimPods(set, [podWith(name, labels, owners, deleting)]);
    expect(brief(r.actions)).toEqual(actions);
    expect(r.owned.map((p) => p.metadata?.name)).toEqual(owned);
  });
  it("an adopted pod comes back owned (controller reference added, others kept)", () => {
    const other = { apiVersion: "v1", kind: "ConfigMap", name: "x", uid: "cm" };
    const r = claimPods(set, [podWith("web-0", { app: "web" }, [other])]);
    expect(r.owned[0].metadata?.ownerReferences).toEqual([other, ours]);
  });
  it("adopts nothing and releases nothing while the set is being deleted", () => {
    const deleting = makeSet({}, { deletionTimestamp: "2026-11-21T11:00:00Z" });
    const r = claimPods(deleting, [podWith("web-0", { app: "web" }, undefined), podWith("web-1", { app: "db" }, [ours])]);
    expect(r.actions).toEqual([]);
    expect(r.owned.map((p) => p.metadata?.name)).toEqual(["web-1"]);
  });
  it("uses the matcher it is given (compiled once per pass)", () => {
    const r = claimPods(set, [podWith("web-0", { app: "web" }, [ours])], () => false);
    expect(brief(r.actions)).toEqual(["releasePod web-0"]);
  });
});

describe("claimRevisions", () => {
  const orphan = (labels: Record<string, string>): ControllerRevision => ({ ...revisionOf(set), metadata: { ...revisionOf(set).metadata, name: "any-name", labels, ownerReferences: [] } });
  it.each([
    ["a matching orphan of any name is adopted", { app: "web" }, ["adoptRevision any-name"]],
    ["a non-matching orphan is ignored", { app: "db" }, []],
  ])("%s", (_, labels, want) => {
    expect(brief(claimRevisions(set, [orphan(labels)]).actions)).toEqual(want);
  });
});

describe("release and adoption write the references upstream's ClaimObject would", () => {
  const other = { apiVersion: "v1", kind: "ConfigMap", name: "x", uid: "cm" };
  it("releasing a pod drops only the set's reference, naming the pod's uid", () => {
    const p = podWith("web-1", { app: "db" }, [other, ours]);
    p.metadata!.uid = "pod-uid";
    expect(claimPods(set, [p]).actions).toEqual([{ type: "releasePod", name: "web-1", uid: "pod-uid", ownerReferences: [other] }]);
  });
  it("releasing a revision is a releaseRevision with the same references", () => {
    const r: ControllerRevision = { ...revisionOf(set), metadata: { ...revisionOf(set).metadata, name: "web-old", uid: "rev-uid", labels: { app: "db" }, ownerReferences: [ours, other] } };
    expect(claimRevisions(set, [r]).actions).toEqual([{ type: "releaseRevision", name: "web-old", uid: "rev-uid", ownerReferences: [other] }]);
  });
  it("adopting a revision names its uid and appends the set's controller reference", () => {
    const r: ControllerRevision = { ...revisionOf(set), metadata: { ...revisionOf(set).metadata, name: "web-orphan", uid: "rev-uid", labels: { app: "web" }, ownerReferences: [other] } };
    expect(claimRevisions(set, [r]).actions).toEqual([{ type: "adoptRevision", name: "web-orphan", uid: "rev-uid", ownerReferences: [other, ours] }]);
  });
});
