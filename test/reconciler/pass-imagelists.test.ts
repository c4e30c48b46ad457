/**
 * The ImageLists in a whole reconcile pass (src/reconciler/pass.ts): sets that pre-warm the same
 * node in one pass plan from each other's writes; entries of deleted sets are released only by a
 * pass that saw every set (not a hinted one, not one stopped early) and the actuator then works
 * from the lists as written; what the actuator did is part of the pass's result; a failing
 * ImageList list fails the pass (only a missing CRD is "no ImageLists").
 */
import { describe, expect, it } from "vitest";
import type { ImageList } from "../../src/api/imagelist.ts";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { PREWARM_ADDED_ANNOTATION, PULLER_LABEL } from "../../src/objects/constants.ts";
import { reconcilePass, type PassOptions } from "../../src/reconciler/pass.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { setManifest } from "../support/fixtures.ts";

const LISTS = "/apis/apps.ordinal.dev/v1/namespaces/default/imagelists";
const OLD = "docker.io/library/nginx:1.25";
const NEW = "docker.io/library/nginx:1.26";

function setup() {
  let clock = Date.parse("2026-11-21T12:00:00Z");
  const now = () => new Date(clock);
  const fake = createFakeApiServer({ now, namespaces: ["default"] });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  const pass = (o: Partial<PassOptions> = {}) => reconcilePass(client, { now, log: silentLogger, ...o });
  const pullers = () => fake.list<Pod>("/api/v1/namespaces/default/pods", { labelSelector: `${PULLER_LABEL}=true` });
  const list = (node: string) => fake.get<ImageList>(`${LISTS}/${node}`);
  const recordOf = (node: string) => JSON.parse(list(node)?.metadata.annotations?.[PREWARM_ADDED_ANNOTATION] ?? "{}") as Record<string, string[]>;
  /** seedList stores node's ImageList with `images`, recorded as added by `sets` (none: a user's list); a pod of the namespace runs on the node. */
  const seedList = (node: string, images: string[], sets?: string[]) => {
    if (!fake.get(`/api/v1/namespaces/default/pods/app-${node}`))
      fake.seed({ apiVersion: "v1", kind: "Pod", metadata: { name: `app-${node}`, namespace: "default" }, spec: { nodeName: node, containers: [{ name: "c", image: "app:1" }] } });
    return fake.seed({
      apiVersion: "apps.ordinal.dev/v1",
      kind: "ImageList",
      metadata: { name: node, namespace: "default", ...(sets ? { annotations: { [PREWARM_ADDED_ANNOTATION]: JSON.stringify(Object.fromEntries(images.map((i) => [i, sets]))) } } : {}) },
      spec: { images: Object.fromEntries(images.map((i) => [i, { alwaysPull: false }])) },
    });
  };
  const seedSet = (name: string, replicas = 0) => fake.seed(setManifest({ name, replicas, policy: "Parallel" }));
  return { fake, client, pass, pullers, list, recordOf, seedList, seedSet, advance: () => (clock += 1000), now };
}

