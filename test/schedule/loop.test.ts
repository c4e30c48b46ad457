/** runReconcile's budgets: passes, time and the first pass's guarantee, on the fake apiserver. */
import { describe, expect, it, vi } from "vitest";
import type { Lease } from "../../src/api/k8s.ts";
import type { KubeClient } from "../../src/kube/client.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger, type Logger } from "../../src/log/log.ts";
import { CURSOR_ANNOTATION } from "../../src/lease/lease.ts";
import { EventRecorder } from "../../src/reconciler/events.ts";
import { runReconcile } from "../../src/schedule/loop.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

/** world returns a client over a fake with `sets` OrderedReady sets whose web-0 never gets Ready (every pass waits), and a clock. */
async function world(sets = 1) {
  const fake = createFakeApiServer({ namespaces: ["default", "ordinal-system"] });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  let t = Date.parse("2026-11-21T12:00:00Z");
  const clock = { now: () => new Date(t), advance: (ms: number) => void (t += ms) };
  for (let i = 0; i < sets; i++) fake.seed(setManifest({ name: `s${i}`, replicas: 2, policy: "OrderedReady" }));
  await reconcilePass(client, { now: clock.now, log: silentLogger });
  return { fake, client, clock };
}

/** counting returns `client` with its request count pinned at `n` (the budgets' arithmetic, exactly). */
const counting = (client: KubeClient, n: number): KubeClient => ({ ...client, get requestCount() { return n; } });

/** recorder returns a Logger that keeps `level msg` lines and their fields. */
function recorder() {
  const lines: { line: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ line: `${level} ${msg}`, fields });
  return { log: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") } satisfies Logger, lines };
}

const base = { log: silentLogger, holder: "me", leaseNamespace: "ordinal-system", idleMs: 1, sleep: async () => {} };

