import { describe, expect, it } from "vitest";
import {
  afterFullPass,
  afterSetPass,
  dueAt,
  emptySchedule,
  MAX_DUE_SETS,
  nextAlarmAt,
  nextLookMs,
  WAITING_RECHECK_MS,
  WOKEN_RECHECK_MS,
  withDue,
  type ShardSchedule,
} from "../../src/reconciler/wake-schedule.ts";

const T = 1_000_000;

describe("nextLookMs", () => {
  it.each([
    ["writes made: at once, even with a requeue asked", { actionCount: 2, pending: true, requeueAfterMs: 5000 }, 0],
    ["a requeue asked (grace period, minReadySeconds, backoff)", { actionCount: 0, pending: true, requeueAfterMs: 1500 }, 1500],
    ["a negative requeue is at once", { actionCount: 0, pending: false, requeueAfterMs: -5 }, 0],
    ["waiting on pods, nothing asked: the recheck", { actionCount: 0, pending: true }, WAITING_RECHECK_MS],
    ["converged: only a wake or the full pass", { actionCount: 0, pending: false }, undefined],
  ])("%s", (_name, outcome, want) => {
    expect(nextLookMs(outcome)).toBe(want);
  });

  it.each([
    ["the wake's first recheck, set waiting", { actionCount: 0, pending: true }, 0, WOKEN_RECHECK_MS[0]],
    ["the wake's second recheck, set converged", { actionCount: 0, pending: false }, 1, WOKEN_RECHECK_MS[1]],
    ["a requeue sooner than the recheck wins", { actionCount: 0, pending: true, requeueAfterMs: 10 }, 0, 10],
    ["rechecks used up, waiting: the waiting recheck", { actionCount: 0, pending: true }, WOKEN_RECHECK_MS.length, WAITING_RECHECK_MS],
    ["rechecks used up, converged: not tracked", { actionCount: 0, pending: false }, WOKEN_RECHECK_MS.length, undefined],
  ])("woken: %s", (_name, outcome, recheck, want) => {
    expect(nextLookMs(outcome, recheck)).toBe(want);
  });
});

describe("dueAt", () => {
  it("returns the sets whose time came, earliest first, and whether the full pass is due", () => {
    const s: ShardSchedule = { due: { "a/x": T + 5, "b/y": T - 10, "c/z": T, "d/w": T + 1 }, nextFullPassAt: T + 100 };
    expect(dueAt(s, T)).toEqual({ sets: ["b/y", "c/z"], fullPass: false });
    expect(dueAt(s, T + 100)).toEqual({ sets: ["b/y", "c/z", "d/w", "a/x"], fullPass: true });
  });

  it("a shard never passed is due its full pass at once", () => {
    expect(dueAt(emptySchedule(), T)).toEqual({ sets: [], fullPass: true });
  });
});

describe("afterSetPass", () => {
  it("tracks a set by its next look and forgets a converged one", () => {
    let s: ShardSchedule = { due: {}, nextFullPassAt: T + 60_000 };
    s = afterSetPass(s, "ns/web", { actionCount: 0, pending: true, requeueAfterMs: 2000 }, T);
    expect(s.due).toEqual({ "ns/web": T + 2000 });
    s = afterSetPass(s, "ns/web", { actionCount: 0, pending: false }, T + 2000);
    expect(s.due).toEqual({});
    expect(s.nextFullPassAt).toBe(T + 60_000);
  });
});

describe("withDue", () => {
  it("keeps the earlier time when asked, else the new one", () => {
    const s: ShardSchedule = { due: { "ns/web": T + 10 }, nextFullPassAt: T + 100 };
    expect(withDue(s, "ns/web", T + 50, true).due["ns/web"]).toBe(T + 10);
    expect(withDue(s, "ns/web", T + 50).due["ns/web"]).toBe(T + 50);
    expect(withDue(s, "ns/web", T + 5, true).due["ns/web"]).toBe(T + 5);
  });

  it("beyond MAX_DUE_SETS a new set brings the full pass forward instead of growing the map", () => {
    const due = Object.fromEntries(Array.from({ length: MAX_DUE_SETS }, (_, i) => [`ns/s${i}`, T + 1000]));
    const s = withDue({ due, nextFullPassAt: T + 60_000 }, "ns/new", T + 20);
    expect(Object.keys(s.due)).toHaveLength(MAX_DUE_SETS);
    expect(s.due["ns/new"]).toBeUndefined();
    expect(s.nextFullPassAt).toBe(T + 20);
    // A tracked set still moves.
    expect(withDue(s, "ns/s1", T + 5).due["ns/s1"]).toBe(T + 5);
  });
});

describe("afterFullPass", () => {
  it("schedules each reported set and the next full pass RECONCILE_INTERVAL_MS away", () => {
    const s: ShardSchedule = { due: { "ns/old": T + 30 }, nextFullPassAt: T, cursor: "ns/a" };
    const next = afterFullPass(
      s,
      [
        { set: "ns/a", outcome: { actionCount: 0, pending: false } },
        { set: "ns/b", outcome: { actionCount: 0, pending: true, requeueAfterMs: 700 } },
      ],
      undefined,
      T,
      60_000,
    );
    expect(next).toEqual({ due: { "ns/old": T + 30, "ns/b": T + 700 }, nextFullPassAt: T + 60_000, cursor: undefined });
  });

  it("a pass stopped by its budget resumes at once after its cursor", () => {
    const next = afterFullPass(emptySchedule(), [], "ns/m", T, 60_000);
    expect(next.nextFullPassAt).toBe(T);
    expect(next.cursor).toBe("ns/m");
  });
});

describe("nextAlarmAt", () => {
  it("is the earliest due set or the next full pass", () => {
    expect(nextAlarmAt({ due: {}, nextFullPassAt: T + 60_000 })).toBe(T + 60_000);
    expect(nextAlarmAt({ due: { "a/x": T + 900, "b/y": T + 300 }, nextFullPassAt: T + 60_000 })).toBe(T + 300);
  });
});
