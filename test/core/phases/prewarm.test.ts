import { describe, expect, it } from "vitest";
import type { ImageList } from "../../../src/api/imagelist.ts";
import type { Pod } from "../../../src/api/k8s.ts";
import type { Action } from "../../../src/core/actions.ts";
import { PREWARM_ADDED_ANNOTATION, PREWARM_CREATED_ANNOTATION } from "../../../src/objects/constants.ts";
import { imageListWrite, readPrewarmRecord } from "../../../src/core/prewarm-record.ts";
import { planPrewarm, prewarmWants, releaseGoneSets } from "../../../src/core/prewarm.ts";
import { getStatefulSetRevisions, revisionTemplate } from "../../../src/core/revisions.ts";
import { makeSet, pod, revisionOf, slotsOf } from "./helpers.ts";

const NOW = new Date("2026-11-21T12:00:00Z");
const IMG2 = "docker.io/library/img:2";
const old = makeSet({ replicas: 4 });
const o = revisionOf(old).metadata?.name ?? "";

interface SetOpts {
  prewarm?: Record<string, unknown> | null;
  paused?: boolean;
  partition?: number;
  maxUnavailable?: number;
  image?: string;
  init?: string;
}
const nextSet = (x: SetOpts = {}) =>
  makeSet(
    {
      replicas: 4,
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "c", image: x.image ?? "img:2" }, { name: "side", image: "sidecar:1" }], ...(x.init ? { initContainers: [{ name: "i", image: x.init }] } : {}) },
      },
      updateStrategy: {
        type: "RollingUpdate",
        rollingUpdate: {
          podUpdatePolicy: "InPlaceIfPossible",
          partition: x.partition ?? 0,
          paused: x.paused ?? false,
          ...(x.maxUnavailable ? { maxUnavailable: x.maxUnavailable } : {}),
          ...(x.prewarm === null ? {} : { imagePrewarm: x.prewarm ?? { parallelism: 1 } }),
        },
      },
    },
    { generation: 2 },
    { currentRevision: o },
  );

/** replicasOf builds pods from "rev[:flag]" specs: rev o|n, flags: updating (gate False), unbound. */
function replicasOf(set: ReturnType<typeof nextSet>, specs: string[]): Pod[] {
  const n = revisionOf(set, 2).metadata?.name ?? "";
  return specs.map((s, i) => {
    const [rev, flag] = s.split(":");
    const p = pod(rev === "n" ? set : old, i, rev === "n" ? n : o, flag === "updating" ? "running" : "ready");
    p.spec!.containers = rev === "n" ? [{ name: "c", image: "img:2" }, { name: "side", image: "sidecar:1" }] : [{ name: "c", image: "img:1" }, { name: "side", image: "sidecar:1" }];
    if (flag !== "unbound") p.spec!.nodeName = `node-${i}`;
    if (flag === "updating") p.status!.conditions = p.status!.conditions!.map((c) => (c.type === "InPlaceUpdateReady" ? { ...c, status: "False" } : c));
    return p;
  });
}

function inputFor(set: ReturnType<typeof nextSet>, specs: string[], imageLists: ImageList[] = []) {
  const revisions = getStatefulSetRevisions(set, [revisionOf(old, 1), revisionOf(set, 2)]);
  const templates = new Map(revisions.revisions.map((r) => [r.metadata?.name ?? "", revisionTemplate(r)]));
  return { set, replicas: slotsOf(replicasOf(set, specs)), updateRevision: revisions.updateName, templates, imageLists, now: NOW };
}

const wantsOf = (w: Map<string, Set<string>>) => Object.fromEntries([...w].map(([k, v]) => [k, [...v].sort()]));

