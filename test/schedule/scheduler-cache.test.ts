/**
 * ReconcileScheduler with the watch cache (src/schedule/watch-cache.ts) on the fake apiserver's
 * watch: the watch alone wakes the right set (no webhook here, the full pass an hour away), its
 * targeted passes read nothing from the apiserver (the mirror answers), and they see their own
 * writes at once. The test plays the kubelet (src/sim/kubelet.ts) on a client of its own.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import type { KubeObject } from "../../src/kube/client.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { ReconcileScheduler } from "../../src/schedule/scheduler.ts";
import { startWatchCache, type WatchCache } from "../../src/schedule/watch-cache.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { setManifest } from "../support/fixtures.ts";

const HOUR = 3_600_000;

function world(withCache: boolean, clock?: () => number) {
  const fake = createFakeApiServer({ namespaces: ["default", "ordinal-system"] });
  const requests: string[] = [];
  const client = createKubeClient({
    baseUrl: "https://fake",
    sleep: async () => {},
    fetch: async (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      if (!url.searchParams.has("watch")) requests.push(`${init?.method ?? "GET"} ${decodeURIComponent(url.pathname + url.search)}`);
      return fake.fetch(input, init);
    },
  });
  const sighted: KubeObject[] = [];
  const cache: WatchCache | undefined = withCache ? startWatchCache(client, client, { log: silentLogger, maxBytes: 16 << 20, wake: (w) => scheduler.wake(w), sighted: (s) => void sighted.push(s) }) : undefined;
  const passes = { count: 0 };
  const scheduler = new ReconcileScheduler(client, { log: silentLogger, holder: "me", leaseNamespace: "ordinal-system", intervalMs: HOUR, budgetMs: HOUR, idleMs: HOUR, onPass: () => void passes.count++, ...(cache ? { cache } : {}), ...(clock ? { clock } : {}) });
  const kubelet = new KubeletPlayer(createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} }), { namespace: "default" });
  const pods = () => fake.list<Pod>("/api/v1/namespaces/default/pods").map((p) => p.metadata!.name).sort();
  return { fake, requests, scheduler, cache, kubelet, pods, passes, sighted };
}

let stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stops) await s();
  stops = [];
});

/** settled waits until the first (full) pass has ended and the watch cache, if any, is synced, however slow the machine. */
async function settled(w: ReturnType<typeof world>): Promise<void> {
  await vi.waitFor(() => expect(w.passes.count).toBeGreaterThanOrEqual(1), { timeout: 10_000 });
  if (w.cache) await vi.waitFor(() => expect(w.cache!.synced()).toBe(true), { timeout: 10_000 });
}

/** rollsOut runs an OrderedReady set of 3 to the end with only the kubelet's writes to wake it; returns the reconciler's requests after the first full pass. */
async function rollsOut(withCache: boolean) {
  const w = world(withCache);
  stops.push(() => w.scheduler.stop(), async () => w.cache?.stop());
  w.fake.seed(setManifest({ name: "web", replicas: 3, policy: "OrderedReady" }));
  w.scheduler.start();
  await vi.waitFor(() => expect(w.pods()).toEqual(["web-0"]), { timeout: 10_000 });
  await settled(w);
  await new Promise((r) => setTimeout(r, 50));
  const before = w.requests.length;
  // Only the kubelet moves now: the full pass is an hour away and nobody calls wake().
  for (let i = 0; i < 60 && w.pods().length < 3; i++) {
    await w.kubelet.step();
    await new Promise((r) => setTimeout(r, 20));
  }
  return { pods: w.pods(), after: w.requests.slice(before) };
}

