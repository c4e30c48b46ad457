/** Counters at the KubeClient seam, per-run action counts, webhook decisions from the admission log, and the Prometheus text. */
import { describe, expect, it } from "vitest";
import { createKubeClient } from "../../src/kube/http.ts";
import { jsonLogger, silentLogger } from "../../src/log/log.ts";
import { instrumentClient } from "../../src/metrics/instrument.ts";
import { Metrics, metricsLogger, prometheusOf, recordRun } from "../../src/metrics/metrics.ts";
import { runReconcile } from "../../src/schedule/loop.ts";
import { reconcilerOnly } from "../../src/objects/reconciler-identity.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { webSet } from "../cli/helpers.ts";

describe("instrumentClient + recordRun", () => {
  it("counts requests by verb/resource/code, logs each write with set and pod, counts actions", async () => {
    const fake = createFakeApiServer({ namespaces: ["default", "ordinal-system"] });
    const m = new Metrics();
    const lines: Record<string, unknown>[] = [];
    const log = jsonLogger((l) => lines.push(JSON.parse(l) as Record<string, unknown>));
    const client = instrumentClient(createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 }), m, log);
    await fake.seed(webSet("web", 2));
    const r = await runReconcile(client, { log: silentLogger, holder: "t", leaseNamespace: "ordinal-system", budgetMs: 10_000, maxPasses: 1 });
    recordRun(m, r, 0.2);
    const snap = m.snapshot();
    // The pass's labelled list, plus the new set's one list by its own selector (adoption).
    expect(snap['ordinal_apiserver_requests_total{code="200",resource="pods",verb="LIST"}']).toBe(2);
    expect(snap['ordinal_apiserver_requests_total{code="201",resource="pods",verb="POST"}'] ?? snap['ordinal_apiserver_requests_total{code="200",resource="pods",verb="POST"}']).toBe(1);
    expect(snap['ordinal_reconcile_passes_total']).toBe(1);
    expect(Object.keys(snap).some((k) => k.startsWith("ordinal_reconcile_actions_total{action=") && k.includes('outcome="ok"'))).toBe(true);
    expect(lines).toContainEqual(expect.objectContaining({ msg: "action", action: "POST pods", set: "default/web", pod: "web-0", outcome: "ok" }));
    const text = m.prometheus();
    expect(text).toContain("# TYPE ordinal_apiserver_requests_total counter");
    expect(text).toMatch(/^ordinal_reconcile_invocation_duration_seconds_bucket\{le="0\.25"\} 1$/m);
  });
  it("writes refused by the webhook for the reconciler's identity are counted (ordinal_reconciler_identity_refusals_total)", async () => {
    const fake = createFakeApiServer({ namespaces: ["default", "ordinal-system"] });
    const m = new Metrics();
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    await fake.seed(webSet("web", 2));
    const message = `admission webhook "pods.validate.ordinal.dev" denied the request: ${reconcilerOnly("system:serviceaccount:ordinal-system:ordinal-reconciler", "admin")}`;
    fake.faults.add({ verb: "create", resource: "pods", fault: { status: 400, reason: "BadRequest", message } });
    recordRun(m, await runReconcile(client, { log: silentLogger, holder: "t", leaseNamespace: "ordinal-system", budgetMs: 10_000, maxPasses: 1 }), 0.1);
    expect(m.snapshot()["ordinal_reconciler_identity_refusals_total"]).toBe(1);
    expect(m.prometheus()).toContain("# HELP ordinal_reconciler_identity_refusals_total ");
  });
  it("an apiserver error is counted with its code and logged as an error outcome", async () => {
    const fake = createFakeApiServer({ namespaces: ["default"] });
    const m = new Metrics();
    const lines: Record<string, unknown>[] = [];
    const client = instrumentClient(createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 }), m, jsonLogger((l) => lines.push(JSON.parse(l))));
    const pods = { group: "", version: "v1", resource: "pods", kind: "Pod", namespaced: true };
    await expect(client.patch(pods, "default", "web-0", { metadata: { labels: { a: "b" } } }, "merge")).rejects.toThrow();
    expect(Object.entries(m.snapshot()).find(([k]) => k.includes('verb="PATCH"'))?.[0]).toMatch(/code="404"/);
    expect(lines[0]).toMatchObject({ action: "PATCH pods", pod: "web-0", set: "default/web", outcome: "error", code: 404 });
    expect(await client.delete(pods, "default", "web-0")).toBe(false);
    expect(lines[1]).toMatchObject({ action: "DELETE pods", outcome: "ok", code: 404 });
  });
});

