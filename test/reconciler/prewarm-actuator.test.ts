/**
 * The ImageList actuator's execution (src/reconciler/prewarm.ts) on the fake apiserver: the puller
 * pods it creates and finds again, the status it writes (and when it does not), what a failed
 * write does, the order of the lists, stopping early, and releaseGoneSets' writes.
 */
import { describe, expect, it } from "vitest";
import type { ImageList } from "../../src/api/imagelist.ts";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import type { Logger } from "../../src/log/log.ts";
import { PREWARM_ADDED_ANNOTATION, PULLER_LABEL } from "../../src/objects/constants.ts";
import { actuateImageLists, releaseGoneSets } from "../../src/reconciler/prewarm.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import type { RequestInfo } from "../../src/sim/faults/request-info.ts";
import { NOW } from "../support/fixtures.ts";

const LISTS = "/apis/apps.ordinal.dev/v1/namespaces/default/imagelists";
const IMG = "docker.io/library/nginx:1.26";
const IMG2 = "docker.io/library/redis:7";

function setup(namespaces = ["default"]) {
  const fake = createFakeApiServer({ namespaces });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  const logged: Record<string, unknown>[] = [];
  const log: Logger = { info: (msg, f) => void logged.push({ msg, ...f }), warn: (msg, f) => void logged.push({ msg, ...f, level: "warn" }), error() {} };
  const requests: string[] = [];
  const nameOf = (r: RequestInfo) => r.name || ((r.body ? JSON.parse(r.body) : {}) as { metadata?: { name?: string } }).metadata?.name || "";
  fake.onRequest((r) => void requests.push(`${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ""} ${r.method === "POST" ? "" : nameOf(r)}`.trim()));
  /**
   * seedList stores the ImageList of `node` with `images` and returns it as the apiserver has it;
   * a pod of the namespace runs on the node (issue 19.2: only such a node is pre-warmed).
   */
  const seedList = (node: string, images: string[], annotations?: Record<string, string>, namespace = "default"): ImageList => {
    if (!fake.get(`/api/v1/namespaces/${namespace}/pods/app-${node}`))
      fake.seed({ apiVersion: "v1", kind: "Pod", metadata: { name: `app-${node}`, namespace }, spec: { nodeName: node, containers: [{ name: "c", image: "app:1" }] } });
    fake.seed({
      apiVersion: "apps.ordinal.dev/v1",
      kind: "ImageList",
      metadata: { name: node, namespace, ...(annotations ? { annotations } : {}) },
      spec: { images: Object.fromEntries(images.map((i) => [i, { alwaysPull: false }])) },
    });
    return fake.get<ImageList>(`/apis/apps.ordinal.dev/v1/namespaces/${namespace}/imagelists/${node}`)!;
  };
  const pullers = () => fake.list<Pod>("/api/v1/namespaces/default/pods", { labelSelector: `${PULLER_LABEL}=true` });
  const opts = { now: () => NOW, log, namespace: "default" };
  return { fake, client, log, logged, requests, seedList, pullers, opts };
}