describe("prewarmWants", () => {
  it.each([
    ["not opted in: nothing", { prewarm: null }, ["o", "o", "o", "o"], {}, []],
    ["four old pods, parallelism 1: the pod after the one starting now (web-2)", {}, ["o", "o", "o", "o"], { "node-2": [IMG2] }, [IMG2, "docker.io/library/sidecar:1"]],
    ["parallelism 2: web-2 and web-1", { prewarm: { parallelism: 2 } }, ["o", "o", "o", "o"], { "node-1": [IMG2], "node-2": [IMG2] }, [IMG2, "docker.io/library/sidecar:1"]],
    ["parallelism beyond the pods left: all of them", { prewarm: { parallelism: 9 } }, ["o", "o", "n", "n"], { "node-0": [IMG2] }, [IMG2, "docker.io/library/sidecar:1"]],
    ["web-3 updating in place: it holds the budget, web-2 is next", {}, ["o", "o", "o", "n:updating"], { "node-2": [IMG2] }, [IMG2, "docker.io/library/sidecar:1"]],
    ["maxUnavailable 2: web-3 and web-2 start now, web-1 is next", { maxUnavailable: 2 }, ["o", "o", "o", "o"], { "node-1": [IMG2] }, [IMG2, "docker.io/library/sidecar:1"]],
    ["paused: adds nothing, keeps its entries", { paused: true }, ["o", "o", "o", "o"], {}, [IMG2, "docker.io/library/sidecar:1"]],
    ["a pod not bound to a node is skipped", { prewarm: { parallelism: 1 } }, ["o", "o", "o:unbound", "o"], {}, [IMG2, "docker.io/library/sidecar:1"]],
    ["the partition keeps lower ordinals out", { partition: 2, prewarm: { parallelism: 3 } }, ["o", "o", "o", "o"], { "node-2": [IMG2] }, [IMG2, "docker.io/library/sidecar:1"]],
    ["an init container's new image is wanted too", { init: "busybox:1.36" }, ["o", "o", "o", "o"], { "node-2": ["docker.io/library/busybox:1.36", IMG2] }, ["docker.io/library/busybox:1.36", IMG2, "docker.io/library/sidecar:1"]],
    ["an init image that does not parse is left out", { init: "Bad Ref" }, ["o", "o", "o", "o"], { "node-2": [IMG2] }, [IMG2, "docker.io/library/sidecar:1"]],
    ["the update brings no new image: nothing wanted, its images kept", { image: "img:1" }, ["o", "o", "o", "o"], {}, ["docker.io/library/img:1", "docker.io/library/sidecar:1"]],
    ["rollout done: nothing wanted, nothing kept", {}, ["n", "n", "n", "n"], {}, []],
    ["last pod updating in place: nothing wanted, entries kept until it is done", {}, ["n:updating", "n", "n", "n"], {}, [IMG2, "docker.io/library/sidecar:1"]],
  ])("%s", (_, opts, specs, want, keep) => {
    const got = prewarmWants(inputFor(nextSet(opts as SetOpts), specs as string[]));
    expect(wantsOf(got.want)).toEqual(want);
    expect([...got.keep].sort()).toEqual(keep);
  });

  it.each<[string, (s: ReturnType<typeof nextSet>) => void]>([
    ["OnDelete, imagePrewarm left in rollingUpdate", (s) => void (s.spec.updateStrategy.type = "OnDelete")],
    ["OnDelete without rollingUpdate", (s) => void ((s.spec.updateStrategy.type = "OnDelete"), delete s.spec.updateStrategy.rollingUpdate)],
  ])("%s: wants and keeps nothing", (_, edit) => {
    const set = nextSet();
    edit(set);
    expect(prewarmWants(inputFor(set, ["o", "o", "o", "o"]))).toEqual({ want: new Map(), keep: new Set() });
  });

  it("a set being deleted wants and keeps nothing", () => {
    const set = nextSet();
    set.metadata.deletionTimestamp = "2026-11-21T11:00:00Z";
    expect(prewarmWants(inputFor(set, ["o", "o", "o", "o"]))).toEqual({ want: new Map(), keep: new Set() });
  });
});

const list = (name: string, images: Record<string, { alwaysPull: boolean }>, record?: Record<string, string[]> | string): ImageList => ({
  apiVersion: "apps.ordinal.dev/v1",
  kind: "ImageList",
  metadata: {
    name,
    namespace: "ns",
    resourceVersion: "7",
    ...(record !== undefined ? { annotations: { [PREWARM_ADDED_ANNOTATION]: typeof record === "string" ? record : JSON.stringify(record) } } : {}),
  },
  spec: { images },
});

/** applyWrite returns the ImageList after a writeImageList action (what the apiserver would store). */
function applyWrite(before: ImageList | undefined, a: Action): ImageList {
  if (a.type !== "writeImageList") throw new Error(a.type);
  if (a.create) return { ...a.create, metadata: { ...a.create.metadata, resourceVersion: "1" } };
  const p = a.patch!;
  const images = { ...before!.spec.images };
  for (const [k, v] of Object.entries(p.spec.images)) if (v === null) delete images[k];
  else images[k] = v;
  const annotations = { ...before!.metadata.annotations };
  for (const [k, v] of Object.entries(p.metadata.annotations)) if (v === null) delete annotations[k];
  else annotations[k] = v;
  return { ...before!, metadata: { ...before!.metadata, annotations, resourceVersion: "8" }, spec: { images } };
}

