// The Worker's shard object under the faults Cloudflare documents (issue 36): an alarm delivered
// twice (alarms are at-least-once), an alarm that fires while a drain runs (a retried alarm after
// an exception), and an object that dies between a pass's apiserver writes and its storage put (an
// isolate killed, a deploy). A pass is level-triggered: a duplicate or concurrent alarm makes no
// create twice, and a wake the object accepted is passed after the crash, by its alarm, not by the
// next full pass. The objects' apiserver is the in-process fake (as in shards.test.ts); `hang`
// holds one request forever, so the object is aborted in the middle of its pass.
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Lease, Pod } from "../../src/api/k8s.ts";
import { shardLeaseName } from "../../src/lease/shard-leases.ts";
import { shardOf } from "../../src/reconciler/pass.ts";
import type { ScheduleSnapshot } from "../../src/schedule/model.ts";
import { createFakeApiServer, type FakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import type { ShardReconciler } from "../../src/worker/shard-object.ts";
import { setManifest } from "../support/fixtures.ts";
import { resetShards, SHARDS, stubOf } from "./shard-stubs.ts";

const podNames = (ns = "default") => fake.list<Pod>(`/api/v1/namespaces/${ns}/pods`).map((p) => p.metadata!.name).sort();
const podCreates = () => fake.log.count({ verb: "create", resource: "pods" });
const index = shardOf("default", SHARDS);
const later = () => Date.now() + 3_600_000;

let fake: FakeApiServer;
/** The request `hang` holds: matched by method and path; `reached` resolves when it comes. */
let held: { method: string; path: RegExp; skip: number; reached: () => void } | undefined;
/** The User-Agent of every request the objects sent. */
let userAgents: Set<string>;

/** hang makes the apiserver never answer the `skip + 1`-th request matching method and path; resolves once it came. */
const hang = (method: string, path: RegExp, skip = 0) => new Promise<void>((reached) => (held = { method, path, skip, reached }));

beforeEach(() => {
  fake = createFakeApiServer({ namespaces: ["default", "ordinal-system"] });
  held = undefined;
  userAgents = new Set();
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith("https://apiserver.test/")) return realFetch(input, init);
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    userAgents.add(new Headers(init?.headers).get("user-agent") ?? "");
    if (held && method === held.method && held.path.test(new URL(url).pathname) && held.skip-- === 0) {
      held.reached();
      return new Promise<Response>(() => {});
    }
    return fake.fetch(input, init);
  });
});

afterEach(async () => {
  await abortAllDurableObjects();
  await resetShards();
  vi.restoreAllMocks();
});

/** readState returns the shard's stored schedule and alarm as a new instance would find them. */
const readState = () =>
  runInDurableObject(stubOf(index), async (_o, state) => ({
    schedule: await state.storage.get<ScheduleSnapshot>("schedule"),
    alarm: await state.storage.getAlarm(),
  }));

/** seedSchedule stores a schedule (and the shard's index) as a shard that already ran would have. */
const seedSchedule = (s: ScheduleSnapshot, alarm: number) =>
  runInDurableObject(stubOf(index), async (_o, state) => {
    await state.storage.put("index", index);
    await state.storage.put("schedule", s);
    await state.storage.setAlarm(alarm);
  });

/** wake forwards a wake of `default/<name>` to the shard's object as the webhooks do (an aborted object's answer never comes). */
const wake = (name: string) => stubOf(index).fetch("https://shard/wake", { method: "POST", body: JSON.stringify({ index, wake: { namespace: "default", name } }) }).catch((e: unknown) => e);

