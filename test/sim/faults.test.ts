/** Fault injection, hooks and the request log. */
import { describe, expect, it } from "vitest";
import { SimulatedCrash } from "../../src/sim/fake-apiserver/index.ts";
import { BASE, CMS, PODS, pod, setup } from "./helpers.ts";

describe("fault rules", () => {
  it("answers a status without applying the request, `times` times", async () => {
    const { server, call } = setup();
    const h = server.faults.add({ verb: "create", resource: "configmaps", fault: "conflict", times: 1 });
    const r = await call("POST", CMS, { metadata: { name: "a" } });
    expect(r.status).toBe(409);
    expect(r.body.message).toBe('Operation cannot be fulfilled on configmaps "": the object has been modified; please apply your changes to the latest version and try again');
    expect(server.get(`${CMS}/a`)).toBeUndefined();
    expect((await call("POST", CMS, { metadata: { name: "a" } })).status).toBe(201);
    expect(h.hits).toBe(1);
  });

  it.each([
    ["throttle", 429, "TooManyRequests"],
    ["internal", 500, "InternalError"],
    ["unavailable", 503, "ServiceUnavailable"],
    ["timeout", 504, "Timeout"],
  ] as const)("%s is %i %s", async (fault, code, reason) => {
    const { server, call } = setup();
    server.faults.add({ method: "GET", fault });
    const r = await call("GET", CMS);
    expect(r.status).toBe(code);
    expect(r.body).toMatchObject({ kind: "Status", status: "Failure", reason, code });
    if (fault === "throttle") {
      expect(r.headers.get("retry-after")).toBe("1");
      expect(r.body.details).toEqual({ retryAfterSeconds: 1 });
    }
  });

  it("a custom status, matched by path and predicate, after skipping some", async () => {
    const { server, call } = setup();
    server.faults.add({ path: /\/pods\/web-\d+$/, when: (req) => req.method === "DELETE", skip: 1, fault: { status: 429, reason: "TooManyRequests", message: "slow down", retryAfterSeconds: 7 } });
    for (const n of ["web-0", "web-1"]) await call("POST", PODS, pod(n));
    expect((await call("DELETE", `${PODS}/web-0`)).status).toBe(200);
    const r = await call("DELETE", `${PODS}/web-1`);
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("7");
    expect(r.body.message).toBe("slow down");
    expect(server.get(`${PODS}/web-1`)).toBeDefined();
  });

  it("network: rejects with a TypeError like fetch, nothing applied", async () => {
    const { server } = setup();
    server.faults.add({ method: "POST", fault: "network" });
    const p = server.fetch(BASE + CMS, { method: "POST", body: JSON.stringify({ metadata: { name: "a" } }) });
    await expect(p).rejects.toBeInstanceOf(TypeError);
    await expect(p).rejects.toThrow("fetch failed");
    expect(server.get(`${CMS}/a`)).toBeUndefined();
    expect(server.log.entries.at(-1)).toMatchObject({ verb: "create", code: 0, fault: "network" });
  });

  it("lost: the request is applied, then the response is lost", async () => {
    const { server } = setup();
    server.faults.add({ method: "POST", fault: "lost", times: 1 });
    await expect(server.fetch(BASE + CMS, { method: "POST", body: JSON.stringify({ metadata: { name: "a" } }) })).rejects.toBeInstanceOf(TypeError);
    expect(server.get(`${CMS}/a`)).toBeDefined();
  });

  it("crash and crash-after: SimulatedCrash before or after applying", async () => {
    const { server } = setup();
    server.faults.add({ method: "POST", fault: "crash", times: 1 });
    server.faults.add({ method: "POST", fault: "crash-after", times: 1 });
    const body = (name: string) => ({ method: "POST", body: JSON.stringify({ metadata: { name } }) });
    const before = await server.fetch(BASE + CMS, body("a")).catch((e: unknown) => e);
    expect(before).toBeInstanceOf(SimulatedCrash);
    expect((before as SimulatedCrash).applied).toBe(false);
    expect(server.get(`${CMS}/a`)).toBeUndefined();
    const after = await server.fetch(BASE + CMS, body("b")).catch((e: unknown) => e);
    expect((after as SimulatedCrash).applied).toBe(true);
    expect(server.get(`${CMS}/b`)).toBeDefined();
  });

  it("handles can be removed; clear removes all", async () => {
    const { server, call } = setup();
    const h = server.faults.add({ fault: "internal" });
    h.remove();
    expect((await call("GET", CMS)).status).toBe(200);
    server.faults.add({ fault: "internal" });
    server.faults.clear();
    expect((await call("GET", CMS)).status).toBe(200);
  });
});

