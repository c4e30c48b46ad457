/**
 * The schedule model both runtimes share (src/schedule/model.ts), by tables on a fake
 * clock: what a wake makes due, what a look does (wait, probe, pass) and what follows a pass, and
 * why; the full pass; the snapshot a shell stores.
 */
import { describe, expect, it } from "vitest";
import type { AnnouncedWrite } from "../../src/objects/announced-write.ts";
import type { Wake } from "../../src/objects/wake.ts";
import { Schedule, type SetReport } from "../../src/schedule/model.ts";
import {
  ANNOUNCED_COALESCE_MS,
  BLIND_RECHECK_MS,
  COALESCE_MS,
  MAX_AWAITED,
  MAX_DUE_SETS,
  MAX_PROBES,
  MISSING_RECHECK_MS,
  OBSERVED_COALESCE_MS,
  UNSEEN_RECHECK_MS,
} from "../../src/schedule/tables.ts";

const T0 = 1_000_000;
const WAITING = 1_000;
const INTERVAL = 60_000;
const KEY = "default/web";
const web: Wake = { namespace: "default", name: "web" };
const podUpdate: AnnouncedWrite = { resource: "pods", name: "web-0", operation: "UPDATE", resourceVersion: "41" };
const report = (r: Partial<SetReport> = {}): SetReport => ({ actionCount: 0, pending: false, found: true, ...r });

/** world returns a model on a clock at T0 (nothing due: the full pass an interval away) and the clock. */
function world() {
  let t = T0;
  const s = new Schedule({ intervalMs: INTERVAL, waitingRecheckMs: WAITING }, () => t, { due: {}, nextFullPassAt: T0 + INTERVAL });
  return { s, at: (ms: number) => void (t = T0 + ms), now: () => t };
}

/** passNow runs the look at KEY now: a probe is answered `landed`; returns the hints of the pass, or undefined when it did not pass. */
function passNow(s: Schedule, landed = false) {
  let start = s.start(KEY);
  if (start?.kind === "probe") start = s.probed(KEY, landed);
  return start?.kind === "pass" ? start.hints : undefined;
}

describe("Schedule.wake", () => {
  it.each<[string, Wake, number]>([
    ["announcing no write: after COALESCE_MS (the write is stored meanwhile)", web, COALESCE_MS],
    ["announcing its write: at once (the pass tells whether it read it)", { ...web, write: podUpdate }, ANNOUNCED_COALESCE_MS],
    ["observed by a watch: OBSERVED_COALESCE_MS (its pass reads memory; only bursts wait)", { ...web, observed: true }, OBSERVED_COALESCE_MS],
  ])("%s", (_name, w, ms) => {
    const { s } = world();
    expect(s.wake(w)).toEqual({ at: T0 + ms, why: "woken" });
    expect(s.nextAt()).toBe(T0 + ms);
  });

  it("a burst of wakes of one set is one due set, never later than the first made it", () => {
    const { s, at } = world();
    s.wake({ ...web, write: podUpdate });
    for (let i = 0; i < 50; i++) {
      at(i);
      s.wake(web);
    }
    at(50);
    expect(s.dueSets()).toEqual([KEY]);
    expect(passNow(s)).toEqual({ awaiting: [podUpdate] });
    expect(s.dueSets()).toEqual([]);
  });

  it("a wake that adds nothing (its write awaited already, or blind on a blind set) changes nothing: neither the due time nor the rechecks", () => {
    const { s, at } = world();
    s.wake({ ...web, write: podUpdate });
    passNow(s);
    s.finish(KEY, report({ pending: true, unseenWrites: [podUpdate] }));
    at(1);
    expect(s.wake({ ...web, write: podUpdate })).toEqual({ at: T0 + UNSEEN_RECHECK_MS[0], why: "woken" });
    s.wake(web); // blind: something new
    expect(s.nextAt()).toBe(T0 + UNSEEN_RECHECK_MS[0]);
    at(5);
    expect(s.wake(web)).toEqual({ at: T0 + UNSEEN_RECHECK_MS[0], why: "woken" });
  });

  it("beyond MAX_DUE_SETS a new set brings the full pass forward instead of growing the model", () => {
    const { s } = world();
    for (let i = 0; i < MAX_DUE_SETS; i++) s.wake({ namespace: "default", name: `s${i}`, write: podUpdate });
    expect(s.fullPassDue()).toBe(false);
    expect(s.wake({ namespace: "default", name: "one-more", write: podUpdate })).toEqual({ why: "done" });
    expect(s.snapshot().nextFullPassAt).toBe(T0 + ANNOUNCED_COALESCE_MS);
    expect(Object.keys(s.snapshot().due)).toHaveLength(MAX_DUE_SETS);
  });

  it("beyond MAX_AWAITED announced writes a set's rechecks turn blind", () => {
    const { s } = world();
    for (let i = 0; i <= MAX_AWAITED; i++) s.wake({ ...web, write: { ...podUpdate, name: `web-${i}` } });
    expect(passNow(s)).toEqual({});
    expect(s.finish(KEY, report({ pending: true }))).toEqual({ at: T0 + BLIND_RECHECK_MS[0], why: "blind recheck" });
  });
});

