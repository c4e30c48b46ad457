/** runReconcile's budgets: passes, time and the first pass's guarantee, on the fake apiserver. */
import { describe, expect, it } from "vitest";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger } from "../../src/log/log.ts";
import { runReconcile } from "../../src/reconciler/loop.ts";
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
  return { client, clock };
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
});
