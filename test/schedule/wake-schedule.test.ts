import { describe, expect, it } from "vitest";
import type { AnnouncedWrite } from "../../src/objects/announced-write.ts";
import {
  afterFullPass,
  awaitingAlso,
  afterSetPass,
  dueAt,
  emptySchedule,
  MAX_AWAITED,
  MAX_DUE_SETS,
  nextAlarmAt,
  nextLookMs,
  probesFirst,
  recheckAfterMs,
  UNSEEN_RECHECK_MS,
  WAITING_RECHECK_MS,
  WOKEN_RECHECK_MS,
  withDue,
  wokenBy,
  type ShardSchedule,
  type WokenSet,
} from "../../src/schedule/wake-schedule.ts";

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
    ["the wake's first recheck, set waiting", { actionCount: 0, pending: true }, WOKEN_RECHECK_MS[0], WOKEN_RECHECK_MS[0]],
    ["the wake's second recheck, set converged", { actionCount: 0, pending: false }, WOKEN_RECHECK_MS[1], WOKEN_RECHECK_MS[1]],
    ["a requeue sooner than the recheck wins", { actionCount: 0, pending: true, requeueAfterMs: 10 }, WOKEN_RECHECK_MS[0], 10],
    ["no recheck, waiting: the waiting recheck", { actionCount: 0, pending: true }, undefined, WAITING_RECHECK_MS],
    ["no recheck, converged: not tracked", { actionCount: 0, pending: false }, undefined, undefined],
  ])("woken: %s", (_name, outcome, soonMs, want) => {
    expect(nextLookMs(outcome, soonMs)).toBe(want);
  });
});

describe("recheckAfterMs (a woken set whose pass made no write)", () => {
  const podUpdate: AnnouncedWrite = { resource: "pods", name: "web-0", operation: "UPDATE", resourceVersion: "41" };
  const announced = wokenBy(undefined, podUpdate);
  const blind = wokenBy(undefined, undefined);

  it("a pass that read every write its wakes announced is not looked at again soon", () => {
    expect(recheckAfterMs(announced, [])).toBeUndefined();
  });

  it("one that did not read an announced write looks again after UNSEEN_RECHECK_MS (10 ms first, then close together, 3 s last), then no more", () => {
    const got = [...UNSEEN_RECHECK_MS.keys(), UNSEEN_RECHECK_MS.length].map((recheck) => recheckAfterMs({ ...announced, recheck }, [podUpdate]));
    expect(got).toEqual([...UNSEEN_RECHECK_MS, undefined]);
    expect([UNSEEN_RECHECK_MS[0], UNSEEN_RECHECK_MS.at(-1)]).toEqual([10, 3000]);
  });

  it("a recheck reads its awaited objects first only after a wake's own pass, while all wakes announced their write, before its outcome's own time", () => {
    const rechecking: WokenSet = { recheck: 1, awaiting: [podUpdate], announced: true, passAt: T + 100 };
    expect(probesFirst(rechecking, T)).toBe(true);
    expect(probesFirst({ ...rechecking, recheck: 0 }, T)).toBe(false);
    expect(probesFirst({ ...rechecking, announced: false }, T)).toBe(false);
    expect(probesFirst({ ...rechecking, awaiting: [] }, T)).toBe(false);
    expect(probesFirst(rechecking, T + 100)).toBe(false);
  });

  it("after a wake that announced no write (an ImageList's), rechecks are blind: WOKEN_RECHECK_MS whatever the pass read", () => {
    expect([0, 1, 2, 3, 4].map((recheck) => recheckAfterMs({ ...blind, recheck }, []))).toEqual([...WOKEN_RECHECK_MS, undefined]);
    expect(wokenBy(announced, undefined).announced).toBe(false);
  });

  it("a wake starts the rechecks afresh and adds its write once; beyond MAX_AWAITED the set turns blind", () => {
    const again = wokenBy({ ...announced, recheck: 3 }, podUpdate);
    expect(again).toEqual({ recheck: 0, awaiting: [podUpdate], announced: true });
    let w = announced;
    for (let i = 0; i < MAX_AWAITED + 1; i++) w = wokenBy(w, { ...podUpdate, resourceVersion: String(100 + i) });
    expect(w.announced).toBe(false);
    expect(awaitingAlso(announced, [podUpdate]).awaiting).toEqual([podUpdate]);
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
