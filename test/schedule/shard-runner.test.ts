/** ShardRunner, the single writer of a shard (the Worker's Durable Object runs one), on the fake apiserver. */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger } from "../../src/log/log.ts";
import { shardOf } from "../../src/reconciler/pass.ts";
import { RENEW_EVERY_MS, ShardRunner, WAKE_NET_MS, type ShardStore } from "../../src/schedule/shard-runner.ts";
import { BLIND_RECHECK_MS as WOKEN_RECHECK_MS, UNSEEN_RECHECK_MS, WORKER_WAITING_RECHECK_MS as WAITING_RECHECK_MS } from "../../src/schedule/tables.ts";
import type { ScheduleSnapshot as ShardSchedule } from "../../src/schedule/model.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

const HOUR = 3_600_000;

/** world returns a runner of the only shard over a fake with an OrderedReady set default/web (2 replicas), a memory store and a clock. */
function world(o: { maxRequests?: number; count?: number; index?: number; coalesceMs?: number } = {}) {
  const fake = createFakeApiServer({ namespaces: ["default", "other", "ordinal-system"] });
  fake.seed(setManifest({ replicas: 2 }));
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  let t = Date.parse("2026-11-21T12:00:00Z");
  const clock = { now: () => new Date(t), advance: (ms: number) => void (t += ms) };
  const stored: { schedule?: ShardSchedule; alarm?: number } = { schedule: { due: {}, nextFullPassAt: t + HOUR } };
  const store: ShardStore = {
    load: async () => stored.schedule,
    save: async (s) => void (stored.schedule = s),
    setAlarm: async (at) => void (stored.alarm = at),
  };
  const runner = new ShardRunner({
    client,
    store,
    log: silentLogger,
    shard: { index: o.index ?? 0, count: o.count ?? 1 },
    leaseNamespace: "ordinal-system",
    holder: "ordinal-worker",
    intervalMs: 60_000,
    budgetMs: HOUR,
    maxRequests: o.maxRequests ?? 900,
    now: clock.now,
    clock: () => t,
    coalesceMs: o.coalesceMs ?? 0,
    // A wake's coalescing time passes on this clock too (and in real time, for writes a test schedules meanwhile).
    sleep: (ms) => new Promise((resolve) => setTimeout(() => resolve(clock.advance(ms)), ms)),
  });
  const pods = () => fake.list<Pod>("/api/v1/namespaces/default/pods").map((p) => p.metadata!.name);
  return { fake, runner, stored, clock, pods };
}

const web = { namespace: "default", name: "web" };

/** markReady stores pod `name` Running and Ready (the kubelet's status write). */
function markReady(fake: ReturnType<typeof createFakeApiServer>, name: string): void {
  const pod = fake.get<Pod>(`/api/v1/namespaces/default/pods/${name}`)!;
  const at = "2026-11-21T12:00:00Z" as unknown as Date;
  fake.put({ ...pod, status: { phase: "Running", conditions: [{ type: "Ready", status: "True", lastTransitionTime: at }, { type: "InPlaceUpdateReady", status: "True" }] } });
}

