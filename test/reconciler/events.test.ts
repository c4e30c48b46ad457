/**
 * EventRecorder (src/reconciler/events.ts) on the fake apiserver: the Event it writes, kube's
 * dedupe (count), aggregation of similar events in one flush, the spam filter (repeats written at
 * most once per minIntervalMs, the rest on close), best effort on failures, and what a recorder
 * that lives long (`ordinal serve`'s scheduler) needs: bounded memory, Events gone meanwhile.
 */
import { describe, expect, it, vi } from "vitest";
import { createKubeClient } from "../../src/kube/http.ts";
import type { Logger } from "../../src/log/log.ts";
import { EventRecorder } from "../../src/reconciler/events.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { newSet } from "../support/fixtures.ts";

interface Ev {
  metadata: { name: string; namespace: string };
  reason: string;
  message: string;
  type: string;
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
  involvedObject: Record<string, unknown>;
  source: unknown;
  reportingComponent: string;
  reportingInstance: string;
}

const T0 = Date.parse("2026-11-21T12:00:00.250Z");
const at = (s: number) => new Date(T0 + s * 1000);
const web = newSet({ metadata: { uid: "uid-web", resourceVersion: "7" } });

function setup(minIntervalMs?: number, maxRemembered?: number) {
  const fake = createFakeApiServer({ namespaces: ["default"] });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  const warnings: { msg: string; fields?: Record<string, unknown> }[] = [];
  /** The "warning event" lines (one per Warning Event), apart from the recorder's own warnings. */
  const warningEvents: Record<string, unknown>[] = [];
  const log: Logger = { info() {}, error() {}, warn: (msg, fields) => void (msg === "warning event" ? warningEvents.push(fields ?? {}) : warnings.push({ msg, fields })) };
  const recorder = new EventRecorder(client, log, { ...(minIntervalMs === undefined ? {} : { minIntervalMs }), ...(maxRemembered === undefined ? {} : { maxRemembered }) });
  const events = () => fake.list<Ev>("/api/v1/namespaces/default/events");
  const writes = () => fake.log.entries.filter((e) => e.resource === "events").map((e) => e.verb);
  return { fake, recorder, events, writes, warnings, warningEvents };
}

