/**
 * ShardSchedulers (src/schedule/shard-schedulers.ts): a replica with another shard count waits
 * while the first count's Leases are live and takes over once they are released (sharing among
 * replicas of one count, and takeover when one dies: shard-takeover.test.ts).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Lease, Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger } from "../../src/log/log.ts";
import { ShardSchedulers } from "../../src/schedule/shard-schedulers.ts";
import { createFakeApiServer, type FakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

const NAMESPACES = Array.from({ length: 8 }, (_, i) => `ns-${i}`);
const ELECTION = { durationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 300 };

/** replica returns one `ordinal serve` replica's schedulers and what it wrote; `kill()` makes every later call of it fail. */
function replica(fake: FakeApiServer, holder: string, count: number) {
  let dead = false;
  const writes: { namespace: string; at: number }[] = [];
  const client = createKubeClient({
    baseUrl: "https://fake",
    sleep: async () => {},
    maxAttempts: 1,
    fetch: async (input, init) => {
      if (dead) throw new TypeError("fetch failed");
      const url = new URL(String(input instanceof Request ? input.url : input));
      const ns = /\/namespaces\/([^/]+)\//.exec(url.pathname)?.[1];
      if ((init?.method ?? "GET") !== "GET" && ns && ns !== "ordinal-system") writes.push({ namespace: ns, at: performance.now() });
      return fake.fetch(input, init);
    },
  });
  const schedulers = new ShardSchedulers(client, { log: silentLogger, holder, leaseNamespace: "ordinal-system", intervalMs: 500, budgetMs: 60_000, idleMs: 200, election: ELECTION }, count);
  running.push(schedulers);
  return { schedulers, writes, kill: () => (dead = true) };
}

let running: ShardSchedulers[] = [];
afterEach(async () => {
  await Promise.all(running.map((s) => s.stop().catch(() => undefined)));
  running = [];
});

function world() {
  const fake = createFakeApiServer({ namespaces: [...NAMESPACES, "ordinal-system"] });
  for (const namespace of NAMESPACES) fake.seed(setManifest({ name: "web", namespace, replicas: 1, policy: "Parallel" }));
  const podsIn = (ns: string) => fake.list<Pod>(`/api/v1/namespaces/${ns}/pods`).length;
  const holders = () => fake.list<Lease>("/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases").map((l) => `${l.metadata?.name}=${l.spec?.holderIdentity ?? ""}`);
  return { fake, podsIn, holders };
}

describe("ShardSchedulers", () => {
  it("a replica with another shard count acts for nothing while the first count's Leases are live, and takes over once they are released", async () => {
    const w = world();
    const old = replica(w.fake, "old", 2);
    old.schedulers.start();
    await vi.waitFor(() => expect(old.schedulers.held()).toEqual([0, 1]), { timeout: 15_000, interval: 50 });
    await vi.waitFor(() => expect(NAMESPACES.map(w.podsIn)).toEqual(NAMESPACES.map(() => 1)), { timeout: 15_000 });
    const next = replica(w.fake, "new", 4);
    next.schedulers.start();
    // Several lease durations: the old count's Leases stay live (renewed), so the new count takes none.
    await new Promise((r) => setTimeout(r, 3 * ELECTION.durationMs));
    expect(next.schedulers.held()).toEqual([]);
    expect(w.holders().filter((h) => /^ordinal-reconciler-\d+-of-4=new$/.test(h))).toEqual([]);
    expect(next.writes).toEqual([]);
    await old.schedulers.stop();
    await vi.waitFor(() => expect(next.schedulers.held()).toEqual([0, 1, 2, 3]), { timeout: 15_000, interval: 20 });
    expect(old.schedulers.held()).toEqual([]);
  });
});