describe("prometheusOf", () => {
  /** familyHeads returns each `# HELP`/`# TYPE` line of the text with how often it appears. */
  const familyHeads = (text: string) => {
    const counts = new Map<string, number>();
    for (const l of text.split("\n")) if (l.startsWith("# ")) counts.set(l, (counts.get(l) ?? 0) + 1);
    return counts;
  };
  it("the main thread's and the reconcile thread's registries: each family once, series of the same labels summed", () => {
    const main = new Metrics();
    const thread = new Metrics();
    const get = { verb: "GET", resource: "statefulsets", code: "200" };
    main.inc("ordinal_apiserver_requests_total", get, 2, "Apiserver requests");
    thread.inc("ordinal_apiserver_requests_total", get, 5, "Apiserver requests");
    thread.inc("ordinal_apiserver_requests_total", { ...get, verb: "LIST" }, 1, "Apiserver requests");
    main.observe("ordinal_webhook_duration_seconds", { path: "/mutate/pods" }, 0.02, "Time to answer");
    thread.observe("ordinal_reconcile_invocation_duration_seconds", {}, 0.3, "Wall time");
    main.observe("ordinal_reconcile_invocation_duration_seconds", {}, 2, "Wall time");
    // What the thread posts is a structured clone of its state.
    const text = prometheusOf(main.state(), structuredClone(thread.state()), undefined);
    const heads = familyHeads(text);
    expect([...heads.values()].every((n) => n === 1)).toBe(true);
    expect([...heads.keys()]).toEqual(
      expect.arrayContaining(["# HELP ordinal_apiserver_requests_total Apiserver requests", "# TYPE ordinal_apiserver_requests_total counter"]),
    );
    expect(text).toMatch(/^ordinal_apiserver_requests_total\{code="200",resource="statefulsets",verb="GET"\} 7$/m);
    expect(text).toMatch(/^ordinal_apiserver_requests_total\{code="200",resource="statefulsets",verb="LIST"\} 1$/m);
    expect(text).toMatch(/^ordinal_reconcile_invocation_duration_seconds_bucket\{le="0\.5"\} 1$/m);
    expect(text).toMatch(/^ordinal_reconcile_invocation_duration_seconds_bucket\{le="\+Inf"\} 2$/m);
    expect(text).toMatch(/^ordinal_reconcile_invocation_duration_seconds_sum 2\.3$/m);
    expect(text).toMatch(/^ordinal_webhook_duration_seconds_count\{path="\/mutate\/pods"\} 1$/m);
    // The registries themselves are unchanged.
    expect(main.snapshot()['ordinal_apiserver_requests_total{code="200",resource="statefulsets",verb="GET"}']).toBe(2);
  });
});

describe("metricsLogger", () => {
  it("turns the HTTP layer's admission lines (written at debug) into decision counts and latency", () => {
    const m = new Metrics();
    const log = metricsLogger(silentLogger, m);
    log.debug?.("admission", { path: "/mutate/pods", allowed: true, patched: true, ms: 3 });
    log.debug?.("admission", { path: "/validate/pods", allowed: false, ms: 1 });
    log.warn("webhook request refused", { path: "/validate/pods", status: 401 });
    const snap = m.snapshot();
    expect(snap['ordinal_webhook_requests_total{decision="patched",path="/mutate/pods"}']).toBe(1);
    expect(snap['ordinal_webhook_requests_total{decision="denied",path="/validate/pods"}']).toBe(1);
    expect(snap['ordinal_webhook_requests_total{decision="http_401",path="/validate/pods"}']).toBe(1);
    expect(snap['ordinal_webhook_duration_seconds_count{path="/mutate/pods"}']).toBe(1);
  });
});

describe("instrumentClient log levels", () => {
  it("logs a failed write at warn, a Lease renewal at debug, other writes at info", async () => {
    const fake = createFakeApiServer({ namespaces: ["default", "ordinal-system"] });
    const lines: { level: string; action: string; outcome: string }[] = [];
    const raw = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    const client = instrumentClient(raw, new Metrics(), jsonLogger((l) => lines.push(JSON.parse(l)), {}, "debug"));
    const pods = { group: "", version: "v1", resource: "pods", kind: "Pod", namespaced: true };
    const leases = { group: "coordination.k8s.io", version: "v1", resource: "leases", kind: "Lease", namespaced: true };
    await expect(client.patch(pods, "default", "web-0", { metadata: { labels: { a: "b" } } }, "merge")).rejects.toThrow();
    await client.create(leases, "ordinal-system", { metadata: { name: "ordinal-reconciler" }, spec: { holderIdentity: "me" } });
    await client.create(pods, "default", { metadata: { name: "web-0" }, spec: { containers: [{ name: "c", image: "nginx" }] } });
    expect(lines.map((l) => [l.level, l.action, l.outcome])).toEqual([
      ["warn", "PATCH pods", "error"],
      ["debug", "POST leases", "ok"],
      ["info", "POST pods", "ok"],
    ]);
  });
});
