// The Worker's Durable Object per shard inside workerd: a wake the webhooks see is forwarded to
// the object of its namespace's shard, which passes the set at once; its alarm is set for the set's
// next look and the safety pass; the cron tick pokes every shard. The objects' env (vitest.config.ts)
// points them at https://apiserver.test, answered here by the in-process fake apiserver (the objects
// run in the tests' isolate, so mocking fetch reaches them).
import { abortAllDurableObjects, createExecutionContext, listDurableObjectIds, runDurableObjectAlarm, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Lease, Pod } from "../../src/api/k8s.ts";
import { shardOf } from "../../src/reconciler/pass.ts";
import { WORKER_WAITING_RECHECK_MS as WAITING_RECHECK_MS } from "../../src/schedule/tables.ts";
import type { ScheduleSnapshot as ShardSchedule } from "../../src/schedule/model.ts";
import { createFakeApiServer, type FakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { WEBHOOK_PATHS } from "../../src/webhook-config/webhook-configs.ts";
import { newStatefulSetPod } from "../../src/objects/pod.ts";
import worker from "../../src/worker/index.ts";
import { setManifest } from "../support/fixtures.ts";
import { bindings, resetShards, SHARDS, stubOf } from "./shard-stubs.ts";
import { request, review, sampleSet } from "../admission/helpers.ts";

const podNames = (fake: FakeApiServer, ns = "default") => fake.list<Pod>(`/api/v1/namespaces/${ns}/pods`).map((p) => p.metadata!.name).sort();

let fake: FakeApiServer;

beforeEach(() => {
  fake = createFakeApiServer({ namespaces: ["default", "team-a", "team-b", "team-c", "ordinal-system"] });
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    return url.startsWith("https://apiserver.test/") ? fake.fetch(input, init) : realFetch(input, init);
  });
});

afterEach(async () => {
  // Each test starts with shards that never ran (reset() leaves alarms behind).
  await resetShards();
  vi.restoreAllMocks();
});

/** readState returns the shard's stored schedule and alarm as they are now. */
const readState = (index: number) =>
  runInDurableObject(stubOf(index), async (_o, state) => ({
    schedule: await state.storage.get<ShardSchedule>("schedule"),
    alarm: await state.storage.getAlarm(),
  }));

/**
 * stateOf returns the shard's stored schedule and alarm once no alarm handler is running: alarms
 * fire here (a woken set's recheck is 50 ms away) and a running one reads as null until its
 * handler sets the next. Bounded: after 40 looks it returns what it read.
 */
async function stateOf(index: number): ReturnType<typeof readState> {
  let s = await readState(index);
  for (let i = 0; i < 40 && s.alarm === null; i++) {
    await new Promise((r) => setTimeout(r, 50));
    s = await readState(index);
  }
  return s;
}

/** seedSchedule stores a schedule (and the shard's index) as a shard that already ran would have. */
const seedSchedule = (index: number, s: ShardSchedule, alarm: number) =>
  runInDurableObject(stubOf(index), async (_o, state) => {
    await state.storage.put("index", index);
    await state.storage.put("schedule", s);
    await state.storage.setAlarm(alarm);
  });