describe("an alarm delivered more than once", () => {
  it("twice in a row: the second finds the set passed and creates nothing; the alarm is set again", async () => {
    await fake.seed(setManifest({ replicas: 2, policy: "Parallel", claims: [] }));
    const far = later();
    await seedSchedule({ due: { "default/web": Date.now() - 1 }, nextFullPassAt: far }, far);
    expect(await runDurableObjectAlarm(stubOf(index))).toBe(true);
    expect(podNames()).toEqual(["web-0", "web-1"]);
    // The same delivery again (at-least-once): what it reads is what the first made.
    await runInDurableObject(stubOf(index), (o: ShardReconciler) => o.alarm());
    expect(podNames()).toEqual(["web-0", "web-1"]);
    expect(podCreates()).toBe(2);
    expect(fake.log.count({ verb: "create", resource: "pods", code: 409 })).toBe(0);
    expect((await readState()).alarm).not.toBeNull();
    // The audit log names the writer as it names `ordinal serve`'s: `ordinal/<its Lease holder>`.
    const holder = fake.get<Lease>(`/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases/${shardLeaseName(index, SHARDS)}`)?.spec?.holderIdentity;
    expect([...userAgents]).toEqual([`ordinal/${holder}`]);
  });

  it("while the first one's pass runs (a retried alarm): one drain at a time, each pod created once", async () => {
    await fake.seed(setManifest({ replicas: 3, policy: "Parallel", claims: [] }));
    const far = later();
    await seedSchedule({ due: { "default/web": Date.now() - 1 }, nextFullPassAt: far }, far);
    await runInDurableObject(stubOf(index), (o: ShardReconciler) => Promise.all([o.alarm(), o.alarm(), o.alarm()]));
    expect(podNames()).toEqual(["web-0", "web-1", "web-2"]);
    expect(podCreates()).toBe(3);
    expect(fake.log.count({ verb: "create", resource: "pods", code: 409 })).toBe(0);
  });

  it("after one that threw (the apiserver failed the Lease look): the set is still due and the retry passes it", async () => {
    await fake.seed(setManifest({ replicas: 1, claims: [] }));
    const far = later();
    await seedSchedule({ due: { "default/web": Date.now() - 1 }, nextFullPassAt: far }, far);
    fake.faults.add({ verb: "list", resource: "leases", fault: "internal", times: 4 });
    await expect(runInDurableObject(stubOf(index), (o: ShardReconciler) => o.alarm())).rejects.toThrow();
    expect(podNames()).toEqual([]);
    // The client tried 4 times; Cloudflare retries an alarm whose handler threw (here the alarm
    // the drain set again, due now, may fire first: either passes the set still stored as due).
    await runInDurableObject(stubOf(index), (o: ShardReconciler) => o.alarm());
    expect(podNames()).toEqual(["web-0"]);
  });
});

describe("an object that dies in the middle of a pass", () => {
  it("a wake it accepted is stored before its pass: after the crash, the alarm passes the set and the pods its pass made are not made twice", async () => {
    await fake.seed(setManifest({ replicas: 2, policy: "Parallel", claims: [] }));
    // The shard ran before: its full pass is an hour away, so only the wake can finish the set.
    const far = later();
    await seedSchedule({ due: {}, nextFullPassAt: far }, far);
    const secondCreate = hang("POST", /\/pods$/, 1);
    void wake("web"); // never answered: its object dies
    await secondCreate;
    expect(podNames()).toEqual(["web-0"]);
    // The isolate dies: the pass's write of web-0 is in the cluster, its storage put never came.
    await abortAllDurableObjects();
    held = undefined;
    const { schedule, alarm } = await readState();
    expect(schedule?.due["default/web"]).toBeLessThanOrEqual(Date.now());
    // Its alarm comes well before the full pass (the cron tick, an hour here).
    expect(alarm).not.toBeNull();
    expect(alarm!).toBeLessThan(far);
    expect(await runDurableObjectAlarm(stubOf(index))).toBe(true);
    expect(podNames()).toEqual(["web-0", "web-1"]);
    expect(podCreates()).toBe(2);
  });

  it("a wake that comes while another set's pass runs keeps that set stored as due: both are passed after the crash", async () => {
    await fake.seed(setManifest({ name: "web", replicas: 1, claims: [] }));
    await fake.seed(setManifest({ name: "db", replicas: 1, claims: [] }));
    const far = later();
    await seedSchedule({ due: {}, nextFullPassAt: far }, far);
    const webCreate = hang("POST", /\/pods$/);
    void wake("web");
    await webCreate;
    // db's wake is stored while web's pass is in flight (it joins the drain, which never ends).
    void wake("db");
    await vi.waitFor(async () => expect(Object.keys((await readState()).schedule?.due ?? {})).toContain("default/db"));
    await abortAllDurableObjects();
    held = undefined;
    expect(Object.keys((await readState()).schedule?.due ?? {}).sort()).toEqual(["default/db", "default/web"]);
    // The alarm passes both. A namespace suspected after the crash is passed set by set: a set the
    // first alarm left is still stored as due with its alarm at once (workerd may run that alarm
    // itself before runDurableObjectAlarm asks), never lost until the hour-away full pass.
    expect(await runDurableObjectAlarm(stubOf(index))).toBe(true);
    await vi.waitFor(async () => {
      await runDurableObjectAlarm(stubOf(index));
      expect([...podNames()]).toEqual(["db-0", "web-0"]);
    });
  });
});
