/**
 * The Worker's shard runner isolates namespaces as Node's reconcile thread does (issue 35): a pass
 * holds at most its object budget of one namespace (a set over it alone is set aside, OverBudget),
 * and a namespace an invocation died reading (noted in the shard's store while it reads) is
 * quarantined by the next one (NamespaceQuarantined: src/reconciler/namespace-guard.ts). Before,
 * the runner passed no budget and kept no note: both tests fail.
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger } from "../../src/log/log.ts";
import { shardOf } from "../../src/reconciler/pass.ts";
import { QUARANTINE_LEASE } from "../../src/reconciler/quarantine.ts";
import { ShardRunner, type ShardStore } from "../../src/schedule/shard-runner.ts";
import type { ScheduleSnapshot } from "../../src/schedule/model.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

const HOUR = 3_600_000;

/** world returns a shard runner of the only shard over a fake with sets default/web and other/web, and what its store holds. */
function world(o: { objectBudget?: number; died?: string } = {}) {
  const fake = createFakeApiServer({ namespaces: ["default", "other", "ordinal-system"] });
  for (const namespace of ["default", "other"]) fake.seed(setManifest({ namespace, replicas: 3, policy: "Parallel" }));
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  const t = Date.now();
  const stored: { schedule?: ScheduleSnapshot; reading?: string; notes: (string | undefined)[] } = { schedule: { due: {}, nextFullPassAt: t + HOUR }, reading: o.died, notes: [] };
  const store: ShardStore = {
    load: async () => stored.schedule,
    save: async (s) => void (stored.schedule = s),
    setAlarm: async () => {},
    reading: { load: async () => stored.reading, save: async (ns) => void stored.notes.push((stored.reading = ns)) },
  };
  const runner = new ShardRunner({ client, store, log: silentLogger, shard: { index: 0, count: 1 }, leaseNamespace: "ordinal-system", holder: "ordinal-worker", intervalMs: 60_000, budgetMs: HOUR, maxRequests: 900, coalesceMs: 0, objectBudget: o.objectBudget });
  const pods = (ns: string) => fake.list<Pod>(`/api/v1/namespaces/${ns}/pods`).map((p) => p.metadata!.name).sort();
  const condition = (ns: string) =>
    fake.get<{ status?: { conditions?: { type: string; status: string; reason?: string }[] } }>(`/apis/apps.ordinal.dev/v1/namespaces/${ns}/statefulsets/web`)?.status?.conditions?.find((c) => c.type === "ReconcileError");
  return { fake, runner, stored, pods, condition };
}

describe("ShardRunner's object budget", () => {
  it("sets aside a set whose objects are more than the budget (OverBudget) and passes the others", async () => {
    const w = world({ objectBudget: 2 });
    await w.runner.poke(); // 3 pods and a revision each: over a budget of 2 from the second pass on
    await w.runner.poke();
    expect(w.condition("default")).toMatchObject({ status: "True", reason: "OverBudget" });
    const within = world({ objectBudget: 100 });
    await within.runner.poke();
    await within.runner.poke();
    expect(within.condition("default")).toBeUndefined();
    expect(within.pods("default")).toEqual(["web-0", "web-1", "web-2"]);
  });
});

describe("ShardRunner's quarantine", () => {
  it("notes the namespace a drain reads in its store and clears the note when the drain ends", async () => {
    const w = world();
    expect(shardOf("default", 1)).toBe(0);
    await w.runner.wake({ namespace: "default", name: "web", write: { resource: "statefulsets", name: "web", operation: "CREATE" } });
    expect(w.pods("default")).toEqual(["web-0", "web-1", "web-2"]);
    expect(w.stored.notes).toEqual(["default", undefined]);
    expect(w.stored.reading).toBeUndefined();
  });

  it("a namespace left noted (the invocation died reading it) is struck in the quarantine record and not read; the others are passed", async () => {
    const w = world({ died: "default" });
    await w.runner.poke();
    const lease = w.fake.get<{ metadata: { annotations?: Record<string, string> } }>(`/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases/${QUARANTINE_LEASE}`);
    expect(JSON.parse(lease?.metadata.annotations?.["ordinal.dev/quarantine"] ?? "{}")).toMatchObject({ default: { strikes: 1, why: expect.stringMatching(/invocation ended while reading it/) } });
    expect(w.condition("default")).toMatchObject({ status: "True", reason: "NamespaceQuarantined" });
    expect(w.pods("default")).toEqual([]);
    expect(w.pods("other")).toEqual(["web-0", "web-1", "web-2"]);
    expect(w.stored.reading).toBeUndefined();
  });
});
