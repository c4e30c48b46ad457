/**
 * reconcilePass (src/reconciler/pass.ts) at its edges: a stored set that does not parse (written
 * around the webhook) is reported (InvalidSpec, set-error.ts) with a warning while the other sets
 * are reconciled; without the ImageList CRD (an older install) the sets are still reconciled.
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import type { KubeClient } from "../../src/kube/client.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import type { Logger } from "../../src/log/log.ts";
import { reconcilePass, shardOf } from "../../src/reconciler/pass.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { ordinalCustomResources } from "../../src/sim/fake-apiserver/kinds/custom.ts";
import { NOW, setManifest } from "../support/fixtures.ts";

describe("reconcilePass with a set that does not parse", () => {
  it("skips it with a warning and reconciles the others", async () => {
    const fake = createFakeApiServer({ namespaces: ["default"] });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    fake.seed(setManifest({ name: "good", replicas: 1, policy: "Parallel" }));
    fake.seed(setManifest({ name: "bad", replicas: 1, policy: "Parallel" }));
    const bad = fake.get<{ spec: Record<string, unknown> }>("/apis/apps.ordinal.dev/v1/namespaces/default/statefulsets/bad")!;
    // Many wrong fields: the parse error names each, and is bounded (1,024 characters).
    fake.put({ ...bad, spec: { ...bad.spec, replicas: "three", minReadySeconds: "x", revisionHistoryLimit: "y", serviceName: 5, podManagementPolicy: "Nope", ordinals: "z" } });
    const warnings: Record<string, unknown>[] = [];
    const log: Logger = { info() {}, error() {}, warn: (msg, f) => void warnings.push({ msg, ...f }) };
    const r = await reconcilePass(client, { now: () => NOW, log });
    expect(r.sets.find((s) => s.set === "default/bad")).toEqual({ set: "default/bad", actions: [], error: expect.stringMatching(/^InvalidSpec: spec\.replicas: /), waiting: false });
    expect(r.sets.find((s) => s.set === "default/good")?.error).toBeUndefined();
    const warning = warnings.find((w) => w.msg === "set not planned");
    expect(warning).toMatchObject({ set: "default/bad", reason: "InvalidSpec" });
    expect(typeof warning!.error).toBe("string");
    expect((warning!.error as string).length).toBeLessThanOrEqual(1024);
    expect(warning!.error).toContain("spec.replicas");
    const pods = fake.list<Pod>("/api/v1/namespaces/default/pods").map((p) => p.metadata!.name);
    expect(pods).toEqual(["good-0"]);
  });
});

describe("reconcilePass without the ImageList CRD (an older install)", () => {
  it("reconciles the sets: the ImageLists' 404 is no ImageList", async () => {
    const fake = createFakeApiServer({ namespaces: ["default"], customResources: ordinalCustomResources().filter((c) => c.plural !== "imagelists") });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    fake.seed(setManifest({ name: "web", replicas: 2, policy: "Parallel" }));
    const warnings: unknown[] = [];
    const log: Logger = { info() {}, error() {}, warn: (msg) => void warnings.push(msg) };
    const r = await reconcilePass(client, { now: () => NOW, log });
    expect(r.sets).toHaveLength(1);
    expect(r.sets[0].error).toBeUndefined();
    expect(fake.list<Pod>("/api/v1/namespaces/default/pods").map((p) => p.metadata!.name).sort()).toEqual(["web-0", "web-1"]);
    expect(fake.log.entries.some((e) => e.resource === "imagelists" && e.code === 404)).toBe(true);
  });
});

describe("reconcilePass visits sets in namespace/name order from the Lease's cursor, wrapping around", () => {
  const SETS = ["b/web", "a/web", "c/web", "a/db"];
  /** order returns the sets in the order a pass visits them; `reversed`: the apiserver lists them in reverse key order. */
  const order = async (startAfter: string | undefined, reversed: boolean) => {
    const fake = createFakeApiServer({ namespaces: ["a", "b", "c"] });
    const plain = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    const client: KubeClient = reversed ? { ...plain, list: async (...args: Parameters<KubeClient["list"]>) => (await plain.list(...args)).reverse() as never } : plain;
    for (const id of SETS) {
      const [namespace, name] = id.split("/");
      fake.seed(setManifest({ name, namespace, replicas: 0 }));
    }
    const r = await reconcilePass(client, { now: () => NOW, log: { info() {}, warn() {}, error() {} }, startAfter });
    return r.sets.map((s) => s.set);
  };
  it.each([
    [undefined, ["a/db", "a/web", "b/web", "c/web"]],
    ["", ["a/db", "a/web", "b/web", "c/web"]],
    ["a/db", ["a/web", "b/web", "c/web", "a/db"]],
    ["a/e", ["a/web", "b/web", "c/web", "a/db"]],
    ["b/web", ["c/web", "a/db", "a/web", "b/web"]],
    ["c/web", ["a/db", "a/web", "b/web", "c/web"]],
    ["0", ["a/db", "a/web", "b/web", "c/web"]],
  ] as const)("after %j: %j, whatever the order the apiserver lists them in", async (startAfter, want) => {
    expect(await order(startAfter, false)).toEqual(want);
    expect(await order(startAfter, true)).toEqual(want);
  });
});