describe("Schedule.finish (what follows a targeted pass, and why)", () => {
  const cases: [string, Wake, SetReport | undefined, { after?: number; why: string }][] = [
    ["writes made: at once", { ...web, write: podUpdate }, report({ actionCount: 1, pending: true }), { after: 0, why: "acted" }],
    ["stopped by the shell's budget: at once", { ...web, write: podUpdate }, report({ pending: true, stopped: true }), { after: 0, why: "stopped" }],
    ["read every announced write, waits: waitingRecheckMs", { ...web, write: podUpdate }, report({ pending: true }), { after: WAITING, why: "waiting" }],
    ["read every announced write, converged: nothing", { ...web, write: podUpdate }, report(), { why: "done" }],
    ["did not read the announced write: UNSEEN_RECHECK_MS[0]", { ...web, write: podUpdate }, report({ pending: true, unseenWrites: [podUpdate] }), { after: UNSEEN_RECHECK_MS[0], why: "write not seen" }],
    ["a wake announced nothing, converged: BLIND_RECHECK_MS[0] (a template change may not be stored yet)", web, report(), { after: BLIND_RECHECK_MS[0], why: "blind recheck" }],
    ["a requeueAfter sooner than the recheck", web, report({ pending: true, requeueAfterMs: 5 }), { after: 5, why: "requeueAfter" }],
    ["a requeueAfter later, nothing to recheck", { ...web, write: podUpdate }, report({ pending: true, requeueAfterMs: 7_000 }), { after: 7_000, why: "requeueAfter" }],
    ["a set not found after an unannounced wake: once MISSING_RECHECK_MS later", web, report({ found: false }), { after: MISSING_RECHECK_MS, why: "not found yet" }],
    ["a set not found, its announced create unseen: UNSEEN_RECHECK_MS[0]", { ...web, write: { resource: "statefulsets", name: "web", operation: "CREATE" } }, report({ found: false, unseenWrites: [{ resource: "statefulsets", name: "web", operation: "CREATE" }] }), { after: UNSEEN_RECHECK_MS[0], why: "not found yet" }],
    ["a set not found, its pod's write read: nothing (one read for a made-up name)", { ...web, write: podUpdate }, report({ found: false }), { why: "done" }],
    ["the pass failed: waitingRecheckMs", { ...web, write: podUpdate }, undefined, { after: WAITING, why: "failed" }],
  ];
  it.each(cases)("%s", (_name, w, r, want) => {
    const { s } = world();
    s.wake(w);
    passNow(s);
    expect(s.finish(KEY, r)).toEqual({ ...(want.after === undefined ? {} : { at: T0 + want.after }), why: want.why });
  });

  it("a wake during the pass stands, and its pass also looks for what this one did not read", () => {
    const { s } = world();
    s.wake({ ...web, write: podUpdate });
    passNow(s);
    const other: AnnouncedWrite = { ...podUpdate, name: "web-1" };
    s.wake({ ...web, write: other });
    expect(s.finish(KEY, report({ pending: true, unseenWrites: [podUpdate] }))).toEqual({ at: T0 + ANNOUNCED_COALESCE_MS, why: "woken meanwhile" });
    expect(passNow(s)).toEqual({ awaiting: [other, podUpdate] });
  });

  it("blind rechecks follow BLIND_RECHECK_MS, then waitingRecheckMs while the set waits", () => {
    const { s, at, now } = world();
    s.wake(web);
    const got: (number | undefined)[] = [];
    for (let i = 0; i <= BLIND_RECHECK_MS.length; i++) {
      at(now() - T0 + COALESCE_MS);
      passNow(s);
      const next = s.finish(KEY, report({ pending: true }));
      got.push(next.at === undefined ? undefined : next.at - now());
      at(next.at! - T0);
    }
    // A recheck later than the waiting set's own look gives way to it (Node: 1 s; the Worker's 10 s keeps the 3 s one).
    expect(got).toEqual([...BLIND_RECHECK_MS.map((ms) => Math.min(ms, WAITING)), WAITING]);
  });

  it("while an announced write is unseen, each look reads only the awaited objects (MAX_PROBES) on UNSEEN_RECHECK_MS, then passes once the table is spent", () => {
    const { s, at, now } = world();
    const writes = Array.from({ length: 5 }, (_, i) => ({ ...podUpdate, name: `web-${i}` }));
    for (const write of writes) s.wake({ ...web, write });
    expect(s.start(KEY)).toMatchObject({ kind: "pass" });
    s.finish(KEY, report({ unseenWrites: writes }));
    const looks: number[] = [];
    for (;;) {
      at(s.nextAt() - T0);
      const start = s.start(KEY)!;
      if (start.kind === "pass") break;
      expect(start).toEqual({ kind: "probe", writes: writes.slice(0, MAX_PROBES) });
      looks.push(now() - T0);
      s.probed(KEY, false);
    }
    const cumulative = UNSEEN_RECHECK_MS.map((_, i) => UNSEEN_RECHECK_MS.slice(0, i + 1).reduce((a, b) => a + b, 0));
    expect(looks).toEqual(cumulative.slice(0, -1));
  });

  it("a wake's own look probes first when it awaits only deletions (slow to land), and passes at once when it awaits anything else", () => {
    const podDelete: AnnouncedWrite = { ...podUpdate, operation: "DELETE" };
    const { s, at } = world();
    s.wake({ ...web, write: podDelete });
    at(ANNOUNCED_COALESCE_MS);
    expect(s.start(KEY)).toEqual({ kind: "probe", writes: [podDelete] });
    expect(s.probed(KEY, false)).toEqual({ kind: "wait", at: T0 + ANNOUNCED_COALESCE_MS + UNSEEN_RECHECK_MS[0] });
    at(ANNOUNCED_COALESCE_MS + UNSEEN_RECHECK_MS[0]);
    expect(passNow(s, true)).toEqual({ awaiting: [podDelete] });
    const mixed = world();
    mixed.s.wake({ ...web, write: podDelete });
    mixed.s.wake({ ...web, write: { ...podUpdate, name: "web-1" } });
    mixed.at(ANNOUNCED_COALESCE_MS);
    expect(mixed.s.start(KEY)).toMatchObject({ kind: "pass" });
  });

  it("a probe that sees the write passes the set at once", () => {
    const { s, at } = world();
    s.wake({ ...web, write: podUpdate });
    passNow(s);
    s.finish(KEY, report({ pending: true, unseenWrites: [podUpdate] }));
    at(UNSEEN_RECHECK_MS[0]);
    expect(passNow(s, true)).toEqual({ awaiting: [podUpdate] });
  });

  it("what a pass learnt becomes the next one's hints: a set found (with claims or not), a namespace without ImageLists until an ImageList wake", () => {
    const { s } = world();
    s.wake({ ...web, write: podUpdate });
    passNow(s);
    s.finish(KEY, report({ seenSet: { withClaims: true }, imageListCount: 0 }));
    s.wake({ ...web, write: podUpdate });
    expect(passNow(s)).toEqual({ awaiting: [podUpdate], imageListsKnownNone: true, knownSet: { withClaims: true } });
    s.finish(KEY, report({ seenSet: { withClaims: true } }));
    s.wake({ namespace: "default", name: "", observed: true });
    s.wake({ ...web, write: podUpdate });
    expect(passNow(s)).toEqual({ awaiting: [podUpdate], knownSet: { withClaims: true } });
  });
});