describe("ShardRunner.wake", () => {
  it("passes the woken set at once and sets the alarm for its recheck (web-0 not Ready)", async () => {
    const w = world();
    await w.runner.wake(web);
    expect(w.pods()).toEqual(["web-0"]);
    expect(w.stored.schedule?.due["default/web"]).toBeDefined();
    expect(w.stored.alarm).toBe(w.stored.schedule?.due["default/web"]);
  });

  it("looks again 50 ms, 250 ms, 1 s and 3 s after a wake whose pass found nothing new, then every WAITING_RECHECK_MS while it waits", async () => {
    const w = world();
    await w.runner.wake(web); // web-0 created; the pass after it waits for web-0
    const t0 = w.clock.now().getTime();
    expect(w.stored.schedule?.due["default/web"]).toBe(t0 + 50);
    expect(w.stored.alarm).toBe(t0 + 50);
    w.clock.advance(50);
    await w.runner.alarm();
    expect(w.stored.schedule?.due["default/web"]).toBe(t0 + 300);
    w.clock.advance(250);
    await w.runner.alarm();
    let t = t0 + 300;
    for (const ms of WOKEN_RECHECK_MS.slice(2)) {
      expect(w.stored.schedule?.due["default/web"]).toBe(t + ms);
      w.clock.advance(ms);
      t += ms;
      await w.runner.alarm();
    }
    expect(w.stored.schedule?.due["default/web"]).toBe(t + WAITING_RECHECK_MS);
  });

  it("a wake that comes while its set's recheck pass is running starts the rechecks afresh (the running pass's count does not override it)", async () => {
    const w = world();
    await w.runner.wake(web); // web-0 created; the pass after it waits: first recheck due in 50 ms
    w.clock.advance(50);
    let woken: Promise<void> | undefined;
    // The kubelet's status write is admitted while the recheck pass reads the set.
    w.fake.onRequest((r) => {
      if (!woken && r.verb === "list" && r.resource === "statefulsets") woken = w.runner.wake(web);
    });
    await w.runner.alarm();
    await woken;
    expect(w.stored.schedule?.due["default/web"]).toBe(w.clock.now().getTime() + WOKEN_RECHECK_MS[0]);
  });

  it("an OrderedReady step whose wake's pass read the pod before its Ready status was stored takes one 50 ms recheck, not WAITING_RECHECK_MS", async () => {
    const w = world();
    await w.runner.wake(web);
    // The kubelet's status write is admitted (the wake) and stored only after the pass read it.
    await w.runner.wake(web);
    expect(w.pods()).toEqual(["web-0"]);
    markReady(w.fake, "web-0");
    const due = w.stored.schedule?.due["default/web"] ?? Infinity;
    expect(due - w.clock.now().getTime()).toBe(50);
    w.clock.advance(50);
    await w.runner.alarm();
    expect(w.pods()).toEqual(["web-0", "web-1"]);
  });

  it("a wake's pass waits its coalescing time first: a status write stored just after its admission is seen by that pass, not a recheck", async () => {
    const w = world({ coalesceMs: 20 });
    await w.runner.wake(web);
    expect(w.pods()).toEqual(["web-0"]);
    // The kubelet's status write is admitted (the wake, announcing it: ANNOUNCED_COALESCE_MS) and stored 1 ms later.
    const write = statusWrite(w.fake, "web-0");
    setTimeout(() => markReady(w.fake, "web-0"), 1);
    await w.runner.wake(write);
    expect(w.pods()).toEqual(["web-0", "web-1"]);
  });

  it("a woken set that is converged is looked at again too (the wake of a template change may come before the change is stored)", async () => {
    const w = world();
    w.stored.schedule = { due: {}, nextFullPassAt: w.clock.now().getTime() + HOUR };
    for (const name of ["web-0", "web-1"]) {
      await w.runner.wake(web);
      markReady(w.fake, name);
      w.clock.advance(50);
      await w.runner.alarm();
    }
    for (let i = 0; i < 10 && w.stored.schedule?.due["default/web"] !== undefined; i++) {
      w.clock.advance(WAITING_RECHECK_MS);
      await w.runner.alarm();
    }
    expect(w.stored.schedule?.due["default/web"]).toBeUndefined(); // converged, no wake: not tracked
    await w.runner.wake(web);
    expect(w.stored.schedule?.due["default/web"]).toBe(w.clock.now().getTime() + 50);
  });

  it("its drains share one event recorder: an OrderedReady scale-up's events are combined across its wakes as kube's correlator does", async () => {
    const w = world();
    w.fake.put({ ...setManifest({ replicas: 11 }), metadata: w.fake.get<{ metadata: object }>("/apis/apps.ordinal.dev/v1/namespaces/default/statefulsets/web")!.metadata });
    for (let i = 0; i < 11; i++) {
      await w.runner.wake(web);
      markReady(w.fake, `web-${i}`);
      w.clock.advance(100); // a kubelet step: the set's rate limit refills
    }
    const events = w.fake.list<{ reason: string; message: string; count: number }>("/api/v1/namespaces/default/events").filter((e) => e.reason === "SuccessfulCreate");
    // Before, a recorder per drain: 11 Events of count 1, none combined. Each drain writes the counts it saw.
    expect(events.map((e) => `${e.count} ${e.message}`)).toEqual([
      ...Array.from({ length: 9 }, (_, i) => `1 create Pod web-${i} in StatefulSet web successful`),
      "2 (combined from similar events): create Pod web-10 in StatefulSet web successful",
    ]);
  });

  it("stores a woken set as due before its pass, with the alarm WAKE_NET_MS after it (an object that dies mid-pass); a wake of a set stored as due writes nothing", async () => {
    const w = world({ coalesceMs: 5 });
    const saves: ShardSchedule[] = [];
    const alarms: number[] = [];
    w.fake.onRequest(() => {
      if (w.stored.schedule) saves.push(w.stored.schedule);
      if (w.stored.alarm !== undefined) alarms.push(w.stored.alarm);
    });
    const t0 = w.clock.now().getTime();
    const first = w.runner.wake(web);
    const second = w.runner.wake(web);
    await Promise.all([first, second]);
    // Before the pass's first request: stored due at its coalescing time, the alarm WAKE_NET_MS on.
    expect(saves[0]?.due["default/web"]).toBe(t0 + 5);
    expect(alarms[0]).toBe(t0 + 5 + WAKE_NET_MS);
    // One save for both wakes before the pass, one after it.
    expect(new Set(saves).size).toBe(1);
  });

  it("coalesces wakes of one set that come while it is queued or passing", async () => {
    const w = world();
    await w.runner.wake(web);
    w.fake.log.clear();
    await Promise.all(Array.from({ length: 20 }, () => w.runner.wake(web)));
    // The first wake's pass, and one more for the wakes that came during it; each reads the set once.
    expect(w.fake.log.count({ verb: "list", resource: "statefulsets" })).toBeLessThanOrEqual(2);
  });

  it("holds the Lease across wakes: one write per RENEW_EVERY_MS, none per hinted pass", async () => {
    const w = world();
    await w.runner.wake(web);
    const leaseWrites = () => w.fake.log.count({ resource: "leases", verb: "update" }) + w.fake.log.count({ resource: "leases", verb: "create" });
    expect(leaseWrites()).toBe(1);
    for (let i = 0; i < 5; i++) {
      w.clock.advance(1000);
      await w.runner.wake(web);
    }
    expect(leaseWrites()).toBe(1);
    w.clock.advance(RENEW_EVERY_MS);
    await w.runner.wake(web);
    expect(leaseWrites()).toBe(2);
    expect(w.fake.log.count({ resource: "leases", verb: "get" })).toBe(2);
  });

  it("writes its Lease once per RENEW_EVERY_MS while woken steadily, and once at the start of each burst of work after an idle stretch", async () => {
    const w = world();
    const leaseWrites = () => w.fake.log.count({ resource: "leases", verb: "update" }) + w.fake.log.count({ resource: "leases", verb: "create" });
    /** burst wakes the set once a second for `ms` (each wake passes it) and returns the Lease writes it made. */
    const burst = async (ms: number) => {
      const before = leaseWrites();
      for (let t = 0; t < ms; t += 1000) {
        await w.runner.wake({ ...web, observed: true });
        w.clock.advance(1000);
      }
      return leaseWrites() - before;
    };
    // A minute of work: 60_000 / RENEW_EVERY_MS writes (6 with the 10 s retry period).
    expect(await burst(60_000)).toBe(60_000 / RENEW_EVERY_MS);
    // The latency bench's Worker column: its scenarios (5 s and 11 s of work) alternate with
    // upstream's (16 s, the Worker idle, renewing nothing). Each burst renews first (its last
    // renewal is older than the retry period), an 11 s one once more: 9 writes in 48 s of work,
    // which the bench, dividing by the scenarios' time only, reads as 11 a minute.
    const writes: number[] = [];
    for (const ms of [5_000, 11_000, 5_000, 11_000, 5_000, 11_000]) {
      w.clock.advance(16_000);
      writes.push(await burst(ms));
    }
    expect(writes).toEqual([1, 2, 1, 2, 1, 2]);
  });

  it("passes a woken set before a full pass that spends the budget (a wake never waits for the sweep of a large shard)", async () => {
    const w = world({ maxRequests: 80 });
    // Sets the sweep reaches before web (it goes by namespace, then name).
    for (let i = 0; i < 40; i++) w.fake.seed(setManifest({ name: `s${i}`, replicas: 1, claims: [] }));
    // Both due at once (a wake that met the budget, and the sweep): the alarm runs them.
    const now = w.clock.now().getTime();
    w.stored.schedule = { due: { "default/web": now }, nextFullPassAt: now };
    await w.runner.alarm();
    expect(w.pods()).toContain("web-0");
    // The sweep did not finish within the budget: the rest is due at once, for the alarm.
    expect(w.pods().filter((n) => n?.startsWith("s")).length).toBeLessThan(40);
  });

  it("looks once more, 250 ms later, at a woken set not stored yet (admission precedes the write), then stops", async () => {
    const w = world();
    const late = { namespace: "default", name: "late" };
    await w.runner.wake(late);
    const now = w.clock.now().getTime();
    expect(w.stored.schedule?.due["default/late"]).toBe(now + 250);
    w.fake.seed(setManifest({ name: "late", replicas: 1, claims: [] }));
    w.clock.advance(250);
    await w.runner.alarm();
    expect(w.pods()).toContain("late-0");
    // A set that is really gone: one more look, then nothing more is due for it.
    const gone = { namespace: "default", name: "gone" };
    await w.runner.wake(gone);
    w.clock.advance(250);
    await w.runner.alarm();
    expect(w.stored.schedule?.due["default/gone"]).toBeUndefined();
  });

  it("ignores a wake of a namespace of another shard", async () => {
    const index = shardOf("default", 2) === 0 ? 1 : 0;
    const w = world({ count: 2, index });
    await w.runner.wake(web);
    expect(w.pods()).toEqual([]);
    expect(w.fake.log.total).toBe(0);
  });

  it("leaves what the request budget did not cover due at once, with the alarm set now", async () => {
    // 25 - 20 kept back: the Lease and the lists fit, the set does not.
    const w = world({ maxRequests: 25 });
    await w.runner.wake(web);
    const now = w.clock.now().getTime();
    expect(w.pods()).toEqual([]);
    expect(w.stored.schedule?.due["default/web"]).toBe(now);
    expect(w.stored.alarm).toBe(now);
  });
});

