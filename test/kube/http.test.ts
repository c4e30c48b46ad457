/** The fetch-based apiserver client: retries, backoff, errors handed to the caller, paging. */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/kube/client.ts";
import { createKubeClient, MAX_RETRY_AFTER_MS, retryWait, type FetchLike } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";

const status = (code: number, reason: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ kind: "Status", status: "Failure", reason, message: `${reason} happened`, code }), { status: code, headers });

/** scripted returns a fetch answering from a list (a function may throw), recording calls. */
function scripted(answers: (() => Response)[]) {
  const calls: { url: string; init?: RequestInit }[] = [];
  const f: FetchLike = async (input, init) => {
    calls.push({ url: String(input), init });
    const next = answers.shift();
    if (!next) throw new Error("no more answers");
    return next();
  };
  return { f, calls };
}

describe("createKubeClient retries", () => {
  it.each([
    ["500", () => status(500, "InternalError")],
    ["503", () => status(503, "ServiceUnavailable")],
    ["429", () => status(429, "TooManyRequests")],
    ["a network error", () => {
      throw new TypeError("fetch failed");
    }],
  ])("retries %s and returns the later success", async (_, fail) => {
    const { f, calls } = scripted([fail, fail, () => Response.json({ metadata: { name: "x" } })]);
    const sleeps: number[] = [];
    const c = createKubeClient({ baseUrl: "https://k", fetch: f, sleep: async (ms) => void sleeps.push(ms), backoffMs: 100 });
    expect(await c.get(R.pods, "ns", "x")).toEqual({ metadata: { name: "x" } });
    expect(calls.length).toBe(3);
    expect(sleeps.length).toBe(2);
    expect(sleeps[1]).toBeGreaterThan(sleeps[0] * 0.9);
    expect(c.requestCount).toBe(3);
  });

  it("gives up after maxAttempts with the last error", async () => {
    const { f, calls } = scripted(Array.from({ length: 5 }, () => () => status(500, "InternalError")));
    const c = createKubeClient({ baseUrl: "https://k", fetch: f, sleep: async () => {}, maxAttempts: 3 });
    await expect(c.get(R.pods, "ns", "x")).rejects.toMatchObject({ code: 500, reason: "InternalError" });
    expect(calls.length).toBe(3);
  });

  it.each([
    [0, 2000],
    [0.5, 2500],
    [0.999, 2999],
  ])("honours Retry-After, spread by jitter (random %d: waits %d ms): never sooner, and not all at once", async (r, ms) => {
    const { f } = scripted([() => status(429, "TooManyRequests", { "Retry-After": "2" }), () => Response.json({})]);
    const sleeps: number[] = [];
    const c = createKubeClient({ baseUrl: "https://k", fetch: f, sleep: async (ms) => void sleeps.push(ms), random: () => r });
    await c.get(R.pods, "ns", "x");
    expect(sleeps.map(Math.round)).toEqual([ms]);
  });

  it("a Retry-After shorter than the doubling backoff waits the backoff (a throttle that repeats backs off)", () => {
    expect(retryWait(3, 200, "1", 0)).toBe(1000);
    expect(retryWait(5, 200, "1", 0)).toBe(3200);
    expect(retryWait(5, 200, "1", 0.5)).toBe(4000);
  });

  it("a Retry-After beyond the cap is not retried early: the 429 goes to the caller", async () => {
    const { f, calls } = scripted([() => status(429, "TooManyRequests", { "Retry-After": String(MAX_RETRY_AFTER_MS / 1000 + 1) }), () => Response.json({})]);
    const c = createKubeClient({ baseUrl: "https://k", fetch: f, sleep: async () => {} });
    await expect(c.get(R.pods, "ns", "x")).rejects.toMatchObject({ code: 429 });
    expect(calls.length).toBe(1);
  });

  it.each([
    [409, "Conflict"],
    [422, "Invalid"],
    [403, "Forbidden"],
  ])("hands %i to the caller without retrying", async (code, reason) => {
    const { f, calls } = scripted([() => status(code, reason)]);
    const c = createKubeClient({ baseUrl: "https://k", fetch: f, sleep: async () => {} });
    const err = await c.patch(R.pods, "ns", "x", {}, "merge").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code, reason, message: `${reason} happened` });
    expect(calls.length).toBe(1);
  });

  it("sends the bearer token, content types and dryRun", async () => {
    const { f, calls } = scripted([() => Response.json({}), () => Response.json({})]);
    const c = createKubeClient({ baseUrl: "https://k/", fetch: f, token: async () => "t0k" });
    await c.patch(R.statefulSets, "ns", "web", { a: 1 }, "json", "status");
    await c.create(R.pods, "ns", { metadata: { name: "p" } }, { dryRun: true });
    const h = calls[0].init!.headers as Record<string, string>;
    expect(h.Authorization).toBe("Bearer t0k");
    expect(h["Content-Type"]).toBe("application/json-patch+json");
    expect(calls[0].url).toBe("https://k/apis/apps.ordinal.dev/v1/namespaces/ns/statefulsets/web/status");
    expect(calls[1].url).toBe("https://k/api/v1/namespaces/ns/pods?dryRun=All");
  });
});

describe("createKubeClient against the fake apiserver", () => {
  it("follows continue tokens until the list is complete", async () => {
    const fake = createFakeApiServer();
    for (let i = 0; i < 25; i++) await fake.seed({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${i}`, namespace: "default", labels: { n: String(i % 2) } } });
    const c = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch });
    const all = await c.list({ group: "", version: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true }, "default", { limit: 4, labelSelector: "n=1" });
    expect(all.length).toBe(12);
    expect(c.requestCount).toBe(3);
  });

  it("keeps only what `keep` accepts, page by page, across every page", async () => {
    const fake = createFakeApiServer({ namespaces: ["a", "b"] });
    for (let i = 0; i < 10; i++) await fake.seed({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${i}`, namespace: i % 2 ? "a" : "b" } });
    const c = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch });
    const seen: string[] = [];
    const kept = await c.list({ group: "", version: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true }, undefined, {
      limit: 3,
      keep: (o) => (seen.push(o.metadata?.name ?? ""), o.metadata?.namespace === "a"),
    });
    expect(seen.length).toBe(10);
    expect(kept.map((o) => o.metadata?.name)).toEqual(["cm-1", "cm-3", "cm-5", "cm-7", "cm-9"]);
    expect(c.requestCount).toBe(4);
  });

  it("get of a missing object is undefined, delete of one is false", async () => {
    const fake = createFakeApiServer();
    const c = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch });
    expect(await c.get(R.pods, "default", "nope")).toBeUndefined();
    expect(await c.delete(R.pods, "default", "nope")).toBe(false);
  });
});
