/**
 * ControllerRevisions (src/core/revisions.ts) after upstream's history package: the revision
 * object, its name, the order revisions sort in, reuse and renumbering, history truncation, and
 * revisionKey / revisionTemplate on whatever JSON a stored revision holds.
 */
import { describe, expect, it } from "vitest";
import type { ControllerRevision } from "../../src/api/k8s.ts";
import { SET_NAME_LABEL } from "../../src/objects/constants.ts";
import { newRevision, resolveRevisions, revisionData, revisionKey, revisionTemplate, truncateHistory } from "../../src/core/revisions.ts";
import { newSet } from "../support/fixtures.ts";

const withImage = (image: string, o: Parameters<typeof newSet>[0] = {}) => newSet({ ...o, image });
const names = (revs: ControllerRevision[]) => revs.map((r) => `${r.metadata?.name}@${r.revision}`);

describe("newRevision", () => {
  it("is an apps/v1 ControllerRevision owned by the set, labelled with the template's labels, the hash and the set", () => {
    const set = newSet({ metadata: { uid: "u1", annotations: { note: "x" } } });
    const r = newRevision(set, 4, 0);
    const hash = r.metadata?.labels?.["controller.kubernetes.io/hash"];
    expect(r).toMatchObject({ apiVersion: "apps/v1", kind: "ControllerRevision", revision: 4, data: revisionData(set) });
    expect(r.metadata).toEqual({
      name: `web-${hash}`,
      namespace: "default",
      labels: { app: "web", "controller.kubernetes.io/hash": hash, [SET_NAME_LABEL]: "web" },
      // upstream's NewControllerRevision copies the parent's annotations.
      annotations: { note: "x" },
      ownerReferences: [expect.objectContaining({ kind: "StatefulSet", name: "web", uid: "u1", controller: true })],
    });
  });

  it("a set without annotations gives a revision without annotations", () => {
    expect(newRevision(newSet(), 1, 0).metadata?.annotations).toBeUndefined();
  });

  it("cuts a long set name to 223 characters before the hash (a name stays within 253)", () => {
    const long = "a".repeat(240);
    const r = newRevision(newSet({ name: long }), 1, 0);
    const hash = r.metadata?.labels?.["controller.kubernetes.io/hash"];
    expect(r.metadata?.name).toBe(`${"a".repeat(223)}-${hash}`);
  });
});

describe("resolveRevisions", () => {
  const a = withImage("img:a");
  const b = withImage("img:b");

  it("sorts revisions by number, then by name", () => {
    const r1 = { ...newRevision(a, 1, 0), metadata: { ...newRevision(a, 1, 0).metadata, name: "web-zz" } };
    const r2 = { ...newRevision(b, 1, 0), metadata: { ...newRevision(b, 1, 0).metadata, name: "web-aa" } };
    const r3 = newRevision(withImage("img:c"), 0, 0);
    const r = resolveRevisions(a, [r1, r2, r3]);
    expect(names(r.revisions).slice(0, 3)).toEqual([`${r3.metadata?.name}@0`, "web-aa@1", "web-zz@1"]);
  });

  it("reuses an older equal revision under the next number, and keeps the list sorted", () => {
    const ra = newRevision(a, 1, 0);
    const rb = newRevision(b, 2, 0);
    const r = resolveRevisions(a, [ra, rb]);
    expect(r.update.metadata?.name).toBe(ra.metadata?.name);
    expect(r.actions).toEqual([{ type: "updateRevisionNumber", name: ra.metadata?.name, revision: 3 }]);
    expect(names(r.revisions)).toEqual([`${rb.metadata?.name}@2`, `${ra.metadata?.name}@3`]);
  });

  it("current is the revision status.currentRevision names, else the update revision", () => {
    const ra = newRevision(a, 1, 0);
    const rb = newRevision(b, 2, 0);
    expect(resolveRevisions({ ...b, status: { currentRevision: ra.metadata?.name } } as typeof b, [ra, rb]).current).toBe(ra);
    expect(resolveRevisions({ ...b, status: { currentRevision: "web-gone" } } as typeof b, [ra, rb]).current).toBe(rb);
    expect(resolveRevisions(b, [ra, rb]).current).toBe(rb);
  });
});