describe("readPrewarmRecord", () => {
  it.each<[string, string | undefined, Record<string, string[]>]>([
    ["no annotation", undefined, {}],
    ["not JSON", "{not json", {}],
    ["null", "null", {}],
    ["a string", '"web"', {}],
    ["an array", '[["web"]]', {}],
    ["a set name instead of a list", '{"img:1":"web"}', {}],
    ["an empty list: not Ordinal's", '{"img:1":[]}', {}],
    ["names that are not strings are left out", '{"img:1":["web",3,null],"img:2":[4]}', { "img:1": ["web"] }],
    ["a record", '{"img:1":["web"],"img:2":["db","web"]}', { "img:1": ["web"], "img:2": ["db", "web"] }],
  ])("%s", (_, record, want) => {
    expect(readPrewarmRecord(list("n", {}, record))).toEqual(new Map(Object.entries(want).map(([k, v]) => [k, new Set(v)])));
  });

  it("no ImageList: empty", () => {
    expect(readPrewarmRecord(undefined)).toEqual(new Map());
  });
});

describe("imageListWrite", () => {
  const want = new Set([IMG2]);
  const none = new Set<string>();
  it.each([
    ["no ImageList: create it, recorded", undefined, want, none, { create: { spec: { images: { [IMG2]: { alwaysPull: false } } }, record: { [IMG2]: ["web"] } } }],
    ["a person's entry under a short name: left alone, not recorded", list("n", { "img:2": { alwaysPull: true } }), want, none, undefined],
    ["Ordinal's entry for another set: this set is recorded too", list("n", { [IMG2]: { alwaysPull: false } }, { [IMG2]: ["db"] }), want, none, { patch: { images: {}, record: { [IMG2]: ["db", "web"] } } }],
    ["already recorded for this set: nothing", list("n", { [IMG2]: { alwaysPull: false } }, { [IMG2]: ["web"] }), want, none, undefined],
    ["rollout done: its entry removed with the record", list("n", { [IMG2]: { alwaysPull: false }, "x:1": { alwaysPull: false } }, { [IMG2]: ["web"] }), none, none, { patch: { images: { [IMG2]: null }, record: null } }],
    ["rollout done, entry shared with db: only the record changes", list("n", { [IMG2]: { alwaysPull: false } }, { [IMG2]: ["db", "web"] }), none, none, { patch: { images: {}, record: { [IMG2]: ["db"] } } }],
    ["kept while the rollout goes on", list("n", { [IMG2]: { alwaysPull: false } }, { [IMG2]: ["web"] }), none, want, undefined],
    ["a record that does not parse: nothing is Ordinal's, nothing removed", list("n", { [IMG2]: { alwaysPull: false } }, "{not json"), none, none, undefined],
    ["Ordinal's entry removed by hand: only the record changes", list("n", {}, { [IMG2]: ["web"] }), none, none, { patch: { images: {}, record: null } }],
    ["an image listed both as Ordinal wrote it and by a person under its short name: Ordinal removes its own", list("n", { "img:2": { alwaysPull: true }, [IMG2]: { alwaysPull: false } }, { [IMG2]: ["web"] }), none, none, { patch: { images: { [IMG2]: null }, record: null } }],
    ["the same, listed in the other order", list("n", { [IMG2]: { alwaysPull: false }, "img:2": { alwaysPull: true } }, { [IMG2]: ["web"] }), none, none, { patch: { images: { [IMG2]: null }, record: null } }],
    ["an entry of a superseded release goes, the new one comes", list("n", { "docker.io/library/img:3": { alwaysPull: false } }, { "docker.io/library/img:3": ["web"] }), want, want, {
      patch: { images: { "docker.io/library/img:3": null, [IMG2]: { alwaysPull: false } }, record: { [IMG2]: ["web"] } },
    }],
  ])("%s", (_, before, w, keep, expected) => {
    const a = imageListWrite("ns", "n", before, "web", w, keep);
    if (!expected) return expect(a).toBeUndefined();
    if (a?.type !== "writeImageList") throw new Error("expected a write");
    if ("create" in expected) {
      expect(a.create?.metadata).toMatchObject({ name: "n", namespace: "ns" });
      expect(a.create?.spec).toEqual(expected.create.spec);
      expect(readPrewarmRecord(a.create)).toEqual(new Map(Object.entries(expected.create.record).map(([k, v]) => [k, new Set(v)])));
      return;
    }
    expect(a.patch?.metadata.resourceVersion).toBe("7");
    expect(a.patch?.spec.images).toEqual(expected.patch.images);
    const rec = a.patch?.metadata.annotations[PREWARM_ADDED_ANNOTATION];
    expect(rec === null ? null : JSON.parse(rec!)).toEqual(expected.patch.record);
  });
});