describe("actuateImageLists", () => {
  it("does nothing, not even a list, without ImageLists", async () => {
    const { client, requests, opts } = setup();
    expect(await actuateImageLists(client, [], opts)).toEqual({ actions: [], errors: 0, pending: false });
    expect(requests).toEqual([]);
  });

  it("creates one puller pod per image on the node, owned by the list, and writes the status", async () => {
    const { fake, client, requests, seedList, pullers, opts, logged } = setup();
    const list = seedList("node-a", [IMG, IMG2]);
    const r = await actuateImageLists(client, [list], opts);
    const pods = pullers();
    expect(pods).toHaveLength(2);
    for (const p of pods) {
      expect(p.spec!.nodeName).toBe("node-a");
      expect(p.metadata!.ownerReferences?.[0]).toMatchObject({ kind: "ImageList", name: "node-a", uid: list.metadata.uid, controller: true });
    }
    // The pullers, then (something to create) the namespace's pods on the node.
    expect(requests).toEqual(["list pods", "list pods", "create pods", "create pods", "patch imagelists/status node-a"]);
    expect(r.errors).toBe(0);
    expect(r.pending).toBe(true);
    expect(r.requeueAfterMs).toBe(2000);
    expect(r.actions.at(-1)).toBe("updateStatus node-a");
    expect([...r.actions].sort()).toEqual([...pods.map((p) => `createPod ${p.metadata!.name}`), "updateStatus node-a"].sort());
    const stored = fake.get<ImageList>(`${LISTS}/node-a`)!;
    expect(stored.status!.observedGeneration).toBe(list.metadata.generation);
    expect(stored.status!.images![IMG].phase).toBe("Pulling");
    expect(stored.status!.images![IMG2].phase).toBe("Pulling");
    expect(stored.status).toMatchObject({ desired: 2, pulled: 0, failed: 0, conditions: [{ type: "NodeEligible", status: "True" }] });
    expect(logged).toEqual([{ msg: "image lists reconciled", actions: r.actions, errors: 0 }]);

    // The next pass finds its pullers (by the list's uid): it creates none and waits on them.
    requests.length = 0;
    const again = await actuateImageLists(client, [fake.get<ImageList>(`${LISTS}/node-a`)!], opts);
    expect(requests.filter((q) => q.startsWith("create"))).toEqual([]);
    expect(again.actions.filter((a) => a.startsWith("createPod"))).toEqual([]);
    expect(again).toMatchObject({ errors: 0, pending: true, requeueAfterMs: 2000 });
    expect(fake.get<ImageList>(`${LISTS}/node-a`)!.status!.images![IMG].phase).toBe("Pulling");
  });

  it("writes the status when the generation was not observed yet, removing images no longer listed", async () => {
    const { fake, client, requests, seedList, opts } = setup();
    const seeded = seedList("node-a", []);
    fake.put({ ...seeded, status: { observedGeneration: 0, images: { [IMG]: { phase: "Pulled", attempts: 0 } } } });
    const list = fake.get<ImageList>(`${LISTS}/node-a`)!;
    const r = await actuateImageLists(client, [list], opts);
    expect(requests).toEqual(["list pods", "patch imagelists/status node-a"]);
    const stored = fake.get<ImageList>(`${LISTS}/node-a`)!;
    expect(stored.status!.observedGeneration).toBe(list.metadata.generation);
    expect(stored.status!.images ?? {}).toEqual({});
    expect(r).toEqual({ actions: ["updateStatus node-a"], errors: 0, pending: false });
    requests.length = 0;
    expect(await actuateImageLists(client, [stored], opts)).toEqual({ actions: [], errors: 0, pending: false });
    expect(requests).toEqual(["list pods"]);
  });

  it("a puller pod that cannot be created makes its image Failed with the apiserver's message", async () => {
    const { fake, client, seedList, opts, logged } = setup();
    const list = seedList("node-a", [IMG]);
    fake.faults.add({ fault: { status: 403, reason: "Forbidden", message: "exceeded quota" }, verb: "create", resource: "pods" });
    const r = await actuateImageLists(client, [list], opts);
    expect(r.errors).toBe(1);
    expect(r.actions).toEqual(["updateStatus node-a"]);
    const failed = logged.find((l) => l.msg === "action failed")!;
    expect(failed).toMatchObject({ imageList: "default/node-a", action: expect.stringMatching(/^createPod /) as unknown });
    expect(String(failed.error)).toContain("exceeded quota");
    const st = fake.get<ImageList>(`${LISTS}/node-a`)!.status!.images![IMG];
    expect(st.phase).toBe("Failed");
    expect(st.message).toContain("exceeded quota");
  });

  it("AlreadyExists on create is no failure: a pod of that name runs", async () => {
    const { fake, client, requests, seedList, pullers, opts } = setup();
    const list = seedList("node-a", [IMG]);
    await actuateImageLists(client, [list], opts);
    const [pod] = pullers();
    // The pod is there but the pass does not see it (not labelled as a puller any more).
    fake.put({ ...pod, metadata: { ...pod.metadata, labels: {} } });
    requests.length = 0;
    const r = await actuateImageLists(client, [fake.get<ImageList>(`${LISTS}/node-a`)!], opts);
    expect(requests).toContain("create pods");
    expect(r.errors).toBe(0);
    expect(r.actions.filter((a) => a.startsWith("createPod"))).toEqual([]);
    expect(fake.get<ImageList>(`${LISTS}/node-a`)!.status!.images![IMG].phase).not.toBe("Failed");
  });

  it("handles the lists in namespace/name order and stops when asked", async () => {
    const { client, requests, seedList, opts, logged } = setup();
    const b = seedList("node-b", [IMG]);
    const a = seedList("node-a", [IMG]);
    await actuateImageLists(client, [b, a], opts);
    expect(requests.filter((q) => q.startsWith("patch"))).toEqual(["patch imagelists/status node-a", "patch imagelists/status node-b"]);
    requests.length = 0;
    const c = seedList("node-c", [IMG]);
    let calls = 0;
    const r = await actuateImageLists(client, [c], { ...opts, shouldStop: () => ++calls > 0 });
    expect(r).toEqual({ actions: [], errors: 0, pending: true });
    expect(requests).toEqual(["list pods"]);
    expect(logged.filter((l) => l.msg === "image lists reconciled")).toHaveLength(1);
  });

  it("orders the lists by namespace first, then name", async () => {
    const { client, requests, seedList, opts } = setup(["default", "apps"]);
    const lists = [seedList("node-a", [IMG]), seedList("node-b", [IMG], undefined, "apps")];
    await actuateImageLists(client, lists, { ...opts, namespace: undefined });
    expect(requests.filter((q) => q.startsWith("patch"))).toEqual(["patch imagelists/status node-b", "patch imagelists/status node-a"]);
  });

  it("writes the observed generation of a list that has nothing to pull", async () => {
    const { fake, client, requests, seedList, opts } = setup();
    const list = seedList("node-a", []);
    expect(list.status).toBeUndefined();
    expect(await actuateImageLists(client, [list], opts)).toEqual({ actions: ["updateStatus node-a"], errors: 0, pending: false });
    expect(requests).toEqual(["list pods", "patch imagelists/status node-a"]);
    expect(fake.get<ImageList>(`${LISTS}/node-a`)!.status).toEqual({ observedGeneration: list.metadata.generation, images: {}, desired: 0, pulled: 0, failed: 0 });
  });

  it("a pod labelled as a puller but controlled by nothing is no list's puller", async () => {
    const { fake, client, seedList, pullers, opts } = setup();
    fake.seed({ apiVersion: "v1", kind: "Pod", metadata: { name: "stray", namespace: "default", labels: { [PULLER_LABEL]: "true" } }, spec: { containers: [{ name: "c", image: IMG }] } });
    const r = await actuateImageLists(client, [seedList("node-a", [IMG])], opts);
    expect(r.errors).toBe(0);
    expect(pullers().filter((p) => p.metadata!.name !== "stray").map((p) => p.spec!.nodeName)).toEqual(["node-a"]);
  });
});

