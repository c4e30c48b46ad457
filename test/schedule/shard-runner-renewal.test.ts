/**
 * The Worker's shard renews its Lease beside a wake's pass, not before it (as Node's elector renews
 * on its own timer): a renewal is a Lease list, a GET and a write, three round trips that came
 * before the first wake of every renewal period (bench:latency --worker: 30–60 ms before a new
 * set's first read). Before, the pass waited for the renewal: the first test fails.
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger } from "../../src/log/log.ts";
import { RENEW_EVERY_MS, ShardRunner } from "../../src/schedule/shard-runner.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

/** world returns a shard runner over a fake with default/web (1 replica); after closeLease(), its Lease writes wait for openLease(). */
function world() {
  const fake = createFakeApiServer({ namespaces: ["default", "ordinal-system"] });
  fake.seed(setManifest({ replicas: 1 }));
  let gated = false;
  let open: () => void = () => {};
  let gate = Promise.resolve();
  const fetch: typeof fake.fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (gated && url.includes("/leases") && ["PUT", "POST"].includes(init?.method ?? "GET")) await gate;
    return fake.fetch(input, init);
  };
  const client = createKubeClient({ baseUrl: "https://fake", fetch, sleep: async () => {}, maxAttempts: 1 });
  let t = Date.parse("2026-11-21T12:00:00Z");
  const store = { load: async () => ({ due: {}, nextFullPassAt: t + 3_600_000 }), save: async () => {}, setAlarm: async () => {} };
  const runner = new ShardRunner({ client, store, log: silentLogger, shard: { index: 0, count: 1 }, leaseNamespace: "ordinal-system", holder: "w", intervalMs: 60_000, budgetMs: 60_000, maxRequests: 900, coalesceMs: 0, now: () => new Date(t), clock: () => t });
  const pods = () => fake.list<Pod>("/api/v1/namespaces/default/pods").map((p) => p.metadata!.name);
  const closeLease = () => {
    gated = true;
    gate = new Promise((r) => (open = r));
  };
  return { fake, runner, pods, closeLease, openLease: () => open(), advance: (ms: number) => void (t += ms) };
}

const web = { namespace: "default", name: "web" };
const until = async (f: () => boolean) => {
  for (let i = 0; i < 200 && !f(); i++) await new Promise((r) => setTimeout(r, 5));
  return f();
};

describe("ShardRunner's Lease renewal", () => {
  it("while it acts, a renewal due runs beside the wake's pass: the pass writes before the renewal's write is answered", async () => {
    const w = world();
    await w.runner.wake(web); // takes the Lease (awaited: not acting yet), creates web-0
    w.fake.remove("/api/v1/namespaces/default/pods/web-0");
    w.advance(RENEW_EVERY_MS);
    w.closeLease();
    const woken = w.runner.wake(web);
    expect(await until(() => w.pods().includes("web-0"))).toBe(true);
    w.openLease();
    await woken;
    expect(w.fake.log.count({ resource: "leases", verb: "update" }) + w.fake.log.count({ resource: "leases", verb: "create" })).toBe(2);
  });

  it("a shard that does not act yet takes the Lease before its pass", async () => {
    const w = world();
    w.closeLease();
    const woken = w.runner.wake(web);
    await until(() => w.fake.log.count({ resource: "leases", verb: "get" }) > 0);
    await new Promise((r) => setTimeout(r, 50));
    expect(w.pods()).toEqual([]);
    w.openLease();
    await woken;
    expect(w.pods()).toEqual(["web-0"]);
  });
});
