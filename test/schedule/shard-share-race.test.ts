/**
 * Replicas converge to an even share of the shards whatever their start order (issue 36), on the
 * fake apiserver under fake timers (test/support/shard-replicas.ts): replicas started together
 * (either order, or within a poll of each other) each take their share in their second round and
 * never move a shard; a replica that joins late, or comes back after a pause past its Leases, gets
 * its share within a retry period and two polls; a third replica gets its part (4 shards over 3:
 * 2, 1, 1); a survivor never gives shards away to a replica that died. In every case no write
 * reaches the apiserver from a replica that does not hold its namespace's shard Lease at that
 * instant (no overlap), and Lease writes stay at one per retry period per held Lease plus the
 * replica's own.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sharing, shardWorld, sizes, until, type Replica } from "../support/shard-replicas.ts";

const ELECTION = { durationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 5_000 };
const POLL = ELECTION.retryPeriodMs / 4;

let w: ReturnType<typeof shardWorld>;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "performance"] });
  vi.spyOn(Math, "random").mockReturnValue(0.5);
});
afterEach(async () => {
  await w.stopAll();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** gaveBack returns the shards the replica logged giving back to balance. */
const gaveBack = (r: Replica) => r.logged.filter((l) => l.startsWith("shards given back"));

/** mostHeld advances `ms` of fake time and returns the most shards any of `rs` held at once (sampled every 50 ms). */
async function mostHeld(ms: number, ...rs: Replica[]): Promise<number> {
  let most = 0;
  for (let t = 0; t < ms; t += 50) {
    most = Math.max(most, ...sizes(...rs));
    await vi.advanceTimersByTimeAsync(50);
  }
  return most;
}

describe("replicas started together", () => {
  it.each([
    { order: "a first", names: ["a", "b"], gapMs: 0 },
    { order: "b first", names: ["b", "a"], gapMs: 0 },
    { order: "a, then b 900 ms later", names: ["a", "b"], gapMs: 900 },
    { order: "b, then a 900 ms later", names: ["b", "a"], gapMs: 900 },
  ])("$order: each takes 4 of 8 within two polls and no shard moves", async ({ names, gapMs }) => {
    w = shardWorld(8, ELECTION);
    const [first, second] = names.map((n) => w.replica(n));
    first.schedulers.start();
    await vi.advanceTimersByTimeAsync(gapMs);
    second.schedulers.start();
    const took = await until(() => sizes(first, second).join() === "4,4", 4 * ELECTION.retryPeriodMs);
    expect(took).toBeLessThanOrEqual(2 * POLL);
    // Neither ever held more than its share, and nothing is given back over several retry periods.
    expect(await mostHeld(3 * ELECTION.retryPeriodMs, first, second)).toBe(4);
    expect([...gaveBack(first), ...gaveBack(second)]).toEqual([]);
    expect(w.violations).toEqual([]);
  });
});

describe("a replica that joins or comes back gets its share", () => {
  it.each([0.1, 0.5, 0.9])("joining %s of a retry period after the other's round: 4 each within a retry period and two polls", async (phase) => {
    w = shardWorld(8, ELECTION);
    const a = w.replica("a");
    a.schedulers.start();
    await until(() => sizes(a).join() === "8", 2 * ELECTION.retryPeriodMs);
    await vi.advanceTimersByTimeAsync(ELECTION.retryPeriodMs * (2 + phase));
    const b = w.replica("b");
    b.schedulers.start();
    const took = await until(() => sizes(a, b).join() === "4,4", 6 * ELECTION.retryPeriodMs);
    expect(took).toBeLessThanOrEqual(ELECTION.retryPeriodMs + 2 * POLL);
    expect(w.violations).toEqual([]);
  });

  it("a third replica gets its part: 4 shards over 3 replicas end 2, 1, 1", async () => {
    w = shardWorld(4, ELECTION);
    const [a, b] = await sharing(w, ["a", "b"], 2, ELECTION.retryPeriodMs);
    const c = w.replica("c");
    c.schedulers.start();
    const took = await until(() => sizes(c).join() === "1", 6 * ELECTION.retryPeriodMs);
    expect(took).toBeLessThanOrEqual(ELECTION.retryPeriodMs + 2 * POLL);
    expect(sizes(a, b, c).sort()).toEqual([1, 1, 2]);
    expect(await mostHeld(3 * ELECTION.retryPeriodMs, c)).toBe(1);
    expect(w.violations).toEqual([]);
  });

  it("a third replica of 8 shards: 3, 3, 2", async () => {
    w = shardWorld(8, ELECTION);
    const rs = await sharing(w, ["a", "b"], 4, ELECTION.retryPeriodMs);
    rs.push(w.replica("c"));
    rs[2].schedulers.start();
    await until(() => [...sizes(...rs)].sort().join() === "2,3,3", ELECTION.retryPeriodMs + 2 * POLL);
    expect(w.violations).toEqual([]);
  });

  it("a replica paused past its Leases (SIGSTOP) loses them to the other, and gets its share back once resumed", async () => {
    w = shardWorld(8, ELECTION);
    const [a, b] = await sharing(w, ["a", "b"], 4, ELECTION.retryPeriodMs);
    b.pause();
    await until(() => [0, 1, 2, 3, 4, 5, 6, 7].every((i) => w.holderOf(i) === "a"), 2 * ELECTION.durationMs + ELECTION.retryPeriodMs);
    b.resume();
    const took = await until(() => sizes(a, b).join() === "4,4", 6 * ELECTION.retryPeriodMs);
    expect(took).toBeLessThanOrEqual(ELECTION.retryPeriodMs + 2 * POLL);
    expect(w.violations).toEqual([]);
  });

  it("a replica killed and started again (a new identity) gets its share while the dead one's Leases run out", async () => {
    w = shardWorld(8, ELECTION);
    const [a, b] = await sharing(w, ["a", "b"], 4, ELECTION.retryPeriodMs);
    b.kill();
    const again = w.replica("b-again");
    again.schedulers.start();
    await until(() => sizes(a, again).join() === "4,4", ELECTION.durationMs + 2 * ELECTION.retryPeriodMs);
    expect(w.violations).toEqual([]);
  });
});

describe("a replica that dies", () => {
  it("the survivor takes its shards as they expire and never gives one away to the dead replica", async () => {
    w = shardWorld(8, ELECTION);
    const [a, b] = await sharing(w, ["a", "b"], 4, ELECTION.retryPeriodMs);
    b.kill();
    const took = await until(() => sizes(a).join() === "8", 4 * ELECTION.durationMs);
    expect(took).toBeLessThanOrEqual(ELECTION.durationMs + ELECTION.retryPeriodMs);
    expect(gaveBack(a)).toEqual([]);
    expect(await mostHeld(3 * ELECTION.retryPeriodMs, a)).toBe(8);
    expect(gaveBack(a)).toEqual([]);
    expect(w.violations).toEqual([]);
  });
});

describe("Lease writes", () => {
  it("a replica holding 4 shards writes 5 Leases per retry period: its shards' renewals and its own", async () => {
    w = shardWorld(8, ELECTION);
    const [a] = await sharing(w, ["a", "b"], 4, ELECTION.retryPeriodMs);
    await vi.advanceTimersByTimeAsync(ELECTION.retryPeriodMs);
    const before = a.leaseWrites.length;
    await vi.advanceTimersByTimeAsync(10 * ELECTION.retryPeriodMs);
    expect(a.leaseWrites.length - before).toBeGreaterThanOrEqual(10 * 5 - 5);
    expect(a.leaseWrites.length - before).toBeLessThanOrEqual(10 * 5 + 5);
  });
});
