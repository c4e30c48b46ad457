/**
 * Seeded randomized runs of replicas sharing shards (src/schedule/shard-schedulers.ts, issue 36),
 * on the fake apiserver under fake timers (test/support/shard-replicas.ts): 4 or 8 shards, 2–3
 * replicas started at random offsets; then faults at random moments: a replica SIGKILLed (and a new
 * one started, a new identity), paused past its Leases and resumed (SIGSTOP), stopped gracefully
 * and started again, or a replica added. Checked on every write: the writer holds its namespace's
 * shard Lease at that instant (no two replicas act on one shard). Once the faults stop, the live
 * replicas hold all shards, evenly (no two counts differ by more than one), within the lease
 * duration plus three retry periods (a dead replica's Leases expire first), and stay so.
 * Runs 1 seed by default (under a second each; each seed stops its world) and 40 under ORDINAL_THOROUGH=1.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { mulberry32, pick, randomInt } from "../../src/sim/fake-apiserver/random.ts";
import { forEachSeed, randomRuns } from "../support/random.ts";
import { shardWorld, sizes, type Replica } from "../support/shard-replicas.ts";

const ELECTION = { durationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 5_000 };

let worlds: ReturnType<typeof shardWorld>[] = [];
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "performance"] });
});
afterEach(async () => {
  for (const w of worlds) await w.stopAll();
  worlds = [];
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** even is true when the replicas hold all `count` shards between them and no two hold counts more than one apart. */
const even = (held: number[], count: number): boolean => held.reduce((a, b) => a + b, 0) === count && Math.max(...held) - Math.min(...held) <= 1;

/** run plays one seed and stops its world before it returns (a world left running would run its timers in every later seed: the runs grew quadratically). */
async function run(seed: number): Promise<string[]> {
  try {
    return await play(seed);
  } finally {
    for (const w of worlds.splice(0)) await w.stopAll();
    vi.clearAllTimers();
  }
}

/** play runs one seed: replicas started, four faults, then the checks; returns the fault log. */
async function play(seed: number): Promise<string[]> {
  const rng = mulberry32(seed);
  // The candidates' retry jitter comes from the seed too: a run replays exactly.
  vi.spyOn(Math, "random").mockImplementation(rng);
  const count = pick(rng, [4, 8]);
  const w = shardWorld(count, ELECTION, { intervalMs: 3 * ELECTION.retryPeriodMs, idleMs: ELECTION.retryPeriodMs });
  worlds.push(w);
  let next = 0;
  const live: Replica[] = [];
  const paused: Replica[] = [];
  const start = () => {
    const r = w.replica(`r${next++}`);
    r.schedulers.start();
    live.push(r);
  };
  const log: string[] = [];
  for (let i = 0, n = 2 + randomInt(rng, 2); i < n; i++) {
    start();
    await vi.advanceTimersByTimeAsync(randomInt(rng, 2 * ELECTION.retryPeriodMs));
  }
  for (let f = 0; f < 4; f++) {
    await vi.advanceTimersByTimeAsync(randomInt(rng, 2 * ELECTION.durationMs));
    // A person scales a set at each fault: its shard's holder writes while Leases move.
    const ns = pick(rng, w.namespaces);
    const set = w.fake.get<{ spec: { replicas: number } }>(`/apis/apps.ordinal.dev/v1/namespaces/${ns}/statefulsets/web`)!;
    w.fake.put({ ...set, spec: { ...set.spec, replicas: 1 + randomInt(rng, 3) } });
    const fault = pick(rng, ["kill", "pause", "stop", "add"] as const);
    const victim = live.length > 1 ? live.splice(randomInt(rng, live.length), 1)[0] : undefined;
    log.push(`${Date.now()} ${fault} ${fault === "add" || !victim ? "" : victim.schedulers.held().join(",")}`);
    if (fault === "add" || !victim) {
      if (victim) live.push(victim);
      if (live.length + paused.length < 4) start();
    } else if (fault === "kill") {
      victim.kill();
      start();
    } else if (fault === "stop") {
      const stopping = victim.schedulers.stop();
      await vi.advanceTimersByTimeAsync(ELECTION.retryPeriodMs);
      await stopping;
      start();
    } else {
      victim.pause();
      paused.push(victim);
      await vi.advanceTimersByTimeAsync(ELECTION.durationMs + randomInt(rng, ELECTION.durationMs));
      victim.resume();
      live.push(paused.pop()!);
    }
  }
  const settled = Date.now();
  while (!even(sizes(...live), count) && Date.now() - settled < ELECTION.durationMs + 3 * ELECTION.retryPeriodMs) await vi.advanceTimersByTimeAsync(250);
  expect(even(sizes(...live), count), `${count} shards over ${live.length}: ${sizes(...live).join(",")}\n${log.join("\n")}`).toBe(true);
  // And it stays so: nothing moves back and forth.
  for (let t = 0; t < 2 * ELECTION.retryPeriodMs; t += 250) {
    await vi.advanceTimersByTimeAsync(250);
    expect(even(sizes(...live), count), `${count} shards over ${live.length}: ${sizes(...live).join(",")}`).toBe(true);
  }
  expect(w.violations, log.join("\n")).toEqual([]);
  return log;
}

describe("replicas sharing shards through kills, pauses, stops and joins (seeded)", () => {
  const runs = randomRuns(1, 40);
  it("never act on one shard twice, and end with an even share", async () => {
    await forEachSeed("test/schedule/shard-share-runs.test.ts", runs, run);
  }, runs * 60_000);
});
