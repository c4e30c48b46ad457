/**
 * ShardSchedulers' sharing (src/schedule/shard-schedulers.ts, shard-share.ts) on the fake
 * apiserver with fake timers (the schedulers' clock, sleeps and the apiserver's clock are one
 * injected clock): a lone replica takes all 8 shards in its first round; a second replica gets
 * half; a dead replica's shards are taken as soon as their Leases expire; and never do two
 * replicas hold one shard at one instant: every write that reaches the apiserver comes from the
 * holder of its namespace's shard Lease at that instant, and a replica whose Lease was taken while
 * it paused mid-pass has its next write refused by the fence (fence.ts).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Lease, Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import type { Logger } from "../../src/log/log.ts";
import { shardOf } from "../../src/reconciler/pass.ts";
import { replicaLeaseName, shardLeaseName } from "../../src/lease/shard-leases.ts";
import { ShardSchedulers } from "../../src/schedule/shard-schedulers.ts";
import { createFakeApiServer, type FakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

const N = 8;
const NAMESPACES = Array.from({ length: N }, (_, i) => `ns-${i}`);
const ELECTION = { durationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 5_000 };
const LEASES = "/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases";

/** holderOf returns who holds shard `i`'s Lease in the fake apiserver now ("" for nobody). */
const holderOf = (fake: FakeApiServer, i: number): string => fake.get<Lease>(`${LEASES}/${shardLeaseName(i, N)}`)?.spec?.holderIdentity ?? "";

/** Writes that reached the apiserver from a replica that did not hold its namespace's shard Lease at that instant. */
let violations: string[] = [];

/**
 * replica returns one `ordinal serve` replica: its schedulers, the writes it made, what it logged,
 * `kill()` (every later call fails: it cannot renew) and `pauseAfterNextWrite()` (the response of its
 * next write, and everything after, waits until `resume()`: a process paused mid-pass).
 */
function replica(fake: FakeApiServer, holder: string) {
  let dead = false;
  let armed = false;
  let gate: Promise<void> | undefined;
  let open: () => void = () => {};
  const writes: string[] = [];
  const logged: string[] = [];
  const capture = (msg: string, fields?: Record<string, unknown>) => void logged.push(`${msg} ${JSON.stringify(fields ?? {})}`);
  const log: Logger = { info: capture, warn: capture, error: capture };
  const client = createKubeClient({
    baseUrl: "https://fake",
    sleep: async () => {},
    maxAttempts: 1,
    fetch: async (input, init) => {
      if (dead) throw new TypeError("fetch failed");
      if (gate) await gate;
      const url = new URL(String(input instanceof Request ? input.url : input));
      const ns = /\/namespaces\/([^/]+)\//.exec(url.pathname)?.[1];
      const write = (init?.method ?? "GET") !== "GET" && ns !== undefined && ns !== "ordinal-system";
      if (write) {
        writes.push(`${init?.method} ${url.pathname}`);
        const holds = holderOf(fake, shardOf(ns, N));
        if (holds !== holder) violations.push(`${holder} wrote ${init?.method} ${url.pathname} while ${holds || "nobody"} held shard ${shardOf(ns, N)}`);
      }
      const res = await fake.fetch(input, init);
      if (write && armed) {
        armed = false;
        gate = new Promise<void>((resolve) => (open = resolve));
        await gate;
      }
      return res;
    },
  });
  const schedulers = new ShardSchedulers(client, { log, holder, leaseNamespace: "ordinal-system", intervalMs: 1_000, budgetMs: 60_000, idleMs: 500, election: ELECTION }, N);
  running.push(schedulers);
  return {
    schedulers,
    writes,
    logged,
    kill: () => (dead = true),
    pauseAfterNextWrite: () => (armed = true),
    resume: () => {
      gate = undefined;
      open();
    },
  };
}

let running: ShardSchedulers[] = [];
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "performance"] });
  // The candidates' retry jitter, fixed: the timings below are exact.
  vi.spyOn(Math, "random").mockReturnValue(0.5);
  violations = [];
});
afterEach(async () => {
  const stopping = Promise.all(running.map((s) => s.stop().catch(() => undefined)));
  await vi.advanceTimersByTimeAsync(ELECTION.durationMs);
  await stopping;
  running = [];
  vi.useRealTimers();
  vi.restoreAllMocks();
});

function world() {
  const fake = createFakeApiServer({ namespaces: [...NAMESPACES, "ordinal-system"] });
  for (const namespace of NAMESPACES) fake.seed(setManifest({ name: "web", namespace, replicas: 1, policy: "Parallel" }));
  const podsIn = (ns: string) => fake.list<Pod>(`/api/v1/namespaces/${ns}/pods`).map((p) => p.metadata?.name).sort();
  return { fake, podsIn };
}

/** until advances the fake clock in small steps until `ok()` holds (or `maxMs` passed) and returns the fake ms it took. */
async function until(ok: () => boolean, maxMs: number): Promise<number> {
  const start = Date.now();
  while (!ok() && Date.now() - start < maxMs) await vi.advanceTimersByTimeAsync(50);
  expect(ok()).toBe(true);
  return Date.now() - start;
}

const sizes = (...rs: { schedulers: ShardSchedulers }[]) => rs.map((r) => r.schedulers.held().length);
const all = Array.from({ length: N }, (_, i) => i);


