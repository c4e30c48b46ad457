/**
 * The reconciler stack every runtime builds (src/reconciler-stack.ts): its client counts every
 * request, and an invocation's line (`reconcile invocation done`: the Worker's metrics, as Node's
 * /metrics serves them) carries its passes, actions and the counters.
 */
import { describe, expect, it } from "vitest";
import { createKubeClient } from "../../src/kube/http.ts";
import type { Logger } from "../../src/log/log.ts";
import { buildReconciler } from "../../src/reconciler-stack.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { settingsFrom } from "../../src/runtime-config.ts";
import { ShardRunner } from "../../src/schedule/shard-runner.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

function world() {
  const fake = createFakeApiServer({ namespaces: ["default", "ordinal-system"] });
  fake.seed(setManifest({ replicas: 1, policy: "Parallel" }));
  const lines: { msg: string; f?: Record<string, unknown> }[] = [];
  const keep = (msg: string, f?: Record<string, unknown>) => void lines.push({ msg, f });
  const log: Logger = { info: keep, warn: keep, error: keep };
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  const stack = buildReconciler(client, { settings: settingsFrom({}), log });
  return { fake, stack, lines };
}

describe("buildReconciler", () => {
  it("counts every request of its client, and logs an invocation with its passes, actions and the counters", async () => {
    const { stack, lines } = world();
    const pass = await reconcilePass(stack.client, { now: () => new Date(), log: { info() {}, warn() {}, error() {} } });
    stack.logInvocation([pass], 0.25, { shard: 0 });
    const line = lines.find((l) => l.msg === "reconcile invocation done")!;
    expect(pass.actionCount).toBeGreaterThan(0);
    expect(line.f).toMatchObject({ shard: 0, passes: 1, actions: pass.actionCount, seconds: 0.25 });
    const metrics = line.f!.metrics as Record<string, number>;
    expect(metrics["ordinal_reconcile_passes_total"]).toBe(1);
    expect(metrics['ordinal_reconcile_actions_total{action="createPod",outcome="ok"}']).toBe(1);
    expect(Object.keys(metrics).some((k) => k.startsWith("ordinal_apiserver_requests_total{"))).toBe(true);
  });

  it("with invocationInfoEveryMs (the Worker), an invocation's line is info at most once that often, debug in between", () => {
    const lines: { level: string; msg: string }[] = [];
    const keep = (level: string) => (msg: string) => void lines.push({ level, msg });
    const log: Logger = { debug: keep("debug"), info: keep("info"), warn: keep("warn"), error: keep("error") };
    let now = 1_000_000;
    const client = createKubeClient({ baseUrl: "https://fake", fetch: createFakeApiServer().fetch, maxAttempts: 1 });
    const stack = buildReconciler(client, { log, invocationInfoEveryMs: 60_000, now: () => now });
    for (const step of [0, 100, 59_000, 1_000, 30_000]) {
      now += step;
      stack.logInvocation([], 0.01);
    }
    expect(lines.filter((l) => l.msg === "reconcile invocation done").map((l) => l.level)).toEqual(["info", "debug", "debug", "info", "debug"]);
    const every = buildReconciler(client, { log, now: () => now });
    lines.length = 0;
    every.logInvocation([], 0.01);
    every.logInvocation([], 0.01);
    expect(lines.map((l) => l.level)).toEqual(["info", "info"]);
  });

  it("the Worker's shard runner reports each drain's passes (its `reconcile invocation done` line)", async () => {
    const { stack, lines } = world();
    const drains: number[] = [];
    // Its clock is the test's, moved by the wake's coalescing sleep: no timer, whatever the machine's load.
    let t = Date.parse("2026-11-21T12:00:00Z");
    const runner = new ShardRunner({
      client: stack.client,
      store: { load: async () => ({ due: {}, nextFullPassAt: t + 3_600_000 }), save: async () => {}, setAlarm: async () => {} },
      now: () => new Date(t),
      clock: () => t,
      sleep: async (ms) => void (t += ms),
      log: { info() {}, warn() {}, error() {} },
      shard: { index: 0, count: 1 },
      leaseNamespace: "ordinal-system",
      holder: "w",
      intervalMs: 60_000,
      budgetMs: 60_000,
      maxRequests: 900,
      onDrain: (passes, seconds) => {
        drains.push(passes.length);
        stack.logInvocation(passes, seconds);
      },
    });
    await runner.wake({ namespace: "default", name: "web", write: { resource: "statefulsets", name: "web", operation: "CREATE" } });
    expect(drains[0]).toBeGreaterThan(0);
    expect(lines.filter((l) => l.msg === "reconcile invocation done").map((l) => l.f!.passes)).toEqual(drains);
  });
});