describe("truncateHistory", () => {
  const revs = ["img:1", "img:2", "img:3", "img:4"].map((img, i) => newRevision(withImage(img), i + 1, 0));
  const set = (limit: number) => newSet({ spec: { revisionHistoryLimit: limit } });
  const live = new Set([revs[3].metadata?.name ?? ""]);
  it.each<[string, number, string[]]>([
    ["keeps the limit's count of unused revisions, deleting the oldest", 1, [0, 1].map((i) => revs[i].metadata?.name ?? "")],
    ["exactly at the limit: nothing", 3, []],
    ["below the limit: nothing", 5, []],
    ["limit 0: every unused revision", 0, [0, 1, 2].map((i) => revs[i].metadata?.name ?? "")],
  ])("%s", (_, limit, deleted) => {
    const actions = truncateHistory(set(limit), revs, live);
    expect(actions.map((a) => (a.type === "deleteRevision" ? a.name : a.type))).toEqual(deleted);
  });
  it("names the uid of what it deletes (a precondition)", () => {
    const withUid = revs.map((r, i) => ({ ...r, metadata: { ...r.metadata, uid: `rev-${i}` } }));
    expect(truncateHistory(set(2), withUid, live)).toEqual([{ type: "deleteRevision", name: revs[0].metadata?.name, uid: "rev-0" }]);
  });
});

describe("revisionKey on any JSON", () => {
  it.each<[string, unknown]>([
    ["undefined", undefined],
    ["null", null],
    ["an empty object", {}],
    ["no template", { spec: {} }],
    ["a null template", { spec: { template: null } }],
    ["a pod spec that is a string", { spec: { template: { spec: "x" } } }],
    ["a pod spec that is a list", { spec: { template: { spec: [1] } } }],
    ["volumes that are not a list", { spec: { template: { spec: { containers: [], volumes: 7 } } } }],
    ["a volume that is null", { spec: { template: { spec: { containers: [], volumes: [null] } } } }],
    ["a volume source that is a string", { spec: { template: { spec: { containers: [], volumes: [{ name: "v", configMap: "x", secret: 3 }] } } } }],
  ])("%s: a key, no throw", (_, data) => {
    expect(() => revisionKey(data)).not.toThrow();
  });

  const keyOf = (spec: Record<string, unknown>, metadata: Record<string, unknown> = { labels: { app: "web" } }) =>
    revisionKey({ spec: { template: { metadata, spec: { containers: [{ name: "c", image: "i" }], ...spec } } } });
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ["an empty list and no list (Go omits both)", { tolerations: [] }, {}],
    ["a map of undefined values and no map", { nodeSelector: { zone: undefined } }, {}],
    ["a configMap volume's defaultMode 420 and none", { volumes: [{ name: "v", configMap: { name: "x" } }] }, { volumes: [{ name: "v", configMap: { name: "x", defaultMode: 420 } }] }],
  ])("equates %s", (_, x, y) => {
    expect(keyOf(x)).toBe(keyOf(y));
  });
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    // A template's requests are not defaulted from its limits (only a pod's are).
    ["limits only and limits with equal requests", { containers: [{ name: "c", image: "i", resources: { limits: { cpu: "1" } } }] }, { containers: [{ name: "c", image: "i", resources: { limits: { cpu: "1" }, requests: { cpu: "1" } } }] }],
    ["a list and the same items in an object", { tolerations: [{ key: "k" }] }, { tolerations: { 0: { key: "k" } } }],
  ])("tells %s apart", (_, x, y) => {
    expect(keyOf(x)).not.toBe(keyOf(y));
  });
});

describe("revisionTemplate", () => {
  it("returns the stored template without the $patch directive", () => {
    const set = newSet();
    expect(revisionTemplate(newRevision(set, 1, 0))).toEqual(set.spec.template);
  });
  it.each<[string, unknown]>([
    ["no data", undefined],
    ["data without spec", {}],
    ["spec without template", { spec: {} }],
  ])("%s: an empty template", (_, data) => {
    expect(revisionTemplate({ metadata: { name: "web-x" }, revision: 1, data } as ControllerRevision)).toEqual({});
  });
});