describe("actuateImageLists: deleting pullers", () => {
  /** unlisted returns the setup after one pass started the puller of IMG on node-a and IMG was then taken off the list. */
  async function unlisted() {
    const s = setup();
    s.seedList("node-a", [IMG]);
    await actuateImageLists(s.client, [s.fake.get<ImageList>(`${LISTS}/node-a`)!], s.opts);
    const list = s.fake.get<ImageList>(`${LISTS}/node-a`)!;
    s.fake.put({ ...list, spec: { images: {} } });
    const [pod] = s.pullers();
    return { ...s, pod, list: s.fake.get<ImageList>(`${LISTS}/node-a`)! };
  }

  it("deletes the puller of an image no longer listed: gone at once, not left terminating", async () => {
    const { client, pullers, opts, pod, list } = await unlisted();
    expect(pod.spec!.nodeName).toBe("node-a");
    const r = await actuateImageLists(client, [list], opts);
    expect(r.actions).toContain(`deletePod ${pod.metadata!.name}`);
    expect(pullers()).toEqual([]);
  });

  it("deletes only the pod it saw: one replaced since (another uid) stays", async () => {
    const { fake, client, pullers, opts, pod, list, logged } = await unlisted();
    const path = `/api/v1/namespaces/default/pods/${pod.metadata!.name}`;
    fake.onRequest((r) => {
      if (r.verb !== "delete") return;
      fake.remove(path);
      fake.put({ ...pod, metadata: { ...pod.metadata, uid: "uid-replacement", resourceVersion: undefined } });
    });
    const r = await actuateImageLists(client, [list], opts);
    expect(r.errors).toBe(1);
    expect(logged.find((l) => l.msg === "action failed")).toMatchObject({ action: `deletePod ${pod.metadata!.name}` });
    expect(pullers().map((p) => p.metadata!.uid)).toEqual(["uid-replacement"]);
  });
});