describe("Schedule.start (rate limits)", () => {
  it("a set woken faster than its rate waits for a token: its look is due again when one is", () => {
    const { s } = world();
    let passes = 0;
    for (let i = 0; i < 30; i++) {
      s.wake({ ...web, write: podUpdate });
      const start = s.start(KEY);
      if (start?.kind === "pass") {
        passes++;
        s.finish(KEY, report());
      } else expect(start).toEqual({ kind: "wait", at: expect.any(Number) as number });
    }
    expect(passes).toBe(20);
  });
});

describe("Schedule full pass", () => {
  it("each reported set is due per its outcome (never later than a recheck it has); the next full pass is intervalMs away, or at once after a stop", () => {
    const { s } = world();
    s.wake({ namespace: "a", name: "x" });
    const r = s.finishFull({
      sets: [
        { key: "a/x", actionCount: 0, pending: true },
        { key: "b/acted", actionCount: 2, pending: true },
        { key: "b/requeue", actionCount: 0, pending: false, requeueAfterMs: 3_000 },
        { key: "b/waits", actionCount: 0, pending: true },
        { key: "b/done", actionCount: 0, pending: false },
      ],
    });
    expect(r).toEqual({ at: T0 + INTERVAL, why: "done" });
    expect(s.snapshot()).toEqual({ due: { "a/x": T0 + COALESCE_MS, "b/acted": T0, "b/requeue": T0 + 3_000, "b/waits": T0 + WAITING }, nextFullPassAt: T0 + INTERVAL });
    expect(s.finishFull({ sets: [], cursor: "b/acted" })).toEqual({ at: T0, why: "stopped" });
    expect(s.startFull()).toEqual({ startAfter: "b/acted" });
    expect(s.finishFull(undefined)).toEqual({ at: T0 + WAITING, why: "failed" });
  });

  it("a model built from a snapshot has its sets due when stored, and a shard never passed is due its full pass at once", () => {
    let t = T0;
    const s = new Schedule({ intervalMs: INTERVAL, waitingRecheckMs: WAITING }, () => t, { due: { [KEY]: T0 + 5 }, nextFullPassAt: T0 + 10 });
    expect([s.dueSets(), s.nextAt()]).toEqual([[], T0 + 5]);
    t += 5;
    expect(s.dueSets()).toEqual([KEY]);
    expect(new Schedule({ intervalMs: INTERVAL, waitingRecheckMs: WAITING }, () => t).fullPassDue()).toBe(true);
  });

  it("a set whose pass is in flight is stored as due when it started (a shell that dies mid-pass passes it again), woken meanwhile: the earlier time", () => {
    const { s, at } = world();
    s.wake(web);
    at(COALESCE_MS);
    expect(s.start(KEY)?.kind).toBe("pass");
    expect(s.snapshot().due).toEqual({ [KEY]: T0 + COALESCE_MS });
    at(COALESCE_MS + 100);
    s.wake(web);
    expect(s.snapshot().due).toEqual({ [KEY]: T0 + COALESCE_MS });
    s.finish(KEY, report());
    expect(s.snapshot().due).toEqual({ [KEY]: T0 + 2 * COALESCE_MS + 100 });
  });

  it("deferAll moves everything due to the time the Lease may be tried again; requestFullPass makes the full pass due now", () => {
    const { s } = world();
    s.wake({ ...web, write: podUpdate });
    s.deferAll(T0 + 2_000);
    expect(s.snapshot()).toEqual({ due: { [KEY]: T0 + 2_000 }, nextFullPassAt: T0 + INTERVAL });
    s.requestFullPass();
    expect(s.fullPassDue()).toBe(true);
  });
});