/** sharing starts replicas a and b together and returns them once they hold 4 shards each (within 4 retry periods). */
async function sharing(w: ReturnType<typeof world>) {
  const a = replica(w.fake, "a");
  const b = replica(w.fake, "b");
  a.schedulers.start();
  b.schedulers.start();
  await until(() => sizes(a, b).join() === "4,4", 4 * ELECTION.retryPeriodMs);
  return { a, b };
}

describe("ShardSchedulers sharing", () => {
  it("a lone replica holds all 8 shards within one retry period, and every namespace converges", async () => {
    const w = world();
    const a = replica(w.fake, "a");
    a.schedulers.start();
    const took = await until(() => a.schedulers.held().length === N, 10 * ELECTION.retryPeriodMs);
    expect(took).toBeLessThanOrEqual(ELECTION.retryPeriodMs);
    await until(() => NAMESPACES.every((ns) => w.podsIn(ns).length === 1), ELECTION.retryPeriodMs);
    expect(violations).toEqual([]);
  });

  it("two replicas started together end up with 4 shards each within a few retry periods, and stay so", async () => {
    const w = world();
    const { a, b } = await sharing(w);
    expect([...a.schedulers.held(), ...b.schedulers.held()].sort()).toEqual(all);
    // No thrashing: five more retry periods, nothing moves.
    const before = [...a.schedulers.held()];
    for (let i = 0; i < 100; i++) {
      await vi.advanceTimersByTimeAsync(ELECTION.retryPeriodMs / 20);
      expect(sizes(a, b)).toEqual([4, 4]);
    }
    expect(a.schedulers.held()).toEqual(before);
    await until(() => NAMESPACES.every((ns) => w.podsIn(ns).length === 1), ELECTION.retryPeriodMs);
    expect(violations).toEqual([]);
  });

  it("a replica started after another holds all shards gets half of them within a few retry periods", async () => {
    const w = world();
    const a = replica(w.fake, "a");
    a.schedulers.start();
    await until(() => a.schedulers.held().length === N, 10 * ELECTION.retryPeriodMs);
    const b = replica(w.fake, "b");
    b.schedulers.start();
    await until(() => sizes(a, b).join() === "4,4", 4 * ELECTION.retryPeriodMs);
    // Given back highest index first.
    expect(a.schedulers.held()).toEqual([0, 1, 2, 3]);
    expect(violations).toEqual([]);
  });

  it("when a replica dies, the survivor holds all 8 within the lease duration plus a retry period, and its namespaces converge", async () => {
    const w = world();
    const { a, b } = await sharing(w);
    const lost = a.schedulers.held();
    a.kill();
    const took = await until(() => b.schedulers.held().length === N, 4 * ELECTION.durationMs);
    expect(took).toBeLessThanOrEqual(ELECTION.durationMs + ELECTION.retryPeriodMs);
    const ns = NAMESPACES.find((n) => lost.includes(shardOf(n, N)))!;
    w.fake.seed(setManifest({ name: "db", namespace: ns, replicas: 1, policy: "Parallel" }));
    await until(() => w.podsIn(ns).join() === "db-0,web-0", ELECTION.retryPeriodMs);
    expect(violations).toEqual([]);
    // The dead replica's own Lease is deleted once seen unrenewed for its duration; the survivor's stays.
    await until(() => w.fake.get(`${LEASES}/${replicaLeaseName("a", N)}`) === undefined, ELECTION.durationMs + 2 * ELECTION.retryPeriodMs);
    expect(w.fake.get(`${LEASES}/${replicaLeaseName("b", N)}`)).toBeDefined();
  });

  it("a replica that stops releases its shards and deletes its own Lease: the other takes them at its next round", async () => {
    const w = world();
    const { a, b } = await sharing(w);
    const stopping = a.schedulers.stop();
    await until(() => w.fake.get(`${LEASES}/${replicaLeaseName("a", N)}`) === undefined, ELECTION.retryPeriodMs);
    await stopping;
    const took = await until(() => b.schedulers.held().length === N, 4 * ELECTION.durationMs);
    expect(took).toBeLessThanOrEqual(2 * ELECTION.retryPeriodMs);
    expect(violations).toEqual([]);
  });

  it("a replica paused mid-pass while another takes its Lease over has its next write refused by the fence", async () => {
    const w = world();
    const a = replica(w.fake, "a");
    a.schedulers.start();
    await until(() => NAMESPACES.every((ns) => w.podsIn(ns).length === 1), 10 * ELECTION.retryPeriodMs);
    // a's pass scales ns-0's set to 3: its first create is stored, then a pauses (its renewals too).
    a.pauseAfterNextWrite();
    const set = w.fake.get<{ spec: { replicas: number } }>("/apis/apps.ordinal.dev/v1/namespaces/ns-0/statefulsets/web")!;
    w.fake.put({ ...set, spec: { ...set.spec, replicas: 3 } });
    await until(() => w.podsIn("ns-0").length === 2, 2 * ELECTION.retryPeriodMs);
    const b = replica(w.fake, "b");
    b.schedulers.start();
    await until(() => b.schedulers.held().length === N, 4 * ELECTION.durationMs);
    const writesBefore = a.writes.length;
    a.resume();
    await vi.advanceTimersByTimeAsync(ELECTION.retryPeriodMs);
    expect(a.writes.length).toBe(writesBefore);
    expect(a.logged.some((l) => l.includes("lease was not renewed in time"))).toBe(true);
    expect(violations).toEqual([]);
    await until(() => w.podsIn("ns-0").length === 3, 2 * ELECTION.retryPeriodMs);
    expect(holderOf(w.fake, shardOf("ns-0", N))).toBe("b");
  });
});
