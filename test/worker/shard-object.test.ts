/**
 * The Durable Object per shard (src/worker/shard-object.ts) on a recording storage: a wake's set
 * is stored as due, with its alarm, before its pass's first apiserver request (issue 36: it
 * survives an isolate that dies mid-pass), unconfirmed, so that request is not held back until the
 * write is durable; the drain's own save and alarm after the pass are confirmed.
 */
import { describe, expect, it } from "vitest";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { ShardReconciler } from "../../src/worker/shard-object.ts";
import { setManifest } from "../support/fixtures.ts";

describe("ShardReconciler.fetch /wake", () => {
  it("stores the woken set and its alarm unconfirmed before the pass's first request, and the drain's after it confirmed", async () => {
    const fake = createFakeApiServer({ namespaces: ["default", "ordinal-system"] });
    fake.seed(setManifest({ replicas: 1, claims: [] }));
    const steps: string[] = [];
    const data = new Map<string, unknown>();
    const storage = {
      get: async <T>(key: string) => data.get(key) as T | undefined,
      put: async (key: string, value: unknown, o?: { allowUnconfirmed?: boolean }) => void (steps.push(`put ${key}${o?.allowUnconfirmed ? " unconfirmed" : ""}`), data.set(key, value)),
      delete: async (key: string) => data.delete(key),
      deleteAll: async () => data.clear(),
      setAlarm: async (_at: number, o?: { allowUnconfirmed?: boolean }) => void steps.push(`alarm${o?.allowUnconfirmed ? " unconfirmed" : ""}`),
      deleteAlarm: async () => {},
    };
    const env = { KUBE_API_URL: "https://apiserver.test", KUBE_TOKEN: "t", RECONCILE_SHARDS: "1", LOG_LEVEL: "error", KUBE_API: { fetch: (i: RequestInfo | URL, init?: RequestInit) => (steps.push(`request ${new URL(String(i)).pathname}`), fake.fetch(i as string, init)) } };
    const object = new ShardReconciler({ storage }, env);
    const res = await object.fetch(new Request("https://shard/wake", { method: "POST", body: JSON.stringify({ index: 0, wake: { namespace: "default", name: "web" } }) }));
    expect(res.status).toBe(204);
    expect(fake.list("/api/v1/namespaces/default/pods")).toHaveLength(1);
    // The object's first event reads the quarantine record; then the wake is stored, then the pass.
    const first = steps.findIndex((s) => s.startsWith("request") && !s.includes("/ordinal-quarantine"));
    // The object's holder identity is made on its first event, confirmed before any request (its Lease is taken with it).
    expect(steps.slice(0, first).filter((s) => !s.startsWith("request") && s !== "put index")).toEqual(["put holder", "put schedule unconfirmed", "alarm unconfirmed"]);
    const writes = steps.filter((s) => !s.startsWith("request") && !s.startsWith("put reading") && s !== "put index");
    expect(writes).toEqual(["put holder", "put schedule unconfirmed", "alarm unconfirmed", "put schedule", "alarm"]);
    // A new instance on the same storage keeps it: no put, the same holder on the Lease.
    const holder = data.get("holder");
    steps.length = 0;
    const again = new ShardReconciler({ storage }, env);
    expect((await again.fetch(new Request("https://shard/wake", { method: "POST", body: JSON.stringify({ index: 0, wake: { namespace: "default", name: "web" } }) }))).status).toBe(204);
    expect(steps.filter((s) => s.startsWith("put holder"))).toEqual([]);
    expect(fake.get<{ spec?: { holderIdentity?: string } }>("/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases/ordinal-reconciler")?.spec?.holderIdentity).toBe(holder);
  });
});