describe("EventRecorder", () => {
  it("writes one Event as kube's recorder names and fills it", async () => {
    const { recorder, events } = setup();
    recorder.record(web, "Normal", "SuccessfulCreate", "create Pod web-0 in StatefulSet web successful");
    await recorder.flush(at(0));
    const [e] = events();
    expect(e.metadata.name).toMatch(new RegExp(`^web\\.${T0.toString(16)}[0-9a-f]{6}$`));
    expect(e).toMatchObject({
      metadata: { namespace: "default" },
      involvedObject: { apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet", name: "web", namespace: "default", uid: "uid-web", resourceVersion: "7" },
      reason: "SuccessfulCreate",
      message: "create Pod web-0 in StatefulSet web successful",
      type: "Normal",
      source: { component: "ordinal" },
      reportingComponent: "ordinal",
      reportingInstance: "ordinal",
      firstTimestamp: "2026-11-21T12:00:00Z",
      lastTimestamp: "2026-11-21T12:00:00Z",
      count: 1,
    });
  });

  it("identical events in one flush are one Event with their count", async () => {
    const { recorder, events } = setup();
    for (let i = 0; i < 3; i++) recorder.record(web, "Warning", "FailedCreate", "quota exceeded");
    await recorder.flush(at(0));
    expect(events().map((e) => [e.message, e.count])).toEqual([["quota exceeded", 3]]);
  });

  it("similar events (other messages) are Events of their own until there are 10, as kube's aggregator", async () => {
    const { recorder, events } = setup();
    for (const p of ["web-0", "web-1", "web-2"]) recorder.record(web, "Normal", "SuccessfulCreate", `create Pod ${p}`);
    recorder.record(web, "Warning", "SuccessfulCreate", "same reason, other type");
    await recorder.flush(at(0));
    expect(events().map((e) => [e.type, e.message, e.count]).sort()).toEqual([
      ["Normal", "create Pod web-0", 1],
      ["Normal", "create Pod web-1", 1],
      ["Normal", "create Pod web-2", 1],
      ["Warning", "same reason, other type", 1],
    ]);
  });

  it("from the 10th different message on, similar events are one aggregate Event naming the latest", async () => {
    const { recorder, events } = setup();
    for (let i = 0; i < 12; i++) recorder.record(web, "Normal", "SuccessfulCreate", `create Pod web-${i}`);
    await recorder.flush(at(0));
    const got = events().map((e) => [e.message, e.count]);
    expect(got).toHaveLength(10);
    expect(got).toContainEqual(["(combined from similar events): create Pod web-11", 3]);
    for (let i = 0; i < 9; i++) expect(got).toContainEqual([`create Pod web-${i}`, 1]);
  });

  it("the 10 are counted across flushes, within 10 minutes of the previous similar event", async () => {
    const { recorder, events } = setup(0);
    for (let i = 0; i < 9; i++) {
      recorder.record(web, "Normal", "SuccessfulDelete", `delete Pod web-${i}`);
      await recorder.flush(at(i * 60));
    }
    recorder.record(web, "Normal", "SuccessfulDelete", "delete Pod web-9");
    await recorder.flush(at(9 * 60));
    expect(events().map((e) => e.message)).toContain("(combined from similar events): delete Pod web-9");
    // 10 quiet minutes and more: the count starts again.
    recorder.record(web, "Normal", "SuccessfulDelete", "delete Pod web-10");
    await recorder.flush(at(9 * 60 + 601));
    expect(events().map((e) => e.message)).toContain("delete Pod web-10");
  });

  it("Events created in one flush get distinct names `<set>.<hex ms><6 hex digits>`", async () => {
    // The salt that keeps two invocations' names apart is random: pin it at its lowest.
    const random = vi.spyOn(Math, "random").mockReturnValue(0);
    try {
      const { recorder, events } = setup();
      recorder.record(web, "Normal", "SuccessfulCreate", "create Pod web-0");
      recorder.record(web, "Warning", "FailedCreate", "quota exceeded");
      await recorder.flush(at(0));
      const names = events().map((e) => e.metadata.name);
      expect(new Set(names).size).toBe(2);
      for (const n of names) expect(n).toMatch(new RegExp(`^web\\.${T0.toString(16)}[0-9a-f]{6}$`));
    } finally {
      random.mockRestore();
    }
  });

  it("similar events are counted per set and reason", async () => {
    const { recorder, events } = setup();
    const db = newSet({ name: "db", metadata: { uid: "uid-db" } });
    for (let i = 0; i < 9; i++) recorder.record(web, "Normal", "SuccessfulCreate", `create Pod web-${i}`);
    recorder.record(db, "Normal", "SuccessfulCreate", "create Pod db-0");
    recorder.record(web, "Normal", "SuccessfulDelete", "delete Pod web-9");
    await recorder.flush(at(0));
    expect(events().filter((e) => e.message.startsWith("(combined"))).toEqual([]);
    expect(events()).toHaveLength(11);
  });

  it("sets of the same name but another uid get their own Events", async () => {
    const { recorder, events } = setup();
    recorder.record(web, "Normal", "SuccessfulCreate", "x");
    recorder.record(newSet({ metadata: { uid: "uid-other" } }), "Normal", "SuccessfulCreate", "x");
    await recorder.flush(at(0));
    expect(events().map((e) => e.involvedObject.uid).sort()).toEqual(["uid-other", "uid-web"]);
  });

  it("cuts a message at 1024 characters", async () => {
    const { recorder, events } = setup();
    recorder.record(web, "Warning", "FailedCreate", "x".repeat(5000));
    await recorder.flush(at(0));
    expect(events()[0].message).toHaveLength(1024);
  });

  it("a Warning Event is also one warn line when it is created, not at each repeat; a Normal one is not logged", async () => {
    const { recorder, warningEvents } = setup();
    recorder.record(web, "Warning", "RolledBack", "StatefulSet default/web rolled back from revision web-2 to revision web-1");
    recorder.record(web, "Normal", "SuccessfulCreate", "create Pod web-0 in StatefulSet web successful");
    await recorder.flush(at(0));
    recorder.record(web, "Warning", "RolledBack", "StatefulSet default/web rolled back from revision web-2 to revision web-1");
    await recorder.flush(at(1));
    recorder.record(web, "Warning", "FailedCreate", "create Pod web-1 in StatefulSet web failed error: exceeded quota");
    await recorder.flush(at(2));
    expect(warningEvents).toEqual([
      { set: "default/web", kind: "StatefulSet", reason: "RolledBack", message: "StatefulSet default/web rolled back from revision web-2 to revision web-1" },
      { set: "default/web", kind: "StatefulSet", reason: "FailedCreate", message: "create Pod web-1 in StatefulSet web failed error: exceeded quota" },
    ]);
  });

  it("repeats are counted and patched at most once per interval; close writes the rest", async () => {
    const { recorder, events, writes } = setup(10_000);
    recorder.record(web, "Warning", "FailedCreate", "quota exceeded");
    await recorder.flush(at(0));
    recorder.record(web, "Warning", "FailedCreate", "quota exceeded");
    await recorder.flush(at(9.999));
    expect(writes()).toEqual(["create"]);
    await recorder.flush(at(10));
    expect(writes()).toEqual(["create", "patch"]);
    expect(events()[0]).toMatchObject({ count: 2, lastTimestamp: "2026-11-21T12:00:10Z", firstTimestamp: "2026-11-21T12:00:00Z" });
    recorder.record(web, "Warning", "FailedCreate", "quota exceeded");
    await recorder.flush(at(11));
    await recorder.flush(at(12));
    expect(writes()).toEqual(["create", "patch"]);
    await recorder.close(at(13));
    expect(writes()).toEqual(["create", "patch", "patch"]);
    expect(events()[0]).toMatchObject({ count: 3, lastTimestamp: "2026-11-21T12:00:13Z" });
    await recorder.close(at(14));
    expect(writes()).toEqual(["create", "patch", "patch"]);
  });

  it("the default interval is a minute", async () => {
    const { recorder, writes } = setup();
    recorder.record(web, "Warning", "FailedCreate", "quota exceeded");
    await recorder.flush(at(0));
    recorder.record(web, "Warning", "FailedCreate", "quota exceeded");
    await recorder.flush(at(59.999));
    expect(writes()).toEqual(["create"]);
    await recorder.flush(at(60));
    expect(writes()).toEqual(["create", "patch"]);
  });

  it("a different message in a later flush is a new Event, not a repeat", async () => {
    const { recorder, events } = setup(0);
    recorder.record(web, "Warning", "FailedCreate", "quota exceeded");
    await recorder.flush(at(0));
    recorder.record(web, "Warning", "FailedCreate", "node not ready");
    await recorder.flush(at(1));
    expect(events().map((e) => [e.message, e.count]).sort()).toEqual([["node not ready", 1], ["quota exceeded", 1]]);
  });

  it("an aggregate's message follows the latest repeats", async () => {
    const { recorder, events } = setup(0);
    for (let i = 0; i < 10; i++) recorder.record(web, "Normal", "SuccessfulDelete", `delete Pod web-${i}`);
    await recorder.flush(at(0));
    recorder.record(web, "Normal", "SuccessfulDelete", "delete Pod web-10");
    recorder.record(web, "Normal", "SuccessfulDelete", "delete Pod web-11");
    await recorder.flush(at(1));
    expect(events().filter((e) => e.message.startsWith("(combined")).map((e) => [e.message, e.count])).toEqual([["(combined from similar events): delete Pod web-11", 3]]);
  });

  it("a failed write is logged, never thrown, and a failed create is tried again at the next flush", async () => {
    const { fake, recorder, events, warnings } = setup();
    fake.faults.add({ verb: "create", resource: "events", fault: { status: 403, reason: "Forbidden", message: "events is forbidden" }, times: 1 });
    recorder.record(web, "Warning", "FailedCreate", "quota exceeded");
    await expect(recorder.flush(at(0))).resolves.toBeUndefined();
    expect(events()).toEqual([]);
    expect(warnings).toEqual([{ msg: "event not recorded", fields: { event: expect.stringMatching(/^default\/web\./), error: expect.stringMatching(/events is forbidden/) } }]);
    recorder.record(web, "Warning", "FailedCreate", "quota exceeded");
    await recorder.flush(at(1));
    expect(events().map((e) => e.count)).toEqual([2]);
  });

  it("a create whose answer was lost (the Event stored) is not created again and again: the next occurrence patches its count", async () => {
    const { fake, recorder, events, writes } = setup(0);
    fake.faults.add({ verb: "create", resource: "events", fault: "lost", times: 1 });
    recorder.record(web, "Warning", "FailedCreate", "quota exceeded");
    await recorder.flush(at(0));
    expect(events().map((e) => e.count)).toEqual([1]);
    for (const s of [1, 2]) {
      recorder.record(web, "Warning", "FailedCreate", "quota exceeded");
      await recorder.flush(at(s));
    }
    expect(events().map((e) => [e.count, e.lastTimestamp])).toEqual([[3, "2026-11-21T12:00:02Z"]]);
    expect(writes()).toEqual(["create", "create", "patch", "patch"]);
  });

  it("a repeat whose Event is gone (its TTL passed) creates it again under its name, with the count so far and its firstTimestamp", async () => {
    const { fake, recorder, events, writes } = setup(0);
    recorder.record(web, "Warning", "FailedCreate", "quota exceeded");
    await recorder.flush(at(0));
    const [first] = events();
    expect(fake.remove(`/api/v1/namespaces/default/events/${first.metadata.name}`)).toBe(true);
    recorder.record(web, "Warning", "FailedCreate", "quota exceeded");
    await recorder.flush(at(3600));
    expect(writes()).toEqual(["create", "patch", "create"]);
    expect(events()).toEqual([
      expect.objectContaining({ metadata: expect.objectContaining({ name: first.metadata.name }), count: 2, firstTimestamp: first.firstTimestamp, lastTimestamp: "2026-11-21T13:00:00Z", involvedObject: first.involvedObject, reason: "FailedCreate", type: "Warning", message: "quota exceeded" }),
    ]);
  });

  it("a repeat whose patch failed is written at the next flush", async () => {
    const { fake, recorder, events } = setup(0);
    recorder.record(web, "Warning", "FailedCreate", "quota exceeded");
    await recorder.flush(at(0));
    fake.faults.add({ verb: "patch", resource: "events", fault: { status: 500, reason: "InternalError", message: "etcd" }, times: 1 });
    recorder.record(web, "Warning", "FailedCreate", "quota exceeded");
    await recorder.flush(at(1));
    expect(events()[0].count).toBe(1);
    await recorder.flush(at(2));
    expect(events()[0].count).toBe(2);
  });

  it("a repeat that cannot be written (its namespace deleted) is tried at most once per interval and given up after kube's 12 tries, not at every flush", async () => {
    const { fake, recorder, writes, warnings } = setup();
    recorder.record(web, "Warning", "FailedCreate", "quota exceeded");
    await recorder.flush(at(0));
    recorder.record(web, "Warning", "FailedCreate", "quota exceeded");
    await recorder.flush(at(1));
    expect(writes()).toEqual(["create"]);
    // The namespace goes: its Event with it, and no Event can be created in it any more.
    fake.faults.add({ verb: "patch", resource: "events", fault: { status: 404, reason: "NotFound", message: "events not found" } });
    fake.faults.add({ verb: "create", resource: "events", fault: { status: 404, reason: "NotFound", message: 'namespaces "default" not found' } });
    // Every other set's pass flushes the shared recorder (once a second here, for an hour).
    for (let s = 60; s < 3660; s++) await recorder.flush(at(s));
    const failed = writes().slice(1);
    expect(failed.length).toBe(2 * 12);
    expect(warnings.length).toBe(12);
    expect(failed.every((v, i) => v === (i % 2 ? "create" : "patch"))).toBe(true);
  });

  it("remembers at most maxRemembered Events, the least recently used forgotten first (kube's LRU): a repeat of a forgotten one starts a new Event", async () => {
    const { recorder, events } = setup(0, 2);
    for (const m of ["a", "b"]) recorder.record(web, "Warning", "FailedCreate", m);
    await recorder.flush(at(0));
    // "a" is used again, so "b" is the least recently used when "c" comes.
    recorder.record(web, "Warning", "FailedCreate", "a");
    await recorder.flush(at(1));
    recorder.record(web, "Warning", "FailedCreate", "c");
    await recorder.flush(at(2));
    for (const m of ["a", "b"]) recorder.record(web, "Warning", "FailedCreate", m);
    await recorder.flush(at(3));
    expect(events().map((e) => `${e.count} ${e.message}`)).toEqual(["3 a", "1 b", "1 c", "1 b"]);
  });
});