describe("reconcilePass with a shard", () => {
  it("makes only the ImageLists of its shard's namespaces so (no set anywhere)", async () => {
    const namespaces = ["ns-0", "ns-1", "ns-2", "ns-3", "ns-4", "ns-5"];
    const fake = createFakeApiServer({ namespaces });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    for (const namespace of namespaces) {
      fake.seed({ apiVersion: "v1", kind: "Pod", metadata: { name: "app", namespace, labels: { app: "x" } }, spec: { nodeName: "node-1", containers: [{ name: "c", image: "app:1" }] } });
      fake.seed({ apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", metadata: { name: "node-1", namespace }, spec: { images: { "nginx:1.25": {} } } });
    }
    const shard = { index: shardOf("ns-0", 2), count: 2 };
    const mine = namespaces.filter((n) => shardOf(n, 2) === shard.index);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.length).toBeLessThan(namespaces.length);
    await reconcilePass(client, { now: () => NOW, log: { info() {}, warn() {}, error() {} }, shard });
    const withPullers = namespaces.filter((n) => fake.list<Pod>(`/api/v1/namespaces/${n}/pods`).length > 1);
    expect(withPullers).toEqual(mine);
  });
});

describe("the lists a pass makes", () => {
  const quiet = { info() {}, warn() {}, error() {} };
  /** passLists seeds `sets` (namespace/name) and ImageLists, runs one pass and returns its lists as `resource path?query`. */
  const passLists = async (sets: string[], o: { shard?: { index: number; count: number }; imageLists?: string[] } = {}) => {
    const namespaces = ["a", "b", "c", "d", "e", "f"];
    const fake = createFakeApiServer({ namespaces });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    for (const id of sets) {
      const [namespace, name] = id.split("/");
      fake.seed(setManifest({ name, namespace, replicas: 1, policy: "Parallel" }));
    }
    for (const namespace of o.imageLists ?? []) {
      // A pod of the namespace on the node (only such a node is pre-warmed); its list carries app= and is left out below.
      fake.seed({ apiVersion: "v1", kind: "Pod", metadata: { name: "app", namespace, labels: { app: "x" } }, spec: { nodeName: "node-1", containers: [{ name: "c", image: "app:1" }] } });
      fake.seed({ apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", metadata: { name: "node-1", namespace }, spec: { images: { "nginx:1.25": {} } } });
    }
    const result = await reconcilePass(client, { now: () => NOW, log: quiet, shard: o.shard });
    const lists = fake.log.entries.filter((e) => e.verb === "list" && !e.query.includes("app%3D")).map((e) => `${e.resource} ${e.path}`);
    const pullersIn = (ns: string) => fake.list<Pod>(`/api/v1/namespaces/${ns}/pods`).filter((p) => p.metadata?.labels?.["ordinal.dev/image-puller"]).length;
    return { fake, client, result, lists, pullersIn, queries: fake.log.entries.filter((e) => e.verb === "list").map((e) => e.query) };
  };
  /** A namespace pair on shard 0 of 2 and one on shard 1. */
  const [s0a, s0b] = ["a", "b", "c", "d", "e", "f"].filter((n) => shardOf(n, 2) === 0);
  const s1 = ["a", "b", "c", "d", "e", "f"].find((n) => shardOf(n, 2) === 1)!;

  it("without a shard: every namespace, so ImageLists where no set lives are made so too", async () => {
    const { lists, pullersIn } = await passLists(["a/web"], { imageLists: ["b"] });
    // The ImageLists, the pods of the sets' namespace, the pullers, then b's pods on node-1 (a puller is due there).
    expect(lists.filter((l) => l.startsWith("pods") || l.startsWith("imagelists"))).toEqual([
      "imagelists /apis/apps.ordinal.dev/v1/imagelists",
      "pods /api/v1/namespaces/a/pods",
      "pods /api/v1/pods",
      "pods /api/v1/namespaces/b/pods",
    ]);
    expect(pullersIn("b")).toBe(1);
  });

  it("a shard lists the namespaces, then only its own namespaces' sets, and the objects of those that have sets", async () => {
    const { lists } = await passLists([`${s0a}/web`, `${s0a}/db`, `${s1}/web`], { shard: { index: 0, count: 2 } });
    const mine = ["a", "b", "c", "d", "e", "f"].filter((n) => shardOf(n, 2) === 0);
    expect(lists.map((l) => l.split(" ")[1])).toEqual([
      "/apis/apps.ordinal.dev/v1/imagelists",
      "/api/v1/namespaces",
      ...mine.flatMap((n) => [
        `/apis/apps.ordinal.dev/v1/namespaces/${n}/statefulsets`,
        // No claim templates in these sets: their claims are never looked up, so not listed.
        ...(n === s0a ? [`/api/v1/namespaces/${n}/pods`, `/apis/apps/v1/namespaces/${n}/controllerrevisions`] : []),
      ]),
    ]);
  });

  it("a shard whose sets live in two namespaces lists each namespace's objects on its own (one namespace held at a time) and converges in both", async () => {
    const { lists, client, fake } = await passLists([`${s0a}/web`, `${s0b}/web`, `${s1}/web`], { shard: { index: 0, count: 2 } });
    expect(lists.filter((l) => !l.startsWith("statefulsets") && !l.startsWith("imagelists") && !l.startsWith("namespaces"))).toEqual(
      [s0a, s0b].flatMap((n) => [`pods /api/v1/namespaces/${n}/pods`, `controllerrevisions /apis/apps/v1/namespaces/${n}/controllerrevisions`]),
    );
    fake.log.clear();
    const again = await reconcilePass(client, { now: () => NOW, log: quiet, shard: { index: 0, count: 2 } });
    expect(again.sets.map((s) => [s.set, s.error])).toEqual([
      [`${s0a}/web`, undefined],
      [`${s0b}/web`, undefined],
    ]);
    expect(fake.log.count({ verb: "create" })).toBe(0);
  });

  it("no set anywhere: the sets and the ImageLists, nothing else", async () => {
    const { lists } = await passLists([], { imageLists: [] });
    expect(lists).toEqual(["statefulsets /apis/apps.ordinal.dev/v1/statefulsets", "imagelists /apis/apps.ordinal.dev/v1/imagelists"]);
  });

  it("every list is paged", async () => {
    const { queries } = await passLists(["a/web"], { imageLists: ["a"] });
    expect(queries.length).toBeGreaterThan(5);
    for (const q of queries) expect(q).toContain("limit=5000");
  });
});