/** The wake of the set's own create, stored before its pass. */
const webCreated = { ...web, write: { resource: "statefulsets" as const, name: "web", operation: "CREATE" as const } };

/** statusWrite returns the wake of the kubelet's status write of pod `name` as admission announces it (the pod's resourceVersion before it). */
function statusWrite(fake: ReturnType<typeof createFakeApiServer>, name: string) {
  const rv = fake.get<Pod>(`/api/v1/namespaces/default/pods/${name}`)!.metadata!.resourceVersion;
  return { ...web, write: { resource: "pods" as const, name, operation: "UPDATE" as const, resourceVersion: rv } };
}

describe("ShardRunner and the writes wakes announce", () => {
  it("a wake whose pass read the write it announced is not looked at again blindly: only when its outcome says (WAITING_RECHECK_MS while it waits)", async () => {
    const w = world();
    await w.runner.wake(webCreated); // web-0 created
    const wake = statusWrite(w.fake, "web-0");
    markReady(w.fake, "web-0"); // stored before the pass reads it
    w.fake.log.clear();
    await w.runner.wake(wake);
    expect(w.pods()).toEqual(["web-0", "web-1"]);
    // The pass after its own writes waits for web-1 (no wake announced anything more): no 50 ms, 250 ms, … looks.
    expect(w.stored.schedule?.due["default/web"]).toBe(w.clock.now().getTime() + WAITING_RECHECK_MS);
    expect(w.fake.log.count({ verb: "list", resource: "statefulsets" })).toBe(2);
  });

  it("a wake whose pass read before its announced write was stored looks again UNSEEN_RECHECK_MS[0] (10 ms) later, and takes the step then", async () => {
    const w = world({ coalesceMs: 20 });
    await w.runner.wake(webCreated);
    const wake = statusWrite(w.fake, "web-0");
    await w.runner.wake(wake); // the kubelet's status write is admitted, not stored yet
    expect(w.pods()).toEqual(["web-0"]);
    expect(w.stored.schedule?.due["default/web"]).toBe(w.clock.now().getTime() + UNSEEN_RECHECK_MS[0]);
    markReady(w.fake, "web-0");
    w.clock.advance(UNSEEN_RECHECK_MS[0]);
    await w.runner.alarm();
    expect(w.pods()).toEqual(["web-0", "web-1"]);
  });

  it("while the announced write is not stored, a recheck reads only the awaited pod (one GET), then passes the set once the write shows", async () => {
    const w = world();
    await w.runner.wake(webCreated);
    await w.runner.wake(statusWrite(w.fake, "web-0")); // admitted, not stored yet: due 10 ms on
    w.fake.log.clear();
    w.clock.advance(UNSEEN_RECHECK_MS[0]);
    await w.runner.alarm();
    expect(w.fake.log.entries.map((e) => `${e.verb} ${e.resource}`)).toEqual(["get pods"]);
    expect(w.stored.schedule?.due["default/web"]).toBe(w.clock.now().getTime() + UNSEEN_RECHECK_MS[1]);
    markReady(w.fake, "web-0");
    w.clock.advance(UNSEEN_RECHECK_MS[1]);
    await w.runner.alarm();
    expect(w.pods()).toEqual(["web-0", "web-1"]);
  });

  it("a wake awaiting only a pod's deletion reads the pod first (one GET) while it is still there, and passes the set once it is gone", async () => {
    const w = world({ count: 1 });
    await w.runner.wake(webCreated); // web-0 created
    const rv = w.fake.get<Pod>("/api/v1/namespaces/default/pods/web-0")!.metadata!.resourceVersion;
    w.fake.log.clear();
    // The kubelet's final deletion, admitted: stored later (a 1.20 apiserver validates a DELETE twice).
    await w.runner.wake({ ...web, write: { resource: "pods", name: "web-0", operation: "DELETE", resourceVersion: rv } });
    expect(w.fake.log.entries.map((e) => `${e.verb} ${e.resource}`)).toEqual(["get pods"]);
    expect(w.stored.schedule?.due["default/web"]).toBe(w.clock.now().getTime() + UNSEEN_RECHECK_MS[0]);
    w.fake.remove("/api/v1/namespaces/default/pods/web-0");
    w.fake.log.clear();
    w.clock.advance(UNSEEN_RECHECK_MS[0]);
    await w.runner.alarm();
    expect(w.fake.log.entries[0]).toMatchObject({ verb: "get", resource: "pods" });
    expect(w.pods()).toEqual(["web-0"]); // created again
    expect(w.fake.get<Pod>("/api/v1/namespaces/default/pods/web-0")!.metadata!.resourceVersion).not.toBe(rv);
  });

  it("a set create announced but not stored yet is looked at again 10 ms later, and its first pod created then", async () => {
    const w = world();
    const late = { namespace: "default", name: "late", write: { resource: "statefulsets" as const, name: "late", operation: "CREATE" as const } };
    await w.runner.wake(late);
    expect(w.stored.schedule?.due["default/late"]).toBe(w.clock.now().getTime() + UNSEEN_RECHECK_MS[0]);
    w.fake.seed(setManifest({ name: "late", replicas: 1, claims: [] }));
    w.clock.advance(UNSEEN_RECHECK_MS[0]);
    await w.runner.alarm();
    expect(w.pods()).toContain("late-0");
  });

  it("a wake naming a set that does not exist, announcing a pod's write, costs one read", async () => {
    const w = world();
    await w.runner.wake(web); // the Lease taken
    w.fake.log.clear();
    await w.runner.wake({ namespace: "default", name: "nope", write: { resource: "pods", name: "nope-0", operation: "CREATE" } });
    expect(w.fake.log.total).toBe(1);
    expect(w.stored.schedule?.due["default/nope"]).toBeUndefined();
  });

  it("a set its last pass found has its namespace read beside it; once found gone, a wake costs one read again", async () => {
    const w = world();
    await w.runner.wake(webCreated); // found: remembered
    w.fake.remove("/apis/apps.ordinal.dev/v1/namespaces/default/statefulsets/web");
    w.fake.log.clear();
    // Each wake announces a write of its own (a blind one on a set already blind would add nothing).
    // (Updates: a wake awaiting only deletions probes them first, shard-runner's "deletion" tests.)
    const podUpdate = (rv: string) => ({ ...web, write: { resource: "pods" as const, name: "web-0", operation: "UPDATE" as const, resourceVersion: rv } });
    await w.runner.wake(podUpdate("1")); // read beside the set: its pods, claims, revisions too
    expect(w.fake.log.count({ verb: "list" })).toBeGreaterThan(1);
    w.fake.log.clear();
    await w.runner.wake(podUpdate("2"));
    expect(w.fake.log.entries.map((e) => `${e.verb} ${e.resource}`)).toEqual(["list statefulsets"]);
  });

  it("a targeted pass of a set that does not pre-warm skips the ImageLists once a pass there read none, until an ImageList wake or a full pass", async () => {
    const w = world();
    // A kubelet's status write, stored: each wake announces a write of its own, which its pass reads.
    const stored = (fake: typeof w.fake, name: string) => {
      const write = statusWrite(fake, name);
      fake.put(fake.get<Pod>(`/api/v1/namespaces/default/pods/${name}`)!);
      return write;
    };
    const imageListLists = () => w.fake.log.count({ verb: "list", resource: "imagelists" });
    await w.runner.wake(webCreated); // reads them: none
    w.fake.log.clear();
    await w.runner.wake(stored(w.fake, "web-0"));
    expect(imageListLists()).toBe(0);
    await w.runner.wake({ namespace: "default", name: "" }); // an ImageList changed
    w.fake.log.clear();
    await w.runner.wake(stored(w.fake, "web-0"));
    expect(imageListLists()).toBe(1);
    w.fake.log.clear();
    await w.runner.wake(stored(w.fake, "web-0"));
    expect(imageListLists()).toBe(0);
    await w.runner.poke(); // the full pass reads them all
    w.fake.log.clear();
    await w.runner.wake(stored(w.fake, "web-0"));
    expect(imageListLists()).toBe(1);
  });
});

