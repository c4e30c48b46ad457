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
import { shardOf } from "../../src/reconciler/pass.ts";
import { replicaLeaseName } from "../../src/lease/shard-leases.ts";
import { setManifest } from "../support/fixtures.ts";
import { LEASES, sharing, shardWorld, sizes, until } from "../support/shard-replicas.ts";

const N = 8;
const ELECTION = { durationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 5_000 };
const all = Array.from({ length: N }, (_, i) => i);

let w: ReturnType<typeof shardWorld>;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "performance"] });
  // The candidates' retry jitter, fixed: the timings below are exact.
  vi.spyOn(Math, "random").mockReturnValue(0.5);
  w = shardWorld(N, ELECTION);
});
afterEach(async () => {
  await w.stopAll();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** together starts replicas a and b together and returns them once they hold 4 shards each. */
async function together() {
  const [a, b] = await sharing(w, ["a", "b"], 4, ELECTION.retryPeriodMs);
  return { a, b };
}

describe("ShardSchedulers sharing", () => {
  it("a lone replica holds all 8 shards within one retry period, and every namespace converges", async () => {
        const a = w.replica("a");
    a.schedulers.start();
    const took = await until(() => a.schedulers.held().length === N, 10 * ELECTION.retryPeriodMs);
    expect(took).toBeLessThanOrEqual(ELECTION.retryPeriodMs);
    await until(() => w.namespaces.every((ns) => w.podsIn(ns).length === 1), ELECTION.retryPeriodMs);
    expect(w.violations).toEqual([]);
  });

  it("two replicas started together end up with 4 shards each within a few retry periods, and stay so", async () => {
        const { a, b } = await together();
    expect([...a.schedulers.held(), ...b.schedulers.held()].sort()).toEqual(all);
    // No thrashing: five more retry periods, nothing moves.
    const before = [...a.schedulers.held()];
    for (let i = 0; i < 100; i++) {
      await vi.advanceTimersByTimeAsync(ELECTION.retryPeriodMs / 20);
      expect(sizes(a, b)).toEqual([4, 4]);
    }
    expect(a.schedulers.held()).toEqual(before);
    await until(() => w.namespaces.every((ns) => w.podsIn(ns).length === 1), ELECTION.retryPeriodMs);
    expect(w.violations).toEqual([]);
  });

  it("a replica started after another holds all shards gets half of them within a few retry periods", async () => {
        const a = w.replica("a");
    a.schedulers.start();
    await until(() => a.schedulers.held().length === N, 10 * ELECTION.retryPeriodMs);
    const b = w.replica("b");
    b.schedulers.start();
    await until(() => sizes(a, b).join() === "4,4", 4 * ELECTION.retryPeriodMs);
    // Given back highest index first.
    expect(a.schedulers.held()).toEqual([0, 1, 2, 3]);
    expect(w.violations).toEqual([]);
  });

  it("when a replica dies, the survivor holds all 8 within the lease duration plus a retry period, and its namespaces converge", async () => {
        const { a, b } = await together();
    const lost = a.schedulers.held();
    a.kill();
    const took = await until(() => b.schedulers.held().length === N, 4 * ELECTION.durationMs);
    expect(took).toBeLessThanOrEqual(ELECTION.durationMs + ELECTION.retryPeriodMs);
    const ns = w.namespaces.find((n) => lost.includes(shardOf(n, N)))!;
    w.fake.seed(setManifest({ name: "db", namespace: ns, replicas: 1, policy: "Parallel" }));
    await until(() => w.podsIn(ns).join() === "db-0,web-0", ELECTION.retryPeriodMs);
    expect(w.violations).toEqual([]);
    // The dead replica's own Lease is deleted once seen unrenewed for its duration; the survivor's stays.
    await until(() => w.fake.get(`${LEASES}/${replicaLeaseName("a", N)}`) === undefined, ELECTION.durationMs + 2 * ELECTION.retryPeriodMs);
    expect(w.fake.get(`${LEASES}/${replicaLeaseName("b", N)}`)).toBeDefined();
  });

  it("a replica that stops releases its shards and deletes its own Lease: the other takes them at its next round", async () => {
        const { a, b } = await together();
    const stopping = a.schedulers.stop();
    await until(() => w.fake.get(`${LEASES}/${replicaLeaseName("a", N)}`) === undefined, ELECTION.retryPeriodMs);
    await stopping;
    const took = await until(() => b.schedulers.held().length === N, 4 * ELECTION.durationMs);
    expect(took).toBeLessThanOrEqual(2 * ELECTION.retryPeriodMs);
    expect(w.violations).toEqual([]);
  });

  it("a replica paused mid-pass while another takes its Lease over has its next write refused by the fence", async () => {
        const a = w.replica("a");
    a.schedulers.start();
    await until(() => w.namespaces.every((ns) => w.podsIn(ns).length === 1), 10 * ELECTION.retryPeriodMs);
    // a's pass scales ns-0's set to 3: its first create is stored, then a pauses (its renewals too).
    a.pauseAfterNextWrite();
    const set = w.fake.get<{ spec: { replicas: number } }>("/apis/apps.ordinal.dev/v1/namespaces/ns-0/statefulsets/web")!;
    w.fake.put({ ...set, spec: { ...set.spec, replicas: 3 } });
    await until(() => w.podsIn("ns-0").length === 2, 2 * ELECTION.retryPeriodMs);
    const b = w.replica("b");
    b.schedulers.start();
    await until(() => b.schedulers.held().length === N, 4 * ELECTION.durationMs);
    const writesBefore = a.writes.length;
    a.resume();
    await vi.advanceTimersByTimeAsync(ELECTION.retryPeriodMs);
    expect(a.writes.length).toBe(writesBefore);
    expect(a.logged.some((l) => l.includes("lease was not renewed in time"))).toBe(true);
    expect(w.violations).toEqual([]);
    await until(() => w.podsIn("ns-0").length === 3, 2 * ELECTION.retryPeriodMs);
    expect(w.holderOf(shardOf("ns-0", N))).toBe("b");
  });
});
