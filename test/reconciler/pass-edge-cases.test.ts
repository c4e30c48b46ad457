/**
 * reconcilePass (src/reconciler/pass.ts) at its edges: a stored set that does not parse (written
 * around the webhook) is skipped with "invalid spec" and a warning while the other sets are
 * reconciled; without the ImageList CRD (an older install) the sets are still reconciled.
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
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
    // Many wrong fields: the parse error is long, the warning keeps its first 500 characters.
    fake.put({ ...bad, spec: { ...bad.spec, replicas: "three", minReadySeconds: "x", revisionHistoryLimit: "y", serviceName: 5, podManagementPolicy: "Nope", ordinals: "z" } });
    const warnings: Record<string, unknown>[] = [];
    const log: Logger = { info() {}, error() {}, warn: (msg, f) => void warnings.push({ msg, ...f }) };
    const r = await reconcilePass(client, { now: () => NOW, log });
    expect(r.sets.find((s) => s.set === "default/bad")).toEqual({ set: "default/bad", actions: [], error: "invalid spec", waiting: false });
    expect(r.sets.find((s) => s.set === "default/good")?.error).toBeUndefined();
    const warning = warnings.find((w) => w.msg === "set skipped: does not parse");
    expect(warning).toMatchObject({ set: "default/bad" });
    expect(typeof warning!.error).toBe("string");
    expect((warning!.error as string).length).toBe(500);
    expect(warning!.error).toContain("replicas");
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
  const order = async (startAfter: string | undefined) => {
    const fake = createFakeApiServer({ namespaces: ["a", "b", "c"] });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
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
  ] as const)("after %j: %j", async (startAfter, want) => {
    expect(await order(startAfter)).toEqual(want);
  });
});

describe("reconcilePass with a shard", () => {
  it("makes only the ImageLists of its shard's namespaces so (no set anywhere)", async () => {
    const namespaces = ["ns-0", "ns-1", "ns-2", "ns-3", "ns-4", "ns-5"];
    const fake = createFakeApiServer({ namespaces });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    for (const namespace of namespaces)
      fake.seed({ apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", metadata: { name: "node-1", namespace }, spec: { images: { "nginx:1.25": {} } } });
    const shard = { index: shardOf("ns-0", 2), count: 2 };
    const mine = namespaces.filter((n) => shardOf(n, 2) === shard.index);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.length).toBeLessThan(namespaces.length);
    await reconcilePass(client, { now: () => NOW, log: { info() {}, warn() {}, error() {} }, shard });
    const withPullers = namespaces.filter((n) => fake.list<Pod>(`/api/v1/namespaces/${n}/pods`).length > 0);
    expect(withPullers).toEqual(mine);
  });
});