describe("the webhook forwards wakes to the shard's object", () => {
  it("a managed pod's status update passes its set at once through the object of its namespace's shard", async () => {
    await fake.seed(setManifest({ replicas: 2, claims: ["data"] }));
    const index = shardOf("default", SHARDS);
    // The shard ran before: its full pass is an hour away, so only the wake can create the pods.
    const later = Date.now() + 3_600_000;
    await seedSchedule(index, { due: {}, nextFullPassAt: later }, later);
    const pod = newStatefulSetPod(sampleSet(), 0);
    const body = JSON.stringify(review(request({ operation: "UPDATE", subResource: "status", object: { ...pod, status: { phase: "Running" } }, oldObject: pod })));
    const ctx = createExecutionContext();
    const res = await worker.fetch(new Request(`https://ordinal.test${WEBHOOK_PATHS.validatePods}`, { method: "POST", body }), { ...bindings, WEBHOOK_AUTH: "none" }, ctx);
    expect(res.status).toBe(200);
    await waitOnExecutionContext(ctx);
    expect(podNames(fake)).toEqual(["web-0"]);
    // OrderedReady, web-0 not Ready yet: the set is looked at again after WAITING_RECHECK_MS at the latest.
    const { schedule, alarm } = await stateOf(index);
    expect(schedule?.due["default/web"]).toBeGreaterThan(Date.now() - 60_000);
    expect(schedule?.due["default/web"]).toBeLessThanOrEqual(Date.now() + WAITING_RECHECK_MS);
    expect(alarm).toBe(schedule?.due["default/web"]);
    // The Worker holds its shard's Lease: no release after the pass.
    const lease = fake.get<Lease>(`/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases/ordinal-reconciler-${index}-of-${SHARDS}`);
    expect(lease?.spec?.holderIdentity).toMatch(new RegExp(`^ordinal-worker-${index}-[0-9a-f]{8}$`));
  });

  it("the object gets the write a wake announces: a pass that read it is not looked at again blindly (50 ms, 250 ms, …) but when its outcome says", async () => {
    await fake.seed(setManifest({ replicas: 2, claims: [] }));
    const index = shardOf("default", SHARDS);
    const later = Date.now() + 3_600_000;
    await seedSchedule(index, { due: {}, nextFullPassAt: later }, later);
    // The set's create, stored before the wake's pass reads it (a malformed write would count as none).
    const wake = { namespace: "default", name: "web", write: { resource: "statefulsets", name: "web", operation: "CREATE" } };
    const res = await stubOf(index).fetch("https://shard/wake", { method: "POST", body: JSON.stringify({ index, wake }) });
    expect(res.status).toBe(204);
    expect(podNames(fake)).toEqual(["web-0"]);
    // web-0 not Ready: the set waits for the kubelet's wake, WAITING_RECHECK_MS at the latest; no blind look 50 ms on.
    const { schedule } = await stateOf(index);
    expect(schedule?.due["default/web"]).toBeGreaterThan(Date.now() + WAITING_RECHECK_MS / 2);
  });

  it("a wake while another holder has the Lease writes nothing", async () => {
    await fake.seed(setManifest({ replicas: 1, claims: [] }));
    await fake.seed({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "ordinal-reconciler", namespace: "ordinal-system" },
      spec: { holderIdentity: "ordinal-serve-1", leaseDurationSeconds: 3600, renewTime: new Date().toISOString().replace("Z", "000Z") },
    });
    const index = shardOf("default", SHARDS);
    const res = await stubOf(index).fetch("https://shard/wake", { method: "POST", body: JSON.stringify({ index, wake: { namespace: "default", name: "web" } }) });
    expect(res.status).toBe(204);
    expect(podNames(fake)).toEqual([]);
  });

  it("refuses a message that is not one (400), whatever it says", async () => {
    for (const body of ["{", "[]", JSON.stringify({ index: -1 }), JSON.stringify({ index: 0, wake: { namespace: 1 } })]) {
      const res = await stubOf(0).fetch("https://shard/wake", { method: "POST", body });
      expect(res.status).toBe(400);
    }
    expect((await stubOf(0).fetch("https://shard/other", { method: "POST", body: "{}" })).status).toBe(404);
  });
});

describe("the shard's alarm", () => {
  it("passes the sets whose time came and is set again for the next look", async () => {
    await fake.seed(setManifest({ replicas: 1, claims: [] }));
    const index = shardOf("default", SHARDS);
    const later = Date.now() + 3_600_000;
    await seedSchedule(index, { due: { "default/web": Date.now() - 1 }, nextFullPassAt: later }, later);
    expect(await runDurableObjectAlarm(stubOf(index))).toBe(true);
    expect(podNames(fake)).toEqual(["web-0"]);
    const { schedule, alarm } = await stateOf(index);
    expect(schedule?.nextFullPassAt).toBe(later);
    expect(alarm).toBe(schedule?.due["default/web"]);
    expect(alarm).toBeLessThan(later);
  });

  it("runs the full pass when it is due, and the next one RECONCILE_INTERVAL_MS later", async () => {
    await fake.seed(setManifest({ replicas: 1, claims: [] }));
    const index = shardOf("default", SHARDS);
    const before = Date.now();
    await seedSchedule(index, { due: {}, nextFullPassAt: before - 1 }, before + 3_600_000);
    expect(await runDurableObjectAlarm(stubOf(index))).toBe(true);
    expect(podNames(fake)).toEqual(["web-0"]);
    const { schedule } = await stateOf(index);
    expect(schedule?.nextFullPassAt).toBeGreaterThanOrEqual(before + 60_000);
  });
});