/** seedLease stores the cluster's Lease held by `holder`, renewed at `renewTime` by the holder's own clock. */
function seedLease(fake: ReturnType<typeof createFakeApiServer>, holder: string, renewTime: Date): void {
  const micro = `${renewTime.toISOString().slice(0, -1)}000Z`;
  fake.put({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "ordinal-reconciler", namespace: "ordinal-system" }, spec: { holderIdentity: holder, leaseDurationSeconds: 30, renewTime: micro, acquireTime: micro, leaseTransitions: 0 } });
}

describe("ShardRunner's Lease (client-go's leader election, as `ordinal serve`)", () => {
  it.each([
    ["an hour behind ours (a stopped holder, or a slow clock)", -HOUR],
    ["an hour ahead of ours (a fast clock)", HOUR],
  ])("takes another holder's Lease over only once it saw it unrenewed for 30 s on its own clock, whatever its renewTime: %s", async (_name, skew) => {
    const w = world();
    seedLease(w.fake, "ordinal-serve-x", new Date(w.clock.now().getTime() + skew));
    await w.runner.wake(web);
    expect(w.pods()).toEqual([]);
    for (let waited = RENEW_EVERY_MS; waited < 30_000; waited += RENEW_EVERY_MS) {
      w.clock.advance(RENEW_EVERY_MS);
      await w.runner.alarm();
      expect(w.pods()).toEqual([]);
    }
    w.clock.advance(RENEW_EVERY_MS);
    await w.runner.alarm();
    expect(w.pods()).toEqual(["web-0"]);
  });

  it("waits while the other holder renews, and tries again when its retry period came", async () => {
    const w = world();
    seedLease(w.fake, "ordinal-serve-x", w.clock.now());
    await w.runner.wake(web);
    const t0 = w.clock.now().getTime();
    expect(w.stored.schedule?.due["default/web"]).toBe(t0 + RENEW_EVERY_MS);
    for (let i = 0; i < 5; i++) {
      w.clock.advance(RENEW_EVERY_MS);
      seedLease(w.fake, "ordinal-serve-x", w.clock.now()); // renewed
      await w.runner.alarm();
    }
    expect(w.pods()).toEqual([]);
  });

  it("stops writing once its last renewal is older than the renew deadline (a pass that outlives its Lease)", async () => {
    const w = world();
    let slow = true;
    // The revision's create takes 25 s (a stalled apiserver): the Lease may be someone else's after it.
    w.fake.onRequest((r) => {
      if (slow && r.verb === "create" && r.resource === "controllerrevisions") {
        slow = false;
        w.clock.advance(25_000);
      }
    });
    await w.runner.wake(web);
    // The pod is created only after the Lease was renewed again, never on the lapsed renewal.
    const writes = w.fake.log.entries.filter((r) => r.verb !== "get" && r.verb !== "list").map((r) => `${r.verb} ${r.resource}`);
    const afterStall = writes.slice(writes.indexOf("create controllerrevisions") + 1);
    expect(afterStall.indexOf("update leases")).toBeGreaterThanOrEqual(0);
    expect(afterStall.indexOf("update leases")).toBeLessThan(afterStall.indexOf("create pods"));
  });
});