describe("actuateImageLists: the status patch", () => {
  it("patches an image's status key by key: keys the new status lacks are removed", async () => {
    const { fake, client, seedList, opts } = setup();
    const seeded = seedList("node-a", [IMG]);
    const old = { phase: "Failed", attempts: 1, message: "old failure", nextAttemptTime: "2026-11-21T11:00:00Z", lastPullTime: "2026-11-20T11:00:00Z" };
    fake.put({ ...seeded, status: { observedGeneration: seeded.metadata.generation, images: { [IMG]: old } } });
    await actuateImageLists(client, [fake.get<ImageList>(`${LISTS}/node-a`)!], opts);
    const st = fake.get<ImageList>(`${LISTS}/node-a`)!.status!.images![IMG];
    expect(st.phase).toBe("Pulling");
    expect(st).not.toHaveProperty("nextAttemptTime");
  });
});

describe("actuateImageLists: a lost puller", () => {
  it("writes Failed when the puller pod of a Pulling image cannot be created again", async () => {
    const { fake, client, seedList, pullers, opts } = setup();
    seedList("node-a", [IMG]);
    await actuateImageLists(client, [fake.get<ImageList>(`${LISTS}/node-a`)!], opts);
    const [pod] = pullers();
    fake.remove(`/api/v1/namespaces/default/pods/${pod.metadata!.name}`);
    fake.faults.add({ fault: { status: 403, reason: "Forbidden", message: "exceeded quota" }, verb: "create", resource: "pods" });
    const r = await actuateImageLists(client, [fake.get<ImageList>(`${LISTS}/node-a`)!], opts);
    expect(r.errors).toBe(1);
    expect(fake.get<ImageList>(`${LISTS}/node-a`)!.status!.images![IMG]).toMatchObject({ phase: "Failed" });
  });
});

describe("releaseGoneSets", () => {
  it("removes the entries of deleted sets and returns the lists as written; a failure is logged and skipped", async () => {
    const { fake, client, log, logged, seedList } = setup();
    const rec = JSON.stringify({ [IMG]: ["gone"] });
    const a = seedList("node-a", [IMG], { [PREWARM_ADDED_ANNOTATION]: rec });
    const b = seedList("node-b", [IMG], { [PREWARM_ADDED_ANNOTATION]: rec });
    const live = seedList("node-c", [IMG], { [PREWARM_ADDED_ANNOTATION]: JSON.stringify({ [IMG]: ["web"] }) });
    fake.faults.add({ fault: "internal", verb: "patch", when: (r) => r.name === "node-b" });
    const written = await releaseGoneSets(client, [a, b, live], new Set(["default/web"]), log);
    expect(written.map((l) => l.metadata.name)).toEqual(["node-a"]);
    expect(written[0].spec.images).toEqual({});
    expect(fake.get<ImageList>(`${LISTS}/node-a`)!.spec.images).toEqual({});
    expect(fake.get<ImageList>(`${LISTS}/node-b`)!.spec.images).toHaveProperty(IMG);
    expect(fake.get<ImageList>(`${LISTS}/node-c`)!.spec.images).toHaveProperty(IMG);
    expect(logged[0]).toEqual({ msg: "pre-warm entries of deleted sets removed", imageList: "default/node-a" });
    expect(logged[1]).toMatchObject({ msg: "action failed", imageList: "default/node-b", action: "release deleted sets", level: "warn" });
    expect(typeof logged[1].error).toBe("string");
    expect(logged).toHaveLength(2);
  });
});