describe("the cron tick", () => {
  it("runs the full pass on every tick, even while an alarm is set far ahead: a set no wake announced waits one tick", async () => {
    const ns = "team-a";
    const index = shardOf(ns, SHARDS);
    const tick = async () => {
      const ctx = createExecutionContext();
      await worker.scheduled({ scheduledTime: Date.now(), cron: "* * * * *" }, bindings, ctx);
      await waitOnExecutionContext(ctx);
    };
    await tick();
    const { alarm } = await stateOf(index);
    expect(alarm).toBeGreaterThan(Date.now() + 1_000);
    await fake.seed(setManifest({ namespace: ns, replicas: 1, claims: [] }));
    await tick();
    expect(podNames(fake, ns)).toEqual(["web-0"]);
  });

  it("pokes every shard's object: each runs its first full pass over its own namespaces", async () => {
    const byShard = new Map<number, string>();
    for (const ns of ["default", "team-a", "team-b", "team-c"]) byShard.set(shardOf(ns, SHARDS), ns);
    for (const ns of byShard.values()) await fake.seed(setManifest({ namespace: ns, replicas: 1, claims: [] }));
    const ctx = createExecutionContext();
    await worker.scheduled({ scheduledTime: Date.now(), cron: "* * * * *" }, bindings, ctx);
    await waitOnExecutionContext(ctx);
    expect((await listDurableObjectIds(bindings.SHARDS)).length).toBe(SHARDS);
    expect([...byShard.values()].map((ns) => [ns, podNames(fake, ns)])).toEqual([...byShard.values()].map((ns) => [ns, ["web-0"]]));
    for (let i = 0; i < SHARDS; i++) {
      const { schedule, alarm } = await stateOf(i);
      expect(schedule?.nextFullPassAt).toBeGreaterThan(Date.now());
      expect(alarm).not.toBeNull();
    }
    // Each object took its own shard's Lease (as its own holder: holder.test.ts), no other.
    const leases = fake.list<Lease>("/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases").map((l) => `${l.metadata?.name}=${l.spec?.holderIdentity?.slice(0, -9) ?? ""}`);
    expect(leases.sort()).toEqual(Array.from({ length: SHARDS }, (_, i) => `ordinal-reconciler-${i}-of-${SHARDS}=ordinal-worker-${i}`));
  });

  it("while a Lease of another shard count is live (a count being changed), no shard acts; once it is released, each takes its own and acts", async () => {
    const byShard = new Map<number, string>();
    for (const ns of ["default", "team-a", "team-b", "team-c"]) byShard.set(shardOf(ns, SHARDS), ns);
    for (const ns of byShard.values()) await fake.seed(setManifest({ namespace: ns, replicas: 1, claims: [] }));
    const old = "/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases/ordinal-reconciler-1-of-5";
    fake.seed({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "ordinal-reconciler-1-of-5", namespace: "ordinal-system" },
      spec: { holderIdentity: "ordinal-worker", leaseDurationSeconds: 3600, renewTime: new Date().toISOString().replace("Z", "000Z") },
    });
    const tick = async () => {
      const ctx = createExecutionContext();
      await worker.scheduled({ scheduledTime: Date.now(), cron: "* * * * *" }, bindings, ctx);
      await waitOnExecutionContext(ctx);
    };
    await tick();
    expect([...byShard.values()].flatMap((ns) => podNames(fake, ns))).toEqual([]);
    const held = () => fake.list<Lease>("/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases").filter((l) => l.spec?.holderIdentity && l.metadata?.name?.endsWith(`-of-${SHARDS}`));
    expect(held()).toEqual([]);
    // The old count's holder goes (its Lease released); the next tick's shards take their own.
    const lease = fake.get<Lease>(old)!;
    fake.put({ ...lease, spec: { ...lease.spec, holderIdentity: undefined } });
    // New object instances (as after an eviction): their electors try at once, not a retry period later.
    await abortAllDurableObjects();
    await tick();
    expect([...byShard.values()].map((ns) => [ns, podNames(fake, ns)])).toEqual([...byShard.values()].map((ns) => [ns, ["web-0"]]));
    expect(held()).toHaveLength(SHARDS);
  });
});
