/**
 * ReconcileScheduler (src/schedule/scheduler.ts) on the fake apiserver: a wake runs a targeted
 * pass that reads only its set's objects; a wake of a set that does not exist costs one read; no
 * Lease write per pass; wakes cut the idle wait short (the full pass interval is an hour here, so
 * only a wake can make the set progress); its passes share one event recorder, so events are
 * combined across them as kube's correlator does.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Lease, Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger } from "../../src/log/log.ts";
import { ReconcileScheduler, type SetWake } from "../../src/schedule/scheduler.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { UNSEEN_RECHECK_MS } from "../../src/schedule/tables.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { setManifest } from "../support/fixtures.ts";

const HOUR = 3_600_000;
const LEASE = "/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases/ordinal-reconciler";

function world() {
  const fake = createFakeApiServer({ namespaces: ["default", "other", "ordinal-system"] });
  const requests: string[] = [];
  const client = createKubeClient({
    baseUrl: "https://fake",
    sleep: async () => {},
    maxAttempts: 1,
    fetch: async (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      requests.push(`${init?.method ?? "GET"} ${decodeURIComponent(url.pathname + url.search)}`);
      return fake.fetch(input, init);
    },
  });
  const ended = { passes: 0 };
  const scheduler = new ReconcileScheduler(client, { log: silentLogger, holder: "me", leaseNamespace: "ordinal-system", intervalMs: HOUR, budgetMs: HOUR, idleMs: HOUR, coalesceMs: 1, onPass: () => void ended.passes++ });
  const pods = (ns = "default") => fake.list<Pod>(`/api/v1/namespaces/${ns}/pods`).map((p) => p.metadata!.name).sort();
  /** passesEnded waits until `n` passes have ended (the first: the full pass after the Lease is taken), however slow the machine. */
  const passesEnded = (n: number) => vi.waitFor(() => expect(ended.passes).toBeGreaterThanOrEqual(n), { timeout: 10_000 });
  return { fake, client, requests, scheduler, pods, passesEnded };
}

