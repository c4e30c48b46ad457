/**
 * The Worker's shard runner isolates namespaces as Node's reconcile thread does (issue 35): a pass
 * holds at most its object budget of one namespace (a set over it alone is set aside, OverBudget),
 * and a namespace an invocation died reading (noted in the shard's store while it reads) is
 * quarantined by the next one (NamespaceQuarantined: src/reconciler/namespace-guard.ts) when it
 * was the suspect already: the invocation before died reading it too (one death may be a deploy,
 * an eviction, a killed `wrangler dev`: issue 36). Before, the runner passed no budget and kept
 * no note: both tests fail; before the suspect, one death quarantined (the suspect tests fail).
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
function world(o: { objectBudget?: number; died?: string; suspect?: string } = {}) {
  const fake = createFakeApiServer({ namespaces: ["default", "other", "ordinal-system"] });
  for (const namespace of ["default", "other"]) fake.seed(setManifest({ namespace, replicas: 3, policy: "Parallel" }));
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  // Its clock is the test's, moved by a wake's coalescing sleep: no timer, whatever the machine's load.
  let t = Date.now();
  const stored: { schedule?: ScheduleSnapshot; reading?: string; suspect?: string; notes: (string | undefined)[]; suspects: (string | undefined)[] } = { schedule: { due: {}, nextFullPassAt: t + HOUR }, reading: o.died, suspect: o.suspect, notes: [], suspects: [] };
  const store: ShardStore = {
    load: async () => stored.schedule,
    save: async (s) => void (stored.schedule = s),
    setAlarm: async () => {},
    reading: { load: async () => stored.reading, save: async (ns) => void stored.notes.push((stored.reading = ns)) },
    suspect: { load: async () => stored.suspect, save: async (ns) => void stored.suspects.push((stored.suspect = ns)) },
  };
  const runner = new ShardRunner({ client, store, log: silentLogger, shard: { index: 0, count: 1 }, leaseNamespace: "ordinal-system", holder: "ordinal-worker", intervalMs: 60_000, budgetMs: HOUR, maxRequests: 900, coalesceMs: 0, objectBudget: o.objectBudget, now: () => new Date(t), sleep: async (ms) => void (t += ms) });
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

  it("a namespace left noted once (the invocation died reading it: a deploy, a kill, or the namespace) is the suspect, not struck: it is passed, and a drain that read it and ended clears the suspect", async () => {
    const w = world({ died: "default" });
    const struck: string[] = [];
    w.fake.onRequest((r) => void (r.resource === "leases" && r.name === QUARANTINE_LEASE && r.method !== "GET" && struck.push(r.method)));
    await w.runner.poke();
    expect(w.stored.suspects).toEqual(["default", undefined]);
    expect(struck).toEqual([]);
    expect(w.pods("default")).toEqual(["web-0", "web-1", "web-2"]);
    expect(w.stored.reading).toBeUndefined();
    expect(w.stored.suspect).toBeUndefined();
  });

  it("a namespace left noted while it is the suspect (died reading it twice in a row) is struck in the quarantine record and not read; the others are passed", async () => {
    const w = world({ died: "default", suspect: "default" });
    await w.runner.poke();
    const lease = w.fake.get<{ metadata: { annotations?: Record<string, string> } }>(`/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases/${QUARANTINE_LEASE}`);
    expect(JSON.parse(lease?.metadata.annotations?.["ordinal.dev/quarantine"] ?? "{}")).toMatchObject({ default: { strikes: 1, why: expect.stringMatching(/invocation ended while reading it/) } });
    expect(w.condition("default")).toMatchObject({ status: "True", reason: "NamespaceQuarantined" });
    expect(w.pods("default")).toEqual([]);
    expect(w.pods("other")).toEqual(["web-0", "web-1", "web-2"]);
    expect(w.stored.reading).toBeUndefined();
    expect(w.stored.suspect).toBeUndefined();
  });
});