describe("sets that pre-warm the same node in one pass", () => {
  it("plan from each other's writes: the first creates the node's ImageList, the next adds itself to it", async () => {
    const { fake, client, pass, recordOf, advance, now } = setup();
    const kubelet = new KubeletPlayer(client, { namespace: "default", now, nodes: ["node-0", "node-1"] });
    const strategy = { updateStrategy: { type: "RollingUpdate", rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible", imagePrewarm: { parallelism: 1 } } } };
    for (const name of ["a", "b"]) fake.seed(setManifest({ name, replicas: 2, policy: "Parallel", image: "nginx:1.25", spec: strategy }));
    for (let i = 0; i < 6; i++) {
      await pass();
      await kubelet.step();
      advance();
    }
    // a-0 and b-0 run on node-0: both sets update their ordinal 1 first and pre-warm node-0.
    expect(fake.list<Pod>("/api/v1/namespaces/default/pods").map((p) => `${p.metadata!.name} ${p.spec!.nodeName}`)).toEqual(["a-0 node-0", "a-1 node-1", "b-0 node-0", "b-1 node-1"]);
    for (const name of ["a", "b"]) {
      await client.patch(R.statefulSets, "default", name, { spec: { template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx:1.26" }] } } } }, "merge");
    }
    const r = await pass();
    expect(r.sets.map((s) => [s.set, s.error, s.actions.filter((x) => x.includes("ImageList"))])).toEqual([
      ["default/a", undefined, ["createImageList node-0"]],
      ["default/b", undefined, ["patchImageList node-0"]],
    ]);
    expect(recordOf("node-0")).toEqual({ [NEW]: ["a", "b"] });
    // The actuator works from the list as last written: one puller, its status written.
    expect(r.imageListActions).toEqual([expect.stringMatching(/^createPod node-0-pull-/), "updateStatus node-0"]);
    expect(fake.log.count({ code: 409 })).toBe(0);
  });
});

describe("releasing the entries of deleted sets", () => {
  it("a pass that saw every set releases them, and the actuator works from the lists as written", async () => {
    const { pass, pullers, list, seedList, seedSet } = setup();
    seedSet("web");
    seedList("node-0", [OLD], ["gone"]);
    const r = await pass();
    expect(list("node-0")?.spec.images).toEqual({});
    expect(pullers()).toEqual([]);
    expect(r.imageListActions?.some((a) => a.startsWith("createPod"))).toBe(false);
  });

  it("the same without any set: the lists as written, no puller for a released image", async () => {
    const { pass, pullers, list, seedList } = setup();
    seedList("node-0", [OLD], ["gone"]);
    const r = await pass();
    expect(list("node-0")?.spec.images).toEqual({});
    expect(pullers()).toEqual([]);
    expect(r.imageListActions?.some((a) => a.startsWith("createPod"))).toBe(false);
  });

  it.each([
    ["a hinted pass of one set", { namespace: "default", setName: "a" }],
    ["a hinted pass of a set that is gone", { namespace: "default", setName: "gone" }],
  ])("%s leaves the other sets' entries alone", async (_, hint) => {
    const { pass, recordOf, seedList, seedSet } = setup();
    seedSet("a");
    seedSet("b");
    seedList("node-0", [OLD], ["b"]);
    await pass(hint);
    expect(recordOf("node-0")).toEqual({ [OLD]: ["b"] });
  });

  it("a pass stopped before its last set leaves the ImageLists to the pass that finishes", async () => {
    const { pass, pullers, list, seedList, seedSet } = setup();
    seedSet("a");
    seedSet("b");
    seedList("node-0", [OLD], ["gone"]);
    seedList("node-1", [NEW]);
    let calls = 0;
    // Stops before the second set, then would let anything after it go on.
    const r = await pass({ shouldStop: () => ++calls === 2 });
    expect(r.cursor).toBe("default/a");
    expect(r.imageListActions).toBeUndefined();
    expect(pullers()).toEqual([]);
    expect(list("node-0")?.spec.images).toHaveProperty([OLD]);
    const rest = await pass({ startAfter: r.cursor });
    expect(rest.cursor).toBeUndefined();
    expect(list("node-0")?.spec.images).toEqual({});
    expect(pullers().map((p) => p.spec!.nodeName)).toEqual(["node-1"]);
  });
});

describe("what the actuator did is part of the pass's result", () => {
  it("its writes count as actions, and running pullers keep the pass pending", async () => {
    const { pass, seedList, seedSet } = setup();
    seedSet("web");
    await pass();
    expect((await pass()).pending).toBe(false);
    seedList("node-0", [NEW, OLD]);
    const r = await pass();
    expect(r.imageListActions).toHaveLength(3);
    expect(r.actionCount).toBe(3);
    expect(r.pending).toBe(true);
    expect(r.requeueAfterMs).toBe(2000);
  });

  it("a puller pod it cannot create keeps the pass pending (its image backs off)", async () => {
    const { fake, pass, seedList, seedSet } = setup();
    seedSet("web");
    await pass();
    seedList("node-0", [NEW]);
    fake.faults.add({ verb: "create", resource: "pods", fault: "internal" });
    const r = await pass();
    expect(r.imageListActions).toEqual(["updateStatus node-0"]);
    expect(r.actionCount).toBe(1);
    expect(r.pending).toBe(true);
    expect(r.requeueAfterMs).toBeGreaterThan(0);
  });

  it.each([
    ["with sets", true],
    ["without sets", false],
  ])("a failing ImageList list fails the pass (%s): only a missing CRD is no ImageLists", async (_, withSet) => {
    const { fake, pass, seedSet } = setup();
    if (withSet) seedSet("web");
    fake.faults.add({ verb: "list", resource: "imagelists", fault: "internal" });
    await expect(pass()).rejects.toThrow(/500|internal/i);
  });
});

/** delayed returns a client whose requests answer a turn after they are sent (what is sent before another answers is in flight at once), and the send/done events in order. */
function delayed(fake: ReturnType<typeof createFakeApiServer>) {
  const events: string[] = [];
  const fetch: typeof fake.fetch = async (input, init) => {
    const path = new URL(input instanceof Request ? input.url : String(input)).pathname.split("/").pop();
    events.push(`send ${path}`);
    await new Promise((r) => setTimeout(r, 0));
    const res = await fake.fetch(input, init);
    events.push(`done ${path}`);
    return res;
  };
  return { events, client: createKubeClient({ baseUrl: "https://fake", fetch, sleep: async () => {}, maxAttempts: 1 }) };
}

describe("a targeted pass's ImageList read", () => {
  it("is sent beside the set's pods, claims and revisions, not before them (one round trip fewer before it acts)", async () => {
    const { fake, now } = setup();
    fake.seed(setManifest({ name: "web", replicas: 1 }));
    const { events, client } = delayed(fake);
    await reconcilePass(client, { now, log: silentLogger, namespace: "default", setName: "web" });
    expect(events.indexOf("send pods")).toBeLessThan(events.indexOf("done imagelists"));
  });

  it("is skipped when the caller knows the namespace has none and the set does not pre-warm; the result says how many there are when read", async () => {
    const { fake, client, pass, seedList } = setup();
    fake.seed(setManifest({ name: "web", replicas: 1 }));
    const lists = () => fake.log.count({ verb: "list", resource: "imagelists" });
    expect((await pass({ namespace: "default", setName: "web" })).imageListCount).toBe(0);
    fake.log.clear();
    const skipped = await pass({ namespace: "default", setName: "web", hints: { imageListsKnownNone: true } });
    expect([lists(), skipped.imageListCount]).toEqual([0, undefined]);
    // A set that pre-warms reads them whatever the caller knows (it writes them).
    const strategy = { updateStrategy: { type: "RollingUpdate", rollingUpdate: { imagePrewarm: { parallelism: 1 } } } };
    fake.seed(setManifest({ name: "warm", replicas: 1, spec: strategy }));
    seedList("node-a", [OLD]);
    fake.log.clear();
    expect((await reconcilePass(client, { now: () => new Date(), log: silentLogger, namespace: "default", setName: "warm", hints: { imageListsKnownNone: true } })).imageListCount).toBe(1);
    expect(lists()).toBe(1);
  });
});

describe("a targeted pass of a set its caller knows (knownSet)", () => {

  it("reads the set's pods, revisions, claims and ImageLists beside the set, not after it, and says what it found", async () => {
    const { fake, now } = setup();
    fake.seed(setManifest({ name: "web", replicas: 1, claims: ["data"] }));
    const { events, client } = delayed(fake);
    const r = await reconcilePass(client, { now, log: silentLogger, namespace: "default", setName: "web", hints: { knownSet: { withClaims: true, labelKeys: ["app"] } } });
    const setDone = events.indexOf("done statefulsets");
    for (const path of ["pods", "controllerrevisions", "persistentvolumeclaims", "imagelists"]) expect(events.indexOf(`send ${path}`), path).toBeLessThan(setDone);
    // The prefetched pods kept the selector's key: used, not read again (the second list is the new set's orphan lookup).
    expect(fake.log.count({ verb: "list", resource: "pods" })).toBe(2);
    expect(r.seenSet).toEqual({ withClaims: true, labelKeys: ["app"] });
    expect(fake.list("/api/v1/namespaces/default/pods").length).toBe(1);
  });

  // Issue 35: the prefetched objects are projected with the label keys the set read when last seen
  // (objects/projection.ts); a set whose selector or hooks read a key they dropped is read again.
  it("reads again after the set when the prefetched objects lack a label key its selector reads: no pod is released", async () => {
    const { fake, now, client } = setup();
    fake.seed(setManifest({ name: "web", replicas: 1 }));
    await reconcilePass(client, { now, log: silentLogger });
    fake.log.clear();
    const r = await reconcilePass(client, { now, log: silentLogger, namespace: "default", setName: "web", hints: { knownSet: { withClaims: false, labelKeys: [] } } });
    expect(fake.log.count({ verb: "list", resource: "pods" })).toBe(2);
    expect(r.sets[0].actions.filter((a) => a.startsWith("releasePod"))).toEqual([]);
    expect(r.seenSet).toEqual({ withClaims: false, labelKeys: ["app"] });
  });

  it("a set that has claim templates now, known without, has its claims read after it: the plan still sees them", async () => {
    const { fake, now } = setup();
    fake.seed(setManifest({ name: "web", replicas: 1, claims: ["data"] }));
    const { client } = delayed(fake);
    await reconcilePass(client, { now, log: silentLogger, namespace: "default", setName: "web", hints: { knownSet: { withClaims: false } } });
    fake.log.clear();
    const r = await reconcilePass(client, { now, log: silentLogger, namespace: "default", setName: "web", hints: { knownSet: { withClaims: false } } });
    expect(fake.log.count({ verb: "list", resource: "persistentvolumeclaims" })).toBe(1);
    expect(r.actionCount).toBe(0); // its claim data-web-0 was seen: nothing created again
  });
});