describe("ShardRunner.alarm", () => {
  it("runs the due full pass, then the next one intervalMs later; the alarm is never in the past", async () => {
    const w = world();
    w.stored.schedule = { due: {}, nextFullPassAt: 0 };
    await w.runner.alarm();
    expect(w.pods()).toEqual(["web-0"]);
    const now = w.clock.now().getTime();
    expect(w.stored.schedule?.nextFullPassAt).toBe(now + 60_000);
    expect(w.stored.alarm).toBeGreaterThanOrEqual(now);
  });

  it("with nothing due, only sets the alarm again", async () => {
    const w = world();
    await w.runner.alarm();
    expect(w.fake.log.total).toBe(0);
    expect(w.stored.alarm).toBe(w.stored.schedule?.nextFullPassAt);
  });
});

describe("ShardRunner and the Leases of another shard count", () => {
  it("takes its own shard's Lease, and acts for nothing while a Lease of another count is live (a count being changed), until that one is seen unrenewed for its duration", async () => {
    const w = world({ count: 2, index: shardOf("default", 2) });
    const index = shardOf("default", 2);
    // A reconciler of 4 shards (the old count) renews its Lease.
    const old = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "ordinal-reconciler-1-of-4", namespace: "ordinal-system" } };
    w.fake.seed({ ...old, spec: { holderIdentity: "old", leaseDurationSeconds: 30, renewTime: "2026-11-21T12:00:00.000000Z" } });
    await w.runner.wake(web);
    expect(w.pods()).toEqual([]);
    expect(w.fake.get(`/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases/ordinal-reconciler-${index}-of-2`)).toBeUndefined();
    // Unrenewed for its 30 s (by this shard's own observation): released, and this shard acts.
    w.clock.advance(31_000);
    await w.runner.wake(web);
    expect(w.pods()).toEqual(["web-0"]);
    const mine = w.fake.get<{ spec?: { holderIdentity?: string } }>(`/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases/ordinal-reconciler-${index}-of-2`);
    expect(mine?.spec?.holderIdentity).toBe("ordinal-worker");
    expect(w.fake.get<{ spec?: { holderIdentity?: string } }>("/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases/ordinal-reconciler-1-of-4")?.spec?.holderIdentity).toBeUndefined();
  });

  it("while yielding to another count's Lease, looks at the Leases once per retry period, not on every drain (a wake each)", async () => {
    const w = world({ count: 2, index: shardOf("default", 2) });
    const old = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "ordinal-reconciler-1-of-4", namespace: "ordinal-system" } };
    w.fake.seed({ ...old, spec: { holderIdentity: "old", leaseDurationSeconds: 30, renewTime: "2026-11-21T12:00:00.000000Z" } });
    const leaseLists = () => w.fake.log.count({ verb: "list", resource: "leases" });
    await w.runner.wake(web);
    expect(leaseLists()).toBe(1);
    // Five more wakes within the retry period: no Lease list, and the alarm waits for the next look.
    for (let i = 0; i < 5; i++) {
      w.clock.advance(RENEW_EVERY_MS / 10);
      await w.runner.wake(web);
    }
    expect(leaseLists()).toBe(1);
    expect(w.pods()).toEqual([]);
    expect(w.stored.alarm).toBeGreaterThanOrEqual(Date.parse("2026-11-21T12:00:00Z") + RENEW_EVERY_MS);
    // Once the retry period has passed, it looks again.
    w.clock.advance(RENEW_EVERY_MS);
    await w.runner.wake(web);
    expect(leaseLists()).toBe(2);
  });
});
