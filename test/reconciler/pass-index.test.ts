/** indexObjects: each set gets exactly the pods, claims and revisions a pass may give it. */
import { describe, expect, it } from "vitest";
import type { ControllerRevision, PersistentVolumeClaim, Pod } from "../../src/api/k8s.ts";
import { SET_NAME_LABEL } from "../../src/objects/constants.ts";
import { indexObjects } from "../../src/reconciler/pass-index.ts";
import { newSet } from "../support/fixtures.ts";

const web = newSet({ metadata: { uid: "uid-web" } });
const webB = newSet({ namespace: "b", metadata: { uid: "uid-web-b" } });
const db = newSet({ name: "db", metadata: { uid: "uid-db" } });

const owner = (uid: string, kind = "StatefulSet") => [{ apiVersion: "apps.ordinal.dev/v1", kind, name: "x", uid, controller: true }];
const podOf = (name: string, ns = "default", ownerUid?: string): Pod => ({ metadata: { name, namespace: ns, ...(ownerUid ? { ownerReferences: owner(ownerUid) } : {}) } });
const revOf = (name: string, ns = "default", ownerUid?: string): ControllerRevision => ({ metadata: { name, namespace: ns, ...(ownerUid ? { ownerReferences: owner(ownerUid) } : {}) }, revision: 1 });
const claimOf = (name: string, ns = "default", set?: string): PersistentVolumeClaim => ({ metadata: { name, namespace: ns, ...(set ? { labels: { [SET_NAME_LABEL]: set } } : {}) } });
const names = (xs: { metadata?: { name?: string } }[]) => xs.map((x) => x.metadata?.name).sort();

describe("indexObjects", () => {
  const pods = [
    podOf("web-0", "default", "uid-web"), // owned
    podOf("renamed", "default", "uid-web"), // owned whatever its name
    podOf("web-3"), // orphan named <set>-<n>: may be adopted
    podOf("web-x"), // orphan without an ordinal: never
    podOf("webby-0"), // orphan of another name
    podOf("web-1", "b"), // orphan in another namespace
    podOf("db-0", "default", "uid-db"),
    podOf("web-2", "default", "uid-db"), // named like web's but owned by db
    podOf("web-7", "b", "uid-web"), // names web's UID from another namespace: nobody's (issue 19.3)
  ];
  const revisions = [revOf("web-r1", "default", "uid-web"), revOf("orphan-r", "default"), revOf("orphan-b", "b"), revOf("db-r1", "default", "uid-db")];
  const claims = [claimOf("data-web-0", "default", "web"), claimOf("data-web-0", "b", "web"), claimOf("data-db-0", "default", "db"), claimOf("unlabelled-web-0", "default")];
  // Built inside each test, so that mutation testing sees which test runs which line.
  const index = () => indexObjects(pods, claims, revisions, []);

  it.each([
    ["web: its own pods (any name) and orphans named web-<n> of its namespace", web, ["renamed", "web-0", "web-3"], ["data-web-0"], ["orphan-r", "web-r1"]],
    ["web in b: only b's orphan pod, claim and revision", webB, ["web-1"], ["data-web-0"], ["orphan-b"]],
    ["db: its own pods, even one named like web's", db, ["db-0", "web-2"], ["data-db-0"], ["db-r1", "orphan-r"]],
  ])("%s", (_, set, wantPods, wantClaims, wantRevisions) => {
    const got = index().objectsFor(set);
    expect(names(got.pods)).toEqual(wantPods);
    expect(names(got.claims)).toEqual(wantClaims);
    expect(names(got.revisions)).toEqual(wantRevisions);
    for (const c of got.claims) expect(c.metadata?.namespace).toBe(set.metadata.namespace);
  });

  it("a set with nothing gets empty lists (but its namespace's orphan revisions)", () => {
    expect(index().objectsFor(newSet({ name: "none", namespace: "c", metadata: { uid: "uid-none" } }))).toEqual({ pods: [], claims: [], imageLists: [], revisions: [] });
    expect(index().objectsFor(newSet({ name: "none", metadata: { uid: "uid-none" } }))).toEqual({ pods: [], claims: [], imageLists: [], revisions: ["orphan-r"].map((n) => revisions.find((r) => r.metadata?.name === n)) });
  });

  it("a pod or revision naming the set's UID under another kind is not the set's", () => {
    const pod: Pod = { metadata: { name: "web-4", namespace: "default", ownerReferences: owner("uid-web", "ImageList") } };
    const rev: ControllerRevision = { metadata: { name: "web-r9", namespace: "default", ownerReferences: owner("uid-web", "ImageList") }, revision: 1 };
    const got = indexObjects([pod], [], [rev], []).objectsFor(web);
    expect(got.pods).toEqual([]);
    expect(got.revisions).toEqual([]);
  });

  it("claims without the set label belong to no set, not even one named \"undefined\"", () => {
    expect(index().objectsFor(newSet({ name: "undefined", metadata: { uid: "uid-undefined" } })).claims).toEqual([]);
  });
});
