/**
 * Issue 19, finding 4: two reconcilers must never act at once. Reproduces the review's run: a
 * 250 ms-per-request proxy in front of the first reconciler makes its pass over 40 sets last about
 * a minute; 35 s in, a second reconciler tries the Lease. Before the fence and the renewals, the
 * second took the Lease (its renewTime was 35 s old) and both acted. Deterministic: one fake clock,
 * advanced by the slow proxy.
 */
import { describe, expect, it } from "vitest";
import type { KubeClient } from "../../src/kube/client.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger } from "../../src/log/log.ts";
import { runReconcile } from "../../src/schedule/loop.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

const LEASE = "/leases/";
const AT_35S = Date.parse("2026-11-21T12:00:35Z");

function world(o: { failRenewals: boolean }) {
  const fake = createFakeApiServer({ namespaces: ["default", "ordinal-system"] });
  for (let i = 0; i < 40; i++) fake.seed(setManifest({ name: `s${String(i).padStart(2, "0")}`, replicas: 1, policy: "Parallel" }));
  let t = Date.parse("2026-11-21T12:00:00Z");
  const now = () => new Date(t);
  /** Writes other than the Lease's: who made them, when. */
  const writes: { who: string; at: number; what: string }[] = [];
  let second: Promise<unknown> | undefined;
  let secondAcquired: boolean | undefined;
  /** runSecond runs the second reconciler once (one pass), when first called. */
  const runSecond = async () => {
    if (second) return;
    second = runReconcile(clientOf("second", false), { log: silentLogger, holder: "second", leaseNamespace: "ordinal-system", budgetMs: 60_000, maxPasses: 1, now });
    secondAcquired = ((await second) as { acquired: boolean }).acquired;
  };
  const clientOf = (who: string, slow: boolean): KubeClient =>
    createKubeClient({
      baseUrl: "https://fake",
      sleep: async () => {},
      maxAttempts: 1,
      fetch: async (input, init) => {
        const url = String(input instanceof Request ? input.url : input);
        const method = init?.method ?? (input instanceof Request ? input.method : "GET");
        if (slow) {
          t += 250;
          // 35 s into the first reconciler's pass, the second one runs (to its end: the fake clock stands still meanwhile).
          if (t >= AT_35S) await runSecond();
          if (o.failRenewals && method === "PUT" && url.includes(LEASE)) {
            return new Response(JSON.stringify({ kind: "Status", code: 503, reason: "ServiceUnavailable", message: "proxy hiccup" }), { status: 503 });
          }
        }
        if (method !== "GET" && !url.includes(LEASE)) writes.push({ who, at: t, what: `${method} ${url}` });
        return fake.fetch(input, init);
      },
    });
  /** Runs the first reconciler; the second comes 35 s in (or then, if the first finished before). */
  const run = async () => {
    const r = await runReconcile(clientOf("first", true), { log: silentLogger, holder: "first", leaseNamespace: "ordinal-system", budgetMs: 600_000, maxPasses: 1, now });
    t = Math.max(t, AT_35S);
    await runSecond();
    return r;
  };
  return { run, writes, secondAcquired: () => secondAcquired };
}

describe("two reconcilers never act at once (slow proxy, 40 sets)", () => {
  it("the holder renews between sets, so the second finds the Lease live and the first does every set", async () => {
    const w = world({ failRenewals: false });
    const r = await w.run();
    expect(w.secondAcquired()).toBe(false);
    expect(w.writes.filter((x) => x.who === "second")).toEqual([]);
    expect(r.passes[0].sets.filter((s) => s.actions.length > 0)).toHaveLength(40);
  });

  it("a holder that cannot renew stops writing before its lease can lapse; the taker acts alone", async () => {
    const w = world({ failRenewals: true });
    await w.run();
    expect(w.secondAcquired()).toBe(true);
    const firstWrites = w.writes.filter((x) => x.who === "first");
    const secondWrites = w.writes.filter((x) => x.who === "second");
    expect(firstWrites.length).toBeGreaterThan(0);
    expect(secondWrites.length).toBeGreaterThan(0);
    // Every write of the first comes before the second's first write: they never overlap.
    expect(Math.max(...firstWrites.map((x) => x.at))).toBeLessThan(Math.min(...secondWrites.map((x) => x.at)));
    // And the first stopped within the renew deadline (20 s) of its acquisition at 12:00:00.25.
    expect(Math.max(...firstWrites.map((x) => x.at))).toBeLessThan(Date.parse("2026-11-21T12:00:20.5Z"));
  });
});