describe("runReconcile", () => {
  it("makes exactly maxPasses passes while work is pending", async () => {
    const { client, clock } = await world();
    const r = await runReconcile(client, { ...base, now: clock.now, budgetMs: 3_600_000, maxPasses: 3 });
    expect(r.passes.map((p) => p.pending)).toEqual([true, true, true]);
  });

  it.each([
    // Each pass takes 10 s; an idle pause is 1 ms. After pass 2, 20 s + 1 ms of pause reach a
    // budget of 20.001 s: stop. A budget 1 ms longer allows pass 3.
    ["stops when the next pause would reach the time budget", 20_001, 2],
    ["goes on while it would not", 20_002, 3],
  ])("%s", async (_, budgetMs, passes) => {
    const { client, clock } = await world();
    const r = await runReconcile(client, { ...base, now: clock.now, budgetMs, maxPasses: 10, beforePass: async () => clock.advance(10_000) });
    expect(r.passes).toHaveLength(passes);
  });

  it("the first pass visits every set even past the time budget", async () => {
    const { client, clock } = await world(2);
    const r = await runReconcile(client, { ...base, now: clock.now, budgetMs: 5_000, maxPasses: 2, beforePass: async () => clock.advance(10_000) });
    expect(r.passes.map((p) => p.sets.map((s) => s.set))).toEqual([["default/s0", "default/s1"]]);
  });

  it("a later pass stops between sets once the time budget is spent, and says work is pending", async () => {
    const { client, clock } = await world(2);
    let calls = 0;
    const beforePass = async () => void (calls++ > 0 && clock.advance(10_000));
    const r = await runReconcile(client, { ...base, now: clock.now, budgetMs: 5_000, maxPasses: 2, beforePass });
    expect(r.passes.map((p) => p.sets.map((s) => s.set))).toEqual([["default/s0", "default/s1"], []]);
    expect(r.passes[1].pending).toBe(true);
  });

  it.each([
    // A pass reserves 20 requests: with 80 made of 100 the budget is spent before the first set.
    ["the request budget is spent when 20 requests remain: the first pass stops before any set", 80, []],
    ["with 21 left the first pass visits every set", 79, ["default/s0", "default/s1"]],
  ])("%s", async (_, made, visited) => {
    const { client, clock } = await world(2);
    const r = await runReconcile(counting(client, made), { ...base, now: clock.now, budgetMs: 3_600_000, maxRequests: 100, maxPasses: 3 });
    expect(r.passes[0].sets.map((s) => s.set)).toEqual(visited);
    expect(r.passes[0].pending).toBe(true);
  });

  it.each([
    // Another pass needs two reserves left: 60 made of 100 is too many, 59 is not.
    ["no further pass when fewer than 41 requests remain", 60, 1],
    ["a further pass with 41 left", 59, 2],
  ])("%s", async (_, made, passes) => {
    const { client, clock } = await world();
    const r = await runReconcile(counting(client, made), { ...base, now: clock.now, budgetMs: 3_600_000, maxRequests: 100, maxPasses: 2 });
    expect(r.passes).toHaveLength(passes);
  });

  it.each([
    ["a later pass stops when exactly the time budget has passed", 5_000, []],
    ["it visits its sets a millisecond before", 4_999, ["default/s0"]],
  ])("%s", async (_, advance, visited) => {
    const { client, clock } = await world();
    let calls = 0;
    const beforePass = async () => void (calls++ === 1 && clock.advance(advance));
    const r = await runReconcile(client, { ...base, now: clock.now, budgetMs: 5_000, maxPasses: 2, beforePass });
    expect(r.passes[1].sets.map((s) => s.set)).toEqual(visited);
  });

  it("one pass when nothing is pending, whatever maxPasses allows", async () => {
    const { client, clock } = await world(0);
    const r = await runReconcile(client, { ...base, now: clock.now, budgetMs: 3_600_000, maxPasses: 5 });
    expect(r.passes.map((p) => p.pending)).toEqual([false]);
  });

  it("an aborted signal ends the invocation after the current pass, and the lease is released", async () => {
    const { fake, client, clock } = await world();
    const signal = AbortSignal.abort();
    const r = await runReconcile(client, { ...base, now: clock.now, budgetMs: 3_600_000, maxPasses: 5, signal });
    expect(r.passes.map((p) => p.pending)).toEqual([true]);
    expect(fake.get<Lease>("/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases/ordinal-reconciler")?.spec?.holderIdentity).toBeUndefined();
  });

  it("sleeps idleMs between idle passes and not at all after a pass that acted", async () => {
    const fake = createFakeApiServer({ namespaces: ["default", "ordinal-system"] });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    fake.seed(setManifest({ name: "s0", replicas: 1, policy: "OrderedReady" }));
    const sleeps: number[] = [];
    const r = await runReconcile(client, { ...base, idleMs: 7, maxPasses: 4, budgetMs: 3_600_000, sleep: async (ms) => void sleeps.push(ms) });
    // The first pass creates web-0 (its gate opened at once) and writes status (it acted); the later ones wait for it to be Ready.
    const acted = r.passes.map((p) => p.actionCount > 0);
    expect(acted).toEqual([true, false, false, false]);
    // No pause after pass 1 (it acted), idleMs after passes 2 and 3, none after the last.
    expect(sleeps).toEqual([7, 7]);
  });

  it("without a sleep option an idle pause is a timer of idleMs: the next pass waits for it", async () => {
    const { client, clock } = await world();
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    try {
      let finished = false;
      const run = runReconcile(client, { ...base, sleep: undefined, idleMs: 5_000, now: clock.now, budgetMs: 3_600_000, maxPasses: 2 }).then((r) => {
        finished = true;
        return r;
      });
      for (let i = 0; i < 1_000 && vi.getTimerCount() === 0; i++) await new Promise<void>((r) => setImmediate(r));
      expect(vi.getTimerCount()).toBe(1);
      await vi.advanceTimersByTimeAsync(4_999);
      expect(finished).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const r = await run;
      // Both passes wait on web-0 (world's pass created it, its gate open): one pause between them.
      expect(r.passes.map((p) => p.actionCount > 0)).toEqual([false, false]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("events that cannot be closed are logged, and the lease is still released", async () => {
    const { fake, client, clock } = await world();
    const { log, lines } = recorder();
    const close = vi.spyOn(EventRecorder.prototype, "close").mockRejectedValueOnce(new Error("events down"));
    try {
      await runReconcile(client, { ...base, log, now: clock.now, budgetMs: 3_600_000, maxPasses: 1 });
    } finally {
      close.mockRestore();
    }
    expect(lines).toContainEqual({ line: "warn events not recorded", fields: { error: "Error: events down" } });
    expect(fake.get<Lease>("/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases/ordinal-reconciler")?.spec?.holderIdentity).toBeUndefined();
  });

  it("a hinted invocation (one set) leaves the cursor of the full passes as it was", async () => {
    const { fake, client, clock } = await world(2);
    const path = "/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases/ordinal-reconciler";
    fake.put({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "ordinal-reconciler", namespace: "ordinal-system", annotations: { [CURSOR_ANNOTATION]: "default/s0" } }, spec: {} });
    const r = await runReconcile(client, { ...base, now: clock.now, budgetMs: 3_600_000, maxPasses: 1, namespace: "default", setName: "s1", maxRequests: 1_000 });
    expect(r.passes[0].sets.map((s) => s.set)).toEqual(["default/s1"]);
    expect(fake.get<Lease>(path)?.metadata?.annotations?.[CURSOR_ANNOTATION]).toBe("default/s0");
  });

  it("a failing beforePass is logged and the pass still runs", async () => {
    const { client, clock } = await world();
    const { log, lines } = recorder();
    const r = await runReconcile(client, { ...base, log, now: clock.now, budgetMs: 3_600_000, maxPasses: 1, beforePass: () => Promise.reject(new Error("registration down")) });
    expect(r.passes).toHaveLength(1);
    expect(lines).toContainEqual({ line: "warn beforePass failed", fields: { error: "Error: registration down" } });
  });

  it("a lease held elsewhere is logged and skipped; a failed release is logged, not thrown", async () => {
    const { fake, client, clock } = await world();
    const { log, lines } = recorder();
    const other = await runReconcile(client, { ...base, log, holder: "other", now: clock.now, budgetMs: 3_600_000, maxPasses: 1 });
    expect(other.acquired).toBe(true);
    // Its lease exists: taking it is one update, releasing it the next.
    fake.faults.add({ verb: "update", resource: "leases", fault: "internal", skip: 1, times: 1 });
    const r = await runReconcile(client, { ...base, log, now: clock.now, budgetMs: 3_600_000, maxPasses: 1 });
    expect(r.acquired).toBe(true);
    expect(lines).toContainEqual({ line: "warn lease release failed", fields: { error: expect.stringMatching(/injected fault/) } });
    const skipped = await runReconcile(client, { ...base, log, holder: "third", now: clock.now, budgetMs: 3_600_000 });
    expect(skipped).toEqual({ acquired: false, passes: [] });
    expect(lines).toContainEqual({ line: "debug lease held elsewhere; skipping", fields: { holder: "third" } });
  });

  describe("a Lease of another shard count (an `ordinal serve` with RECONCILE_SHARDS=8 beside `ordinal reconcile --once`)", () => {
    const LEASES = "/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases";
    const shardLease = (renewTime: string): Lease & { metadata: { name: string; namespace: string } } => ({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "ordinal-reconciler-3-of-8", namespace: "ordinal-system" },
      spec: { holderIdentity: "node-serve", leaseDurationSeconds: 15, renewTime: renewTime as never },
    });
    /** run returns the invocation's result and the pods it made, its sleeps advancing the clock (and renewing the other Lease when `alive`). */
    async function run(alive: boolean) {
      const { fake, client, clock } = await world();
      fake.put(shardLease("2026-11-21T12:00:00.000000Z"));
      fake.seed(setManifest({ name: "fresh", replicas: 1 })); // an invocation that acts creates fresh-0
      const podsBefore = fake.list("/api/v1/namespaces/default/pods").length;
      let renewals = 0;
      const sleep = async (ms: number) => {
        clock.advance(ms);
        if (alive) fake.put(shardLease(`2026-11-21T12:00:${String(++renewals * 2).padStart(2, "0")}.000000Z`));
      };
      const { log, lines } = recorder();
      const r = await runReconcile(client, { ...base, log, sleep, now: clock.now, budgetMs: 3_600_000, maxPasses: 1 });
      return { r, lines, fake, made: fake.list("/api/v1/namespaces/default/pods").length - podsBefore };
    }

    it("does not act while that Lease is renewed, takes no Lease of its own, and says why", async () => {
      const { r, lines, fake, made } = await run(true);
      expect(r).toMatchObject({ acquired: false, passes: [], yieldedTo: ["ordinal-reconciler-3-of-8 (held by node-serve)"] });
      expect(made).toBe(0);
      expect(fake.get<Lease>(`${LEASES}/ordinal-reconciler`)?.spec?.holderIdentity).toBeUndefined();
      expect(lines.map((l) => l.line)).toContain("warn reconciler Leases of another shard count are live: this invocation does not act");
    });

    it("acts once that Lease was seen unrenewed for its duration (its holder died), releasing it", async () => {
      const { r, fake, made } = await run(false);
      expect(r.acquired).toBe(true);
      expect(made).toBeGreaterThan(0);
      expect(fake.get<Lease>(`${LEASES}/ordinal-reconciler-3-of-8`)?.spec?.holderIdentity).toBeUndefined();
    });
  });
});
