/**
 * ReconcileThread (src/node/reconcile-thread.ts): a reconcile thread that runs out of heap ends
 * alone and is started again, while the main thread (the webhooks) goes on. The thread here is a
 * stand-in that exhausts its heap at once; the real one is measured by test/bench/reconciler-oom.ts.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { Metrics, prometheusOf } from "../../src/metrics/metrics.ts";
import { ReconcileThread, threadWake } from "../../src/node/reconcile-thread.ts";
import { settingsFrom } from "../../src/runtime-config.ts";
import { memoryLogger } from "../admission/helpers.ts";

const data = { vars: {}, settings: settingsFrom({}), scheduler: { holder: "h", intervalMs: 1000, budgetMs: 1000, idleMs: 1000 } };

describe("threadWake", () => {
  it("posts the set and its announced write, nothing else: not the webhook's reason, nor a selector or `observed` (only the thread's own watch says those)", () => {
    const write = { resource: "statefulsets", name: "web", operation: "CREATE" } as const;
    expect(threadWake({ namespace: "ns", name: "web", write, selector: "app", observed: true, reason: "set" } as Parameters<typeof threadWake>[0])).toEqual({ namespace: "ns", name: "web", write });
    expect(threadWake({ namespace: "ns", name: "" })).toEqual({ namespace: "ns", name: "" });
  });
});

describe("ReconcileThread", () => {
  it("the thread's metrics and the main thread's serve as one exposition: apiserver requests once, summed; the sets its watch saw reach onSet", async () => {
    const script = fileURLToPath(new URL("./fixtures/metrics-thread.mjs", import.meta.url));
    const sets: unknown[] = [];
    const thread = new ReconcileThread(memoryLogger(), 32, data, { onSet: (s) => void sets.push(s) }, { script, argv: [] });
    thread.start();
    await vi.waitFor(() => expect(thread.metrics).toBeDefined(), { timeout: 20_000, interval: 50 });
    expect(sets).toEqual([{ metadata: { name: "web", namespace: "default", uid: "u1" } }]);
    await thread.stop(1000);
    const main = new Metrics();
    main.inc("ordinal_apiserver_requests_total", { verb: "GET", resource: "statefulsets", code: "200" }, 2, "Apiserver requests");
    const text = prometheusOf(main.state(), thread.metrics);
    expect(text).toBe(
      ["# HELP ordinal_apiserver_requests_total Apiserver requests", "# TYPE ordinal_apiserver_requests_total counter", 'ordinal_apiserver_requests_total{code="200",resource="statefulsets",verb="GET"} 7', ""].join("\n"),
    );
  });
  it("an out-of-memory thread is logged and restarted; this thread keeps running", async () => {
    const log = memoryLogger();
    const script = fileURLToPath(new URL("./fixtures/oom-thread.mjs", import.meta.url));
    const thread = new ReconcileThread(log, 16, data, undefined, { script, argv: [] });
    thread.start();
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    await vi.waitFor(() => expect(thread.restarts).toBeGreaterThanOrEqual(1), { timeout: 20_000, interval: 50 });
    clearInterval(timer);
    await thread.stop(100);
    expect(log.lines).toContainEqual(expect.objectContaining({ level: "error", msg: "reconcile thread failed", fields: expect.objectContaining({ heapMb: 16, error: expect.stringMatching(/memory/i) }) }));
    expect(log.lines).toContainEqual(expect.objectContaining({ level: "warn", msg: "reconcile thread ended; restarting it" }));
    // The main thread's timers ran all along.
    expect(ticks).toBeGreaterThan(0);
  });
});
