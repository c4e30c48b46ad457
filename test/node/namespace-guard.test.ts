/**
 * A reconciler restart does not replay the namespace that killed it first (issue 35): the thread's
 * lists say which namespace they read (ReadingTracker names the suspect when the thread dies), the
 * next thread strikes it in the cluster's quarantine record (a Lease annotation, quarantine.ts) and
 * refuses its lists while the backoff lasts (NamespaceGuard). Before, the restarted thread listed
 * the same namespace again and died again (G1: 7 OOMs in 3 minutes).
 */
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../src/kube/client.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { ReadingTracker } from "../../src/node/reading-tracker.ts";
import { DEATHS_TO_QUARANTINE, judgeDeath, NamespaceGuard, type Reading } from "../../src/reconciler/namespace-guard.ts";
import { NamespaceSetAside } from "../../src/reconciler/namespace-budget.ts";
import { backoffMs, parseRecord, QUARANTINE_LEASE, setAsideUntil, strike } from "../../src/reconciler/quarantine.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { NOW } from "../support/fixtures.ts";

describe("ReadingTracker", () => {
  it("names the namespace of the latest list in flight, else one whose list ended under 10 s ago, then forgets", () => {
    let t = 0;
    const tracker = new ReadingTracker(() => t);
    const note = (namespace: string, done: boolean) => tracker.note({ namespace, done });
    note("a", false);
    note("b", false);
    note("b", true);
    expect(tracker.suspect()).toBe("a");
    expect(tracker.suspect()).toBeUndefined();
    note("c", false);
    note("c", true);
    t = 9_000;
    expect(tracker.suspect()).toBe("c");
    note("d", false);
    note("d", true);
    t = 20_000;
    expect(tracker.suspect()).toBeUndefined();
  });
});

describe("judgeDeath", () => {
  const cases: [string, string | undefined, string | undefined, 1 | 2, ReturnType<typeof judgeDeath>][] = [
    ["one death strikes at once with 1", "a", undefined, 1, { strike: "a" }],
    ["one death makes the suspect with 2", "a", undefined, 2, { suspect: "a" }],
    ["a second death reading the suspect strikes it with 2", "a", "a", 2, { strike: "a" }],
    ["a death reading another namespace makes that one the suspect", "b", "a", 2, { suspect: "b" }],
    ["a death reading nothing keeps the suspect", undefined, "a", 2, { suspect: "a" }],
    ["nothing read, nothing suspected: nothing", undefined, undefined, 1, {}],
  ];
  it.each(cases)("%s", (_, died, suspect, deaths, verdict) => {
    expect(judgeDeath(died, suspect, deaths)).toEqual(verdict);
  });

  it("is Node's after one death and the Worker's after two (DEATHS_TO_QUARANTINE, the runtimes' one difference)", () => {
    expect(DEATHS_TO_QUARANTINE).toEqual({ node: 1, worker: 2 });
    const tracker = new ReadingTracker(() => 0);
    tracker.note({ namespace: "a", done: false });
    expect(tracker.died()).toBe("a");
    expect(tracker.died()).toBeUndefined();
  });
});

describe("the quarantine record", () => {
  it("backs off 1 min, doubling with each strike, up to 1 h", () => {
    expect([1, 2, 3, 7, 50].map(backoffMs)).toEqual([60_000, 120_000, 240_000, 3_600_000, 3_600_000]);
  });

  it("strikes a namespace again from its last strike and drops entries over for more than an hour", () => {
    const old = { until: new Date(NOW.getTime() - 2 * 3_600_000).toISOString(), strikes: 3, why: "x" };
    const r = strike({ gone: old, a: { until: NOW.toISOString(), strikes: 1, why: "x" } }, "a", "oom", NOW);
    expect(r).toEqual({ a: { until: new Date(NOW.getTime() + 120_000).toISOString(), strikes: 2, why: "oom" } });
    expect(setAsideUntil(r, "a", NOW)).toEqual(new Date(NOW.getTime() + 120_000));
    expect(setAsideUntil(r, "a", new Date(NOW.getTime() + 120_000))).toBeUndefined();
  });

  it("reads anything that is not a record as an empty one, and keeps only well-formed entries", () => {
    expect(parseRecord("not json")).toEqual({});
    expect(parseRecord("[1]")).toEqual({});
    expect(parseRecord(JSON.stringify({ a: { until: "never", strikes: 1, why: "" }, b: { until: NOW.toISOString(), strikes: 0, why: "" }, c: { until: NOW.toISOString(), strikes: 2, why: "w" } }))).toEqual({
      c: { until: NOW.toISOString(), strikes: 2, why: "w" },
    });
  });
});

describe("NamespaceGuard", () => {
  function setup() {
    const fake = createFakeApiServer({ namespaces: ["ordinal-system", "a", "b"] });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    const guard = () => new NamespaceGuard(client, "ordinal-system", silentLogger, () => NOW);
    const lease = () => fake.get<KubeObject>(`/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases/${QUARANTINE_LEASE}`);
    return { fake, client, guard, lease };
  }

  it("strikes the suspect in the cluster's record (a Lease annotation) and refuses its lists while it lasts", async () => {
    const { client, guard, lease } = setup();
    const g = guard();
    await g.start({ namespace: "a", why: "the reconcile thread ran out of heap (RECONCILE_HEAP_MB=128) while reading it" });
    expect(JSON.parse(lease()!.metadata!.annotations!["ordinal.dev/quarantine"])).toEqual({
      a: { until: new Date(NOW.getTime() + 60_000).toISOString(), strikes: 1, why: "the reconcile thread ran out of heap (RECONCILE_HEAP_MB=128) while reading it" },
    });
    const readings: Reading[] = [];
    const guarded = g.guardedClient(client, (r) => void readings.push(r));
    await expect(guarded.list(R.pods, "a")).rejects.toBeInstanceOf(NamespaceSetAside);
    expect(await guarded.list(R.pods, "b")).toEqual([]);
    expect(await guarded.list(R.namespaces, undefined)).toHaveLength(3);
    expect(readings).toEqual([
      { namespace: "b", done: false },
      { namespace: "b", done: true },
    ]);
    // Another thread (or replica) reads the record at its start; the same suspect again doubles the backoff.
    await guard().start({ namespace: "a", why: "again" });
    expect(JSON.parse(lease()!.metadata!.annotations!["ordinal.dev/quarantine"]).a).toEqual({ until: new Date(NOW.getTime() + 120_000).toISOString(), strikes: 2, why: "again" });
    const next = guard();
    await next.start(undefined);
    await expect(next.guardedClient(client, () => {}).list(R.pods, "a")).rejects.toThrow(/namespace a is set aside until/);
  });
});
