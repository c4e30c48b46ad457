/**
 * `ordinal serve`'s reconciler keeps a quarantined namespace unread with the watch cache on (issue
 * 35, src/node/reconciler.ts): the namespace guard wraps what passes read above the cache, so a
 * targeted pass the mirror answers is refused too and reports NamespaceQuarantined, as the full
 * pass does; and the Lease's reads are never reported as reading a namespace (a death is never
 * blamed on the lease namespace). Before, the guard wrapped the client under the cache
 * (reconcile-thread.ts): a set of a quarantined namespace scaled up was planned from the mirror and
 * its pod created, and every Lease list reported the lease namespace as read. Both tests fail before.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger } from "../../src/log/log.ts";
import { nodeReconciler } from "../../src/node/reconciler.ts";
import { NamespaceGuard, type Reading } from "../../src/reconciler/namespace-guard.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { strikeInCluster } from "../../src/reconciler/quarantine.ts";
import { buildReconciler } from "../../src/reconciler-stack.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

const HOUR = 3_600_000;

let stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stops) await s();
  stops = [];
});

/** world runs `ordinal serve`'s reconciler (watch cache on) over a fake with sets a/web and b/web, `a` quarantined for an hour. */
async function world() {
  const fake = createFakeApiServer({ namespaces: ["a", "b", "ordinal-system"] });
  for (const namespace of ["a", "b"]) fake.seed(setManifest({ namespace, replicas: 1, policy: "Parallel" }));
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} });
  // Both sets were reconciled before `a` was struck (a revision and web-0 each).
  await reconcilePass(client, { now: () => new Date(), log: silentLogger });
  const now = new Date();
  await strikeInCluster(client, "ordinal-system", "a", "the reconcile thread ran out of heap while reading it", new Date(now.getTime() - 60_000));
  await strikeInCluster(client, "ordinal-system", "a", "again", now); // 2 strikes: set aside for 2 minutes
  const stack = buildReconciler(client, { log: silentLogger });
  const guard = new NamespaceGuard(stack.client, "ordinal-system", silentLogger);
  await guard.start(undefined);
  const readings: Reading[] = [];
  /** The sets each pass reported, in order. */
  const passes: string[][] = [];
  const { loop, cache } = nodeReconciler(stack, {
    vars: { WATCH_CACHE_MB: "16" },
    watcher: client,
    log: silentLogger,
    leaseNamespace: "ordinal-system",
    scheduling: { holder: "me", intervalMs: HOUR, budgetMs: HOUR, idleMs: HOUR },
    shards: 1,
    passReads: (c) => guard.guardedClient(c, (r) => void readings.push(r)),
    onPass: (p) => void passes.push(p.sets.map((x) => x.set)),
  });
  stops.push(() => loop.stop(), async () => cache?.stop());
  const pods = (ns: string) => fake.list<Pod>(`/api/v1/namespaces/${ns}/pods`).map((p) => p.metadata!.name).sort();
  const reason = () =>
    fake.get<{ status?: { conditions?: { type: string; reason?: string }[] } }>("/apis/apps.ordinal.dev/v1/namespaces/a/statefulsets/web")?.status?.conditions?.find((c) => c.type === "ReconcileError")?.reason;
  return { fake, loop, cache, pods, reason, readings, passes };
}

describe("ordinal serve's reconciler with a quarantined namespace", () => {
  it("a targeted pass answered by the watch cache's mirror does not plan the quarantined namespace: it reports NamespaceQuarantined", async () => {
    const w = await world();
    w.loop.start();
    await vi.waitFor(() => expect(w.reason()).toBe("NamespaceQuarantined"), { timeout: 10_000 });
    await vi.waitFor(() => expect(w.cache?.synced()).toBe(true), { timeout: 10_000 });
    // Both sets scaled to 2: the watch wakes each, and their targeted passes read the mirror.
    const before = w.passes.length;
    for (const ns of ["a", "b"]) {
      const set = w.fake.get<{ metadata: object; spec: object }>(`/apis/apps.ordinal.dev/v1/namespaces/${ns}/statefulsets/web`)!;
      w.fake.put({ ...set, spec: { ...set.spec, replicas: 2 } });
    }
    await vi.waitFor(() => expect(w.pods("b")).toEqual(["web-0", "web-1"]), { timeout: 10_000 });
    await vi.waitFor(() => expect(w.passes.slice(before)).toContainEqual(["a/web"]), { timeout: 10_000 });
    expect(w.pods("a")).toEqual(["web-0"]);
    expect(w.reason()).toBe("NamespaceQuarantined");
  });

  it("the Lease's reads are not reported as reading the lease namespace", async () => {
    const w = await world();
    w.loop.start();
    await vi.waitFor(() => expect(w.reason()).toBe("NamespaceQuarantined"), { timeout: 10_000 });
    expect(w.readings.length).toBeGreaterThan(0);
    expect(w.readings.filter((r) => r.namespace === "ordinal-system")).toEqual([]);
  });
});
