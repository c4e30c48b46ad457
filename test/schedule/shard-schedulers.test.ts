/**
 * ShardSchedulers (src/schedule/shard-schedulers.ts): a replica with another shard count waits
 * while the first count's Leases are live and takes over once they are released (sharing among
 * replicas of one count: shard-share-race.test.ts; takeover when one dies: shard-takeover.test.ts).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { shardWorld } from "../support/shard-replicas.ts";

const ELECTION = { durationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 300 };

let w: ReturnType<typeof shardWorld> | undefined;
afterEach(async () => {
  await w?.stopAll();
});

describe("ShardSchedulers", () => {
  it("a replica with another shard count acts for nothing while the first count's Leases are live, and takes over once they are released", async () => {
    w = shardWorld(2, ELECTION, { namespaceCount: 8 });
    const world = w;
    const old = world.replica("old");
    old.schedulers.start();
    await vi.waitFor(() => expect(old.schedulers.held()).toEqual([0, 1]), { timeout: 15_000, interval: 50 });
    await vi.waitFor(() => expect(world.namespaces.map((ns) => world.podsIn(ns).length)).toEqual(world.namespaces.map(() => 1)), { timeout: 15_000 });
    const next = world.replica("new", 4);
    next.schedulers.start();
    // Several lease durations: the old count's Leases stay live (renewed), so the new count takes none.
    await new Promise((r) => setTimeout(r, 3 * ELECTION.durationMs));
    expect(next.schedulers.held()).toEqual([]);
    expect([0, 1, 2, 3].map((i) => world.holderOf(i, 4)).filter((h) => h === "new")).toEqual([]);
    expect(next.writes).toEqual([]);
    await old.schedulers.stop();
    await vi.waitFor(() => expect(next.schedulers.held()).toEqual([0, 1, 2, 3]), { timeout: 15_000, interval: 20 });
    expect(old.schedulers.held()).toEqual([]);
    expect(world.violations).toEqual([]);
  });
});