describe("ReconcileScheduler with the watch cache", () => {
  it("the watch wakes the set as the kubelet moves; its passes read nothing from the apiserver", async () => {
    const { pods, after } = await rollsOut(true);
    expect(pods).toEqual(["web-0", "web-1", "web-2"]);
    expect(after.filter((r) => r.startsWith("GET"))).toEqual([]);
    expect(after.filter((r) => r.startsWith("POST") && r.includes("/pods"))).toHaveLength(2);
  });

  it("without it (the same run): nothing wakes the set, it stays at web-0", async () => {
    const { pods } = await rollsOut(false);
    expect(pods).toEqual(["web-0"]);
  });

  it("a webhook's wake of a write the watch covers starts no pass of its own", async () => {
    const w = world(true);
    stops.push(() => w.scheduler.stop(), async () => w.cache?.stop());
    w.fake.seed(setManifest({ name: "web", replicas: 1, policy: "Parallel" }));
    w.scheduler.start();
    await vi.waitFor(() => expect(w.pods()).toEqual(["web-0"]), { timeout: 10_000 });
    await settled(w);
    await new Promise((r) => setTimeout(r, 100));
    const before = w.passes.count;
    for (let i = 0; i < 5; i++) w.scheduler.wake({ namespace: "default", name: "nope", write: { resource: "pods", name: "nope-0", operation: "CREATE" } });
    await new Promise((r) => setTimeout(r, 100));
    expect(w.passes.count).toBe(before);
    // One that announces no write (an ImageList's) still runs its pass (answered by the mirror: no request).
    const requests = w.requests.length;
    w.scheduler.wake({ namespace: "default", name: "nope" });
    await vi.waitFor(() => expect(w.passes.count).toBe(before + 1), { timeout: 10_000 });
    expect(w.requests.length).toBe(requests);
  });

  /**
   * lookupWorld starts a scheduler with a watch cache whose clock stands still (a set's pass, due
   * 2 ms after its wake, waits until `advance` moves it) and returns it once synced, with what
   * creates set `web` and the requests its orphan lookup sent (selector app=web) since.
   */
  async function lookupWorld() {
    let t = 0;
    const w = world(true, () => t);
    stops.push(() => w.scheduler.stop(), async () => w.cache?.stop());
    w.scheduler.start();
    await vi.waitFor(() => expect(w.passes.count).toBe(1), { timeout: 10_000 });
    await vi.waitFor(() => expect(w.cache!.synced()).toBe(true), { timeout: 10_000 });
    const before = w.requests.length;
    const admin = createKubeClient({ baseUrl: "https://fake", fetch: w.fake.fetch, sleep: async () => {} });
    return {
      w,
      createSet: () => admin.create(R.statefulSets, "default", setManifest({ name: "web", replicas: 1 }) as unknown as KubeObject),
      bySelector: () => w.requests.slice(before).filter((r) => r.includes("labelSelector=app=web")),
      advance: () => (t = 1_000),
    };
  }
  const LOOKUP = ["GET /api/v1/namespaces/default/pods", "GET /apis/apps/v1/namespaces/default/controllerrevisions"];

  it("a set the watch sees appear has its orphan lookup sent before its first pass runs, and the pass sends none of its own", async () => {
    const { w, createSet, bySelector, advance } = await lookupWorld();
    await createSet();
    await vi.waitFor(() => expect(bySelector().map((r) => r.split("?")[0])).toEqual(LOOKUP), { timeout: 5_000 });
    expect(w.passes.count).toBe(1);
    // And handed to `sighted` as stored (Node: the mutating hook's set cache), uid and all.
    expect(w.sighted.map((s) => [s.metadata?.name, typeof s.metadata?.uid])).toEqual([["web", "string"]]);
    advance();
    await vi.waitFor(() => expect(w.pods()).toEqual(["web-0"]), { timeout: 10_000 });
    expect(bySelector()).toHaveLength(2);
  });

  it("a wake that carries a selector but is not the watch's sighting (a forged review's, say) sends no lookup: the set's comes from the watch, by its stored selector", async () => {
    const { w, createSet, bySelector, advance } = await lookupWorld();
    const sent = () => w.requests.filter((r) => r.includes("labelSelector="));
    const before = sent().length;
    w.scheduler.wake({ namespace: "default", name: "web", write: { resource: "statefulsets", name: "web", operation: "CREATE" }, selector: "app" });
    w.scheduler.wake({ namespace: "empty", name: "web", selector: "app" });
    await new Promise((r) => setTimeout(r, 50));
    expect(sent().slice(before)).toEqual([]);
    await createSet();
    await vi.waitFor(() => expect(bySelector().map((r) => r.split("?")[0])).toEqual(LOOKUP), { timeout: 5_000 });
    advance();
    await vi.waitFor(() => expect(w.pods()).toEqual(["web-0"]), { timeout: 10_000 });
    expect(bySelector()).toHaveLength(2);
  });
});