let running: ReconcileScheduler | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe("ReconcileScheduler", () => {
  it("a wake runs a targeted pass that reads only its set's objects, with no Lease write", async () => {
    const w = world();
    w.fake.seed(setManifest({ name: "web", replicas: 1, policy: "Parallel" }));
    running = w.scheduler;
    w.scheduler.start();
    await vi.waitFor(() => expect(w.pods()).toEqual(["web-0"]), { timeout: 10_000 });
    // The first full pass is done and the next is an hour away: only a wake can act now.
    w.fake.seed(setManifest({ name: "db", namespace: "other", replicas: 1, policy: "Parallel" }));
    await w.passesEnded(1);
    await new Promise((r) => setTimeout(r, 50));
    const before = w.requests.length;
    w.scheduler.wake({ namespace: "other", name: "db" });
    await vi.waitFor(() => expect(w.pods("other")).toEqual(["db-0"]), { timeout: 10_000 });
    await w.passesEnded(2);
    await new Promise((r) => setTimeout(r, 50));
    const after = w.requests.slice(before);
    const reads = after.filter((r) => r.startsWith("GET"));
    expect(reads.length).toBeGreaterThan(0);
    for (const r of reads) expect(r).toMatch(/namespaces\/other\//);
    // Pods by db's label (or, once for a new set, its own selector): never another set's, never all.
    for (const r of reads.filter((r) => r.includes("/pods?"))) expect(r).toMatch(/labelSelector=(ordinal\.dev\/statefulset=db|app=db)&/);
    expect(after.filter((r) => r.includes("/leases/") && !r.startsWith("GET"))).toEqual([]);
  });

  it("a wake of a set that does not exist costs one read", async () => {
    const w = world();
    running = w.scheduler;
    w.scheduler.start();
    await vi.waitFor(() => expect(w.requests.some((r) => r.includes("imagelists"))).toBe(true), { timeout: 10_000 });
    await w.passesEnded(1);
    await new Promise((r) => setTimeout(r, 50));
    const before = w.requests.length;
    w.scheduler.wake({ namespace: "default", name: "nope" });
    await vi.waitFor(() => expect(w.requests.length).toBeGreaterThan(before), { timeout: 10_000 });
    await new Promise((r) => setTimeout(r, 100));
    expect(w.requests.slice(before)).toEqual(["GET /apis/apps.ordinal.dev/v1/namespaces/default/statefulsets?fieldSelector=metadata.name=nope&limit=500"]);
  });

  /** waitingOnWeb0 returns a world whose scheduler runs and has created web-0 of an OrderedReady set of 2 (the set then waits on it), and a counter of web's targeted passes. */
  async function waitingOnWeb0() {
    const w = world();
    w.fake.seed(setManifest({ name: "web", replicas: 2, policy: "OrderedReady" }));
    running = w.scheduler;
    w.scheduler.start();
    await vi.waitFor(() => expect(w.pods()).toEqual(["web-0"]), { timeout: 10_000 });
    await w.passesEnded(1);
    await new Promise((r) => setTimeout(r, 400));
    const before = w.requests.length;
    const passes = () => w.requests.slice(before).filter((r) => r.includes("fieldSelector=metadata.name=web")).length;
    const web0 = () => w.fake.get<Pod>("/api/v1/namespaces/default/pods/web-0")!;
    return { ...w, passes, web0 };
  }

  it("a wake whose announced write the pass already reads: a set that still waits costs that one pass, no blind rechecks", async () => {
    const w = await waitingOnWeb0();
    const old = w.web0().metadata!.resourceVersion!;
    // The kubelet's write is stored (Running, not Ready yet): the set still waits on web-0.
    w.fake.put({ ...w.web0(), status: { ...w.web0().status, phase: "Running" } });
    w.scheduler.wake({ namespace: "default", name: "web", write: { resource: "pods", name: "web-0", operation: "UPDATE", resourceVersion: old } });
    await vi.waitFor(() => expect(w.passes()).toBe(1), { timeout: 10_000 });
    await new Promise((r) => setTimeout(r, 600));
    expect(w.passes()).toBe(1);
  });

  it("a wake whose announced write is not stored yet: the set is looked at again soon, a bounded number of times (reading only the pod), and acts once it is", async () => {
    const w = await waitingOnWeb0();
    const probes = () => w.requests.filter((r) => r.startsWith("GET /api/v1/namespaces/default/pods/web-0")).length;
    const rv = w.web0().metadata!.resourceVersion!;
    w.scheduler.wake({ namespace: "default", name: "web", write: { resource: "pods", name: "web-0", operation: "UPDATE", resourceVersion: rv } });
    // Never stored (refused later, say): the wake's pass, a look per UNSEEN_RECHECK_MS step that
    // reads only web-0 (the schedule model's probe), the last one a pass; then no more.
    await vi.waitFor(() => expect([w.passes(), probes()]).toEqual([2, UNSEEN_RECHECK_MS.length - 1]), { timeout: 15_000 });
    await new Promise((r) => setTimeout(r, 600));
    expect([w.passes(), probes()]).toEqual([2, UNSEEN_RECHECK_MS.length - 1]);
    // Stored after the wake's pass read (as the set's first look starts): that look sees the write, passes the set, and creates web-1.
    const ready = { ...w.web0(), status: { phase: "Running", conditions: [...(w.web0().status?.conditions ?? []), { type: "Ready", status: "True" }] } };
    let looks = 0;
    w.fake.onRequest((r) => {
      if (r.method === "GET" && r.resource === "statefulsets" && ++looks === 1) setTimeout(() => w.fake.put(ready), 0);
    });
    w.scheduler.wake({ namespace: "default", name: "web", write: { resource: "pods", name: "web-0", operation: "UPDATE", resourceVersion: w.web0().metadata!.resourceVersion! } });
    await vi.waitFor(() => expect(w.pods()).toEqual(["web-0", "web-1"]), { timeout: 10_000 });
  });

  it("a standby replica forwards its wakes to the leader's endpoint from the Lease, and a forwarded wake is never forwarded again", async () => {
    const w = world();
    const leader = new ReconcileScheduler(w.client, { log: silentLogger, holder: "a", leaseNamespace: "ordinal-system", intervalMs: HOUR, budgetMs: HOUR, idleMs: HOUR, endpoint: "https://10.0.0.1:8443/internal/wake" });
    const forwarded: [string, SetWake][] = [];
    const standby = new ReconcileScheduler(w.client, {
      log: silentLogger, holder: "b", leaseNamespace: "ordinal-system", intervalMs: HOUR, budgetMs: HOUR, idleMs: HOUR,
      endpoint: "https://10.0.0.2:8443/internal/wake",
      forward: async (endpoint, wake) => void forwarded.push([endpoint, wake]),
    });
    running = leader;
    leader.start();
    await vi.waitFor(() => expect(w.fake.get<Lease>(LEASE)?.metadata?.annotations?.["ordinal.dev/wake-endpoint"]).toBe("https://10.0.0.1:8443/internal/wake"), { timeout: 10_000 });
    standby.start();
    try {
      const wake: SetWake = { namespace: "default", name: "web", write: { resource: "pods", name: "web-0", operation: "CREATE" } };
      await vi.waitFor(() => {
        standby.wake(wake);
        expect(forwarded.length).toBeGreaterThan(0);
      }, { timeout: 10_000 });
      expect(forwarded[0]).toEqual(["https://10.0.0.1:8443/internal/wake", wake]);
      const n = forwarded.length;
      standby.wake(wake, true);
      expect(forwarded).toHaveLength(n);
    } finally {
      await standby.stop();
    }
  });

  it("wakes of one set faster than its rate are coalesced and limited, never dropped", async () => {
    const w = world();
    w.fake.seed(setManifest({ name: "web", replicas: 1, policy: "Parallel" }));
    running = w.scheduler;
    w.scheduler.start();
    await vi.waitFor(() => expect(w.pods()).toEqual(["web-0"]), { timeout: 10_000 });
    await w.passesEnded(1);
    await new Promise((r) => setTimeout(r, 50));
    const before = w.requests.length;
    for (let i = 0; i < 1000; i++) w.scheduler.wake({ namespace: "default", name: "web" });
    await new Promise((r) => setTimeout(r, 300));
    const passes = w.requests.slice(before).filter((r) => r.includes("fieldSelector=metadata.name=web")).length;
    expect(passes).toBeGreaterThanOrEqual(1);
    // 1000 wakes in a burst: far fewer passes than wakes (coalesced), at most the set's burst.
    expect(passes).toBeLessThanOrEqual(20);
  });

  /** eventsOf returns the set's Events in the fake as `count message`, in creation order. */
  const eventsOf = (w: ReturnType<typeof world>, reason: string) =>
    w.fake.list<{ reason: string; message: string; count: number }>("/api/v1/namespaces/default/events").filter((e) => e.reason === reason).map((e) => `${e.count} ${e.message}`);

  it("an OrderedReady scale-up's events are combined across its targeted passes as kube's correlator does: 9 Events, then one aggregate", async () => {
    const w = world();
    w.fake.seed(setManifest({ name: "web", replicas: 11, policy: "OrderedReady" }));
    const kubelet = new KubeletPlayer(w.client, { namespace: "default" });
    running = w.scheduler;
    w.scheduler.start();
    // Full passes are an hour apart: each step after the first is a wake's targeted pass.
    const ready = () => w.fake.list<Pod>("/api/v1/namespaces/default/pods").filter((p) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")).length;
    await vi.waitFor(
      async () => {
        await kubelet.step();
        w.scheduler.wake({ namespace: "default", name: "web" });
        expect(ready()).toBe(11);
      },
      { timeout: 15_000, interval: 30 },
    );
    await w.scheduler.stop();
    running = undefined;
    const single = Array.from({ length: 9 }, (_, i) => `1 create Pod web-${i} in StatefulSet web successful`);
    // Before, each pass had a recorder of its own: 11 Events of count 1, none combined.
    expect(eventsOf(w, "SuccessfulCreate")).toEqual([...single, "2 (combined from similar events): create Pod web-10 in StatefulSet web successful"]);
  });

  it("a set failing pass after pass has one Event whose count is every failure (kube's dedupe), not an Event per pass", async () => {
    const w = world();
    w.fake.faults.add({ verb: "create", resource: "pods", fault: { status: 403, reason: "Forbidden", message: "pods is forbidden: exceeded quota" }, times: 1_000 });
    w.fake.seed(setManifest({ name: "web", replicas: 1, policy: "Parallel" }));
    running = w.scheduler;
    w.scheduler.start();
    const refused = () => w.fake.log.entries.filter((e) => e.resource === "pods" && e.verb === "create").length;
    await vi.waitFor(() => expect(refused()).toBeGreaterThanOrEqual(1), { timeout: 10_000 });
    for (let i = 0; i < 3; i++) {
      const n = refused();
      w.scheduler.wake({ namespace: "default", name: "web" });
      await vi.waitFor(() => expect(refused()).toBeGreaterThan(n), { timeout: 10_000 });
    }
    await w.scheduler.stop();
    running = undefined;
    // Before, one Event per pass.
    const failed = eventsOf(w, "FailedCreate");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatch(new RegExp(`^${refused()} create Pod web-0 in StatefulSet web failed`));
  });
});
