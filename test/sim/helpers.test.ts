/** Test helpers of the fake (get, list, seed, put, remove, gc) and its PRNG (its speed: test/bench/fake-apiserver.ts). */
import { describe, expect, it } from "vitest";
import { createFakeApiServer, mulberry32, pick, randomInt, uuidFrom } from "../../src/sim/fake-apiserver/index.ts";
import { BASE, CMS, OSTS, PODS, ordinalSet, pod, setup, type Json } from "./helpers.ts";

describe("helpers", () => {
  it("seed creates with the API's rules and returns the stored object", () => {
    const { server } = setup();
    const p = server.seed<Json>(pod("p"));
    expect(p).toMatchObject({ kind: "Pod", metadata: { name: "p", namespace: "default" }, status: { phase: "Pending" } });
    expect(() => server.seed(pod("p"))).toThrow('pods "p" already exists');
    expect(() => server.seed({ apiVersion: "example.com/v1", kind: "Thing", metadata: { name: "t" } })).toThrow(/no resource serves/);
  });

  it("put stores states the API would not produce (status on create, nodeName, deletionTimestamp)", () => {
    const { server } = setup();
    const p = server.put<Json>({ ...pod("p"), metadata: { name: "p", deletionTimestamp: "2026-01-02T03:04:05.9Z", finalizers: ["x.io/y"] }, spec: { nodeName: "n", containers: [{ name: "c", image: "i" }] }, status: { phase: "Running" } });
    expect(p.metadata).toMatchObject({ deletionTimestamp: "2026-01-02T03:04:05Z", namespace: "default" });
    expect(p.metadata.uid).toBeDefined();
    expect(p.status.phase).toBe("Running");
    const again = server.put<Json>({ ...p, status: { phase: "Failed" } });
    expect(again.metadata.uid).toBe(p.metadata.uid);
    expect(Number(again.metadata.resourceVersion)).toBeGreaterThan(Number(p.metadata.resourceVersion));
    expect(server.put<Json>(ordinalSet("web")).metadata.generation).toBe(1);
  });

  it("get and list return copies; list can select", () => {
    const { server } = setup();
    server.seed({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", labels: { x: "1" } } });
    server.seed({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "b" } });
    const a = server.get<{ metadata: { labels: Record<string, string> } }>(`${CMS}/a`)!;
    a.metadata.labels.x = "changed";
    expect(server.get<{ metadata: { labels: Record<string, string> } }>(`${CMS}/a`)!.metadata.labels.x).toBe("1");
    expect(server.list<{ kind: string }>(CMS).map((c) => c.kind)).toEqual(["ConfigMap", "ConfigMap"]);
    expect(server.list(CMS, { labelSelector: "x" })).toHaveLength(1);
    expect(server.get(`${CMS}/zzz`)).toBeUndefined();
    expect(() => server.get(CMS)).toThrow(/object path/);
  });

  it("remove deletes at once (no finalizers, no grace) and garbage collection follows", () => {
    const { server } = setup();
    const owner = server.seed<Json>(ordinalSet("web"));
    server.seed(pod("web-0", { finalizers: ["x.io/f"], ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name: "web", uid: owner.metadata.uid }] }));
    expect(server.remove(`${OSTS}/web`)).toBe(true);
    expect(server.remove(`${OSTS}/web`)).toBe(false);
    const p = server.get<{ metadata: { deletionTimestamp?: string } }>(`${PODS}/web-0`);
    expect(p?.metadata.deletionTimestamp).toBeDefined();
    expect(server.remove(`${PODS}/web-0`)).toBe(true);
    expect(server.list(PODS)).toEqual([]);
  });

  it("custom resource definitions can be given instead of Ordinal's", async () => {
    const server = createFakeApiServer({ customResources: [{ group: "x.io", version: "v1", plural: "widgets", kind: "Widget", namespaced: false, status: false }] });
    const r = await server.fetch(`${BASE}/apis/x.io/v1/widgets`, { method: "POST", body: JSON.stringify({ apiVersion: "x.io/v1", kind: "Widget", metadata: { name: "w" }, status: { a: 1 } }) });
    expect(r.status).toBe(201);
    expect(((await r.json()) as { status: unknown }).status).toEqual({ a: 1 });
    expect((await server.fetch(`${BASE}${OSTS}`)).status).toBe(404);
  });
});

describe("mulberry32", () => {
  it("is deterministic per seed and in [0, 1)", () => {
    const a = mulberry32(5);
    const b = mulberry32(5);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(new Set(xs).size).toBe(1000);
    const r = mulberry32(1);
    expect(Array.from({ length: 200 }, () => randomInt(r, 3)).sort()).toContain(2);
    expect(["a", "b"]).toContain(pick(r, ["a", "b"]));
    expect(uuidFrom(mulberry32(1))).toBe(uuidFrom(mulberry32(1)));
  });

  it("a seeded server gives the same uids", async () => {
    const uid = async () => {
      const s = createFakeApiServer({ seed: 3 });
      return s.seed<Json>(pod("p")).metadata.uid;
    };
    expect(await uid()).toBe(await uid());
  });
});
