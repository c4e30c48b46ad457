/**
 * ShardSchedulers (src/schedule/shard-schedulers.ts): a replica with another shard count waits
 * while the first count's Leases are live and takes over once they are released (sharing among
 * replicas of one count: shard-share-race.test.ts; takeover when one dies: shard-takeover.test.ts).
 * Under fake timers (test/support/shard-replicas.ts): on real ones, a loaded machine that delayed
 * the old replica's renewals past the renew deadline (1 s here) let the new count take a Lease.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { shardWorld, until } from "../support/shard-replicas.ts";

const ELECTION = { durationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 300 };

let w: ReturnType<typeof shardWorld> | undefined;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "performance"] });
  vi.spyOn(Math, "random").mockReturnValue(0.5);
});
afterEach(async () => {
  await w?.stopAll();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("ShardSchedulers", () => {
  it("a replica with another shard count acts for nothing while the first count's Leases are live, and takes over once they are released", async () => {
    w = shardWorld(2, ELECTION, { namespaceCount: 8 });
    const world = w;
    const old = world.replica("old");
    old.schedulers.start();
    await until(() => old.schedulers.held().join() === "0,1", 15_000);
    await until(() => world.namespaces.every((ns) => world.podsIn(ns).length === 1), 15_000);
    const next = world.replica("new", 4);
    next.schedulers.start();
    // Several lease durations: the old count's Leases stay live (renewed), so the new count takes none.
    await vi.advanceTimersByTimeAsync(3 * ELECTION.durationMs);
    expect(next.schedulers.held()).toEqual([]);
    expect([0, 1, 2, 3].map((i) => world.holderOf(i, 4)).filter((h) => h === "new")).toEqual([]);
    expect(next.writes).toEqual([]);
    const stopped = old.schedulers.stop();
    await until(() => next.schedulers.held().join() === "0,1,2,3", 15_000);
    await stopped;
    expect(old.schedulers.held()).toEqual([]);
    expect(world.violations).toEqual([]);
  });
});
