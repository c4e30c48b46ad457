/**
 * A timer may end before the clock shows its time (Node's timers run on a monotonic clock of their
 * own: up to 1 ms early by Date.now). The Worker's shard runner judged its woken set due by its
 * clock right after the coalescing timer, found it not due and returned without its pass (left to
 * the WAKE_NET_MS alarm): test/schedule/reconciler-stack's drain test failed about 3 runs in 100.
 * Before sleep-until.ts, the ShardRunner test failed (no pod created).
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger } from "../../src/log/log.ts";
import { ShardRunner } from "../../src/schedule/shard-runner.ts";
import { sleepUntil } from "../../src/schedule/sleep-until.ts";
import { ANNOUNCED_COALESCE_MS } from "../../src/schedule/tables.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

/** clockWith returns a clock at 1000 whose sleeps (recorded) move it by `moved(ms)`. */
function clockWith(moved: (ms: number) => number) {
  let t = 1_000;
  const sleeps: number[] = [];
  const sleep = async (ms: number) => {
    sleeps.push(ms);
    t += moved(ms);
  };
  return { now: () => t, sleep, sleeps };
}

describe("sleepUntil", () => {
  it.each([
    ["a timer that ends on time", (ms: number) => ms, 1_015, 1_015, [15]],
    ["a timer that ends 1 ms before the clock shows its time", (ms: number) => Math.max(1, ms - 1), 1_015, 1_015, [15, 1]],
    ["a timer that ends late", (ms: number) => ms + 7, 1_015, 1_022, [15]],
    ["a clock that does not move while it sleeps (a test's own)", () => 0, 1_015, 1_000, [15]],
    ["a time already past", (ms: number) => ms, 990, 1_000, []],
  ] as const)("%s", async (_, moved, at, end, sleeps) => {
    const c = clockWith(moved);
    await sleepUntil(at, c.now, c.sleep);
    expect(c.sleeps).toEqual(sleeps);
    expect(c.now()).toBe(end);
  });
});

describe("ShardRunner.wake", () => {
  it("passes its set when the coalescing timer ends 1 ms before the clock shows the set due", async () => {
    const fake = createFakeApiServer({ namespaces: ["default", "ordinal-system"] });
    fake.seed(setManifest({ replicas: 1, policy: "Parallel" }));
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    const c = clockWith((ms) => Math.max(1, ms - 1));
    const drains: number[] = [];
    const store = { load: async () => ({ due: {}, nextFullPassAt: c.now() + 3_600_000 }), save: async () => {}, setAlarm: async () => {} };
    const shard = { index: 0, count: 1 };
    const onDrain = (passes: unknown[]) => void drains.push(passes.length);
    const runner = new ShardRunner({ client, store, log: silentLogger, shard, leaseNamespace: "ordinal-system", holder: "w", intervalMs: 60_000, budgetMs: 60_000, maxRequests: 900, now: () => new Date(c.now()), clock: c.now, sleep: c.sleep, onDrain });
    await runner.wake({ namespace: "default", name: "web", write: { resource: "statefulsets", name: "web", operation: "CREATE" } });
    expect(drains).toHaveLength(1);
    expect(drains[0]).toBeGreaterThan(0);
    expect(c.sleeps).toEqual([ANNOUNCED_COALESCE_MS, 1]);
    expect(fake.list<Pod>("/api/v1/namespaces/default/pods").map((p) => p.metadata!.name)).toEqual(["web-0"]);
  });
});