describe("imageListWrite: the record as written", () => {
  it("keys and set names sorted, whatever order they were read in", () => {
    const before = list("n", { "z.io/x:1": { alwaysPull: false }, "a.io/y:1": { alwaysPull: false } }, '{"z.io/x:1":["db","cache"],"a.io/y:1":["db"]}');
    const a = imageListWrite("ns", "n", before, "web", new Set([IMG2]), new Set());
    expect(a).toEqual({
      type: "writeImageList",
      node: "n",
      patch: { metadata: { resourceVersion: "7", annotations: { [PREWARM_ADDED_ANNOTATION]: `{"a.io/y:1":["db"],"${IMG2}":["web"],"z.io/x:1":["cache","db"]}` } }, spec: { images: { [IMG2]: { alwaysPull: false } } } },
    });
  });

  it("a new ImageList holds every wanted image, recorded for the set", () => {
    const img3 = "docker.io/library/img:3";
    expect(imageListWrite("ns", "node-1", undefined, "web", new Set([img3, IMG2]), new Set())).toEqual({
      type: "writeImageList",
      node: "node-1",
      create: {
        apiVersion: "apps.ordinal.dev/v1",
        kind: "ImageList",
        metadata: { name: "node-1", namespace: "ns", annotations: { [PREWARM_CREATED_ANNOTATION]: "true", [PREWARM_ADDED_ANNOTATION]: `{"${IMG2}":["web"],"${img3}":["web"]}` } },
        spec: { images: { [img3]: { alwaysPull: false }, [IMG2]: { alwaysPull: false } } },
      },
    });
  });
});

describe("planPrewarm", () => {
  it("a whole rollout: adds ahead of each pod's turn, then removes what it added and leaves others' entries", () => {
    const set = nextSet();
    const lists = new Map<string, ImageList>([["node-0", list("node-0", { "img:2": { alwaysPull: false } })]]);
    const step = (specs: string[]) => {
      const actions = planPrewarm(inputFor(set, specs, [...lists.values()]));
      for (const a of actions) if (a.type === "writeImageList") lists.set(a.node, applyWrite(lists.get(a.node), a));
      return actions.map((a) => (a.type === "writeImageList" ? `${a.create ? "create" : "patch"} ${a.node}` : a.type));
    };
    const images = () => Object.fromEntries([...lists].map(([n, l]) => [n, Object.keys(l.spec.images).sort()]));
    expect(step(["o", "o", "o", "o"])).toEqual(["create node-2"]);
    expect(step(["o", "o", "o", "o"])).toEqual([]);
    expect(step(["o", "o", "o", "n:updating"])).toEqual([]);
    expect(step(["o", "o", "n:updating", "n"])).toEqual(["create node-1"]);
    // web-0's node already lists the image (a person's entry under its short name): nothing to add.
    expect(step(["o", "n:updating", "n", "n"])).toEqual([]);
    expect(images()).toEqual({ "node-0": ["img:2"], "node-1": [IMG2], "node-2": [IMG2] });
    expect(step(["n:updating", "n", "n", "n"])).toEqual([]);
    expect(step(["n", "n", "n", "n"])).toEqual(["patch node-1", "patch node-2"]);
    expect(images()).toEqual({ "node-0": ["img:2"], "node-1": [], "node-2": [] });
    expect(step(["n", "n", "n", "n"])).toEqual([]);
  });

  it("creates a missing ImageList in the set's namespace", () => {
    const actions = planPrewarm(inputFor(nextSet(), ["o", "o", "o", "o"]));
    expect(actions.map((a) => (a.type === "writeImageList" ? a.create?.metadata : a.type))).toMatchObject([{ name: "node-2", namespace: "ns" }]);
  });

  it("a set no longer opting in removes its entries", () => {
    const lists = [list("node-2", { [IMG2]: { alwaysPull: false } }, { [IMG2]: ["web"] })];
    const actions = planPrewarm(inputFor(nextSet({ prewarm: null }), ["o", "o", "o", "o"], lists));
    expect(actions).toEqual([
      { type: "writeImageList", node: "node-2", patch: { metadata: { resourceVersion: "7", annotations: { [PREWARM_ADDED_ANNOTATION]: null } }, spec: { images: { [IMG2]: null } } } },
    ]);
  });
});

describe("releaseGoneSets", () => {
  it("drops the records of sets that no longer exist, and the entries only they held; one write per list", () => {
    const lists = [
      list("a", { [IMG2]: { alwaysPull: false }, "x:1": { alwaysPull: false } }, { [IMG2]: ["web", "gone"], "docker.io/library/x:1": ["gone", "old"] }),
      list("b", { [IMG2]: { alwaysPull: false } }, { [IMG2]: ["web"] }),
      list("c", { "y:1": { alwaysPull: false } }),
    ];
    const got = releaseGoneSets(lists, new Set(["ns/web"]));
    expect(got).toEqual([
      {
        namespace: "ns",
        action: {
          type: "writeImageList",
          node: "a",
          patch: { metadata: { resourceVersion: "7", annotations: { [PREWARM_ADDED_ANNOTATION]: JSON.stringify({ [IMG2]: ["web"] }) } }, spec: { images: { "x:1": null } } },
        },
      },
    ]);
    // A set of that name in another namespace does not keep it alive.
    expect(releaseGoneSets([lists[1]], new Set(["other/web"]))).toHaveLength(1);
  });
});