describe("random faults", () => {
  async function run(seed: number): Promise<string[]> {
    const { server } = setup();
    server.faults.random({ seed, rate: 0.5, kinds: ["conflict", "throttle", "network", "lost"], method: ["POST", "PUT"] });
    const outcomes: string[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await server.fetch(BASE + CMS, { method: "POST", body: JSON.stringify({ metadata: { name: `c${i}` } }) }).then(
        (res) => String(res.status),
        (e: unknown) => (e as Error).name,
      );
      outcomes.push(r);
    }
    expect((await server.fetch(BASE + CMS)).status).toBe(200);
    return outcomes;
  }

  it("is reproducible from the seed and mixes the kinds at about the rate", async () => {
    const a = await run(1234);
    expect(await run(1234)).toEqual(a);
    expect(await run(99)).not.toEqual(a);
    const faulted = a.filter((o) => o !== "201").length;
    expect(faulted).toBeGreaterThan(8);
    expect(faulted).toBeLessThan(32);
    expect(new Set(a)).toEqual(new Set(["201", "409", "429", "TypeError"]));
  });

  it("stopRandom ends it", async () => {
    const { server, call } = setup();
    server.faults.random({ seed: 1, rate: 1 });
    expect((await call("GET", CMS).catch(() => ({ status: 0 }))).status).not.toBe(200);
    server.faults.stopRandom();
    expect((await call("GET", CMS)).status).toBe(200);
  });
});

describe("onRequest and the request log", () => {
  it("hooks see every request before it is handled; a throwing hook rejects the fetch", async () => {
    const { server, call } = setup();
    const seen: string[] = [];
    const off = server.onRequest((req) => seen.push(`${req.verb} ${req.resource}${req.subresource ? `/${req.subresource}` : ""} ${req.namespace}/${req.name}`));
    await call("POST", PODS, pod("p"));
    await call("GET", `${PODS}/p`);
    await call("PATCH", `${PODS}/p/status`, { status: {} });
    await call("GET", "/api/v1/pods");
    off();
    await call("GET", PODS);
    expect(seen).toEqual(["create pods default/", "get pods default/p", "patch pods/status default/p", "list pods /"]);
    server.onRequest(() => {
      throw new SimulatedCrash("hook", false);
    });
    await expect(call("GET", PODS)).rejects.toBeInstanceOf(SimulatedCrash);
  });

  it("counts requests per verb and resource", async () => {
    const { server, call } = setup();
    await call("POST", PODS, pod("p"));
    await call("GET", PODS);
    await call("GET", PODS);
    await call("GET", `${PODS}/nope`);
    await call("DELETE", `${PODS}/p`);
    expect(server.log.counts()).toEqual({ "create pods": 1, "delete pods": 1, "get pods": 1, "list pods": 2 });
    expect(server.log.count({ verb: "list", resource: "pods" })).toBe(2);
    expect(server.log.count({ code: 404 })).toBe(1);
    expect(server.log.count({ path: /\/pods\/p$/ })).toBe(1);
    expect(server.log.total).toBe(5);
    expect(server.log.entries[0]).toMatchObject({ seq: 1, method: "POST", path: PODS, verb: "create", resource: "pods", namespace: "default", code: 201 });
    server.log.clear();
    expect(server.log.total).toBe(0);
  });

  it("helpers do not go through faults, hooks or the log", async () => {
    const { server } = setup();
    server.faults.add({ fault: "internal" });
    server.onRequest(() => {
      throw new Error("no");
    });
    server.seed(pod("p"));
    expect(server.get(`${PODS}/p`)).toBeDefined();
    expect(server.log.total).toBe(0);
  });
});
