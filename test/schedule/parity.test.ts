/**
 * Parity of the two shells of the schedule model (issue 32): one table of scenarios run through
 * Node's scheduler (ReconcileScheduler: timers, the pass lock) and the Worker's shard runner
 * (ShardRunner: storage, the alarm) on fake time, each over its own fake apiserver. Each scenario's
 * timeline (when each set was passed or probed, in ms from its start) must be the same in both.
 * The intended differences are named parameters, set equal here and tested on their own:
 * - waitingRecheckMs (schedule/tables.ts): Node 1 s, the Worker 10 s (schedule-model.test.ts);
 * - Node's watch cache (observed wakes, covered webhook wakes; scheduler-cache.test.ts): a Worker
 *   cannot keep a watch, so both run without one here;
 * - Lease renewals: Node's elector renews on its own timer, the Worker's on its drains, beside the
 *   pass while it acts (both once per retry period, neither before a pass: shard-runner.test.ts,
 *   shard-runner-renewal.test.ts, elector.test.ts); not passes, so not in the timeline.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger } from "../../src/log/log.ts";
import type { Wake } from "../../src/objects/wake.ts";
import { shardOf } from "../../src/reconciler/pass.ts";
import { ReconcileScheduler } from "../../src/schedule/scheduler.ts";
import { ShardRunner } from "../../src/schedule/shard-runner.ts";
import type { ScheduleSnapshot } from "../../src/schedule/model.ts";
import { WORKER_WAITING_RECHECK_MS } from "../../src/schedule/tables.ts";
import { createFakeApiServer, type FakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

const HOUR = 3_600_000;
/** How long each scenario runs (fake ms): past the waiting set's look. */
const RUN_MS = WORKER_WAITING_RECHECK_MS + 500;
const SHARDS = { index: 0, count: 2 };
/** A namespace of shard 0 and one of shard 1 (of 2). */
const MINE = ["default", "a", "b", "c", "d", "e"].find((n) => shardOf(n, 2) === 0)!;
const OTHER = ["default", "a", "b", "c", "d", "e"].find((n) => shardOf(n, 2) === 1)!;

interface Shell {
  wake(w: Wake): void;
  stop(): Promise<void>;
}

interface World {
  fake: FakeApiServer;
  wake(w: Wake): void;
  /** The pod's resourceVersion now (what a wake announcing its update carries). */
  rv(pod: string): string;
  ready(pod: string): void;
}

/** What a scenario does at which ms from its start. */
type Script = [number, (w: World) => void][];

const podWrite = (w: World, pod: string) => ({ resource: "pods" as const, name: pod, operation: "UPDATE" as const, resourceVersion: w.rv(pod) });
const setCreate = { resource: "statefulsets" as const, name: "web", operation: "CREATE" as const };
const web = { namespace: MINE, name: "web" };
const seedWeb = (w: World, replicas = 2) => w.fake.seed(setManifest({ namespace: MINE, replicas }));

/** The timeline both shells must show, `<ms> pass|probe <namespace>/<name>` (MINE is "default"). */
type Timeline = string[];

const SCENARIOS: [string, Script, Timeline][] = [
  ["a set created", [[0, (w) => (seedWeb(w), w.wake({ ...web, write: setCreate }))]], ["15 pass default/web", "15 pass default/web", "10015 pass default/web"]],
  [
    "a pod Ready",
    [
      [0, (w) => (seedWeb(w), w.wake({ ...web, write: setCreate }))],
      [100, (w) => {
        const write = podWrite(w, "web-0");
        w.ready("web-0");
        w.wake({ ...web, write });
      }],
    ],
    ["15 pass default/web", "15 pass default/web", "115 pass default/web", "115 pass default/web", "10115 pass default/web"],
  ],
  [
    "a write not yet seen (stored 35 ms after its wake)",
    [
      [0, (w) => (seedWeb(w), w.wake({ ...web, write: setCreate }))],
      [100, (w) => w.wake({ ...web, write: podWrite(w, "web-0") })],
      [135, (w) => w.ready("web-0")],
    ],
    ["15 pass default/web", "15 pass default/web", "115 pass default/web", "125 probe default/web-0", "145 probe default/web-0", "145 pass default/web", "145 pass default/web", "10145 pass default/web"],
  ],
  [
    "a pod's deletion (stored 30 ms after its wake): its look reads the pod first",
    [
      [0, (w) => (seedWeb(w), w.wake({ ...web, write: setCreate }))],
      [100, (w) => w.wake({ ...web, write: { ...podWrite(w, "web-0"), operation: "DELETE" } })],
      [130, (w) => w.fake.remove(`/api/v1/namespaces/${MINE}/pods/web-0`)],
    ],
    ["15 pass default/web", "15 pass default/web", "115 probe default/web-0", "125 probe default/web-0", "145 probe default/web-0", "145 pass default/web", "145 pass default/web", "10145 pass default/web"],
  ],
  [
    "a burst of wakes (40 announcing no write, one a ms): one pass, then the blind rechecks",
    [
      [0, (w) => (seedWeb(w, 1), w.wake({ ...web, write: setCreate }))],
      ...Array.from({ length: 40 }, (_, i): [number, (w: World) => void] => [100 + i, (w) => w.wake(web)]),
    ],
    ["15 pass default/web", "15 pass default/web", "125 pass default/web", "175 pass default/web", "425 pass default/web", "1425 pass default/web", "4425 pass default/web"],
  ],
  [
    "a wake for a set of another shard",
    [[0, (w) => (w.fake.seed(setManifest({ namespace: OTHER, replicas: 1 })), w.wake({ namespace: OTHER, name: "web", write: setCreate }))]],
    [],
  ],
  [
    "a pass that fails (the set's read answers 500 once)",
    [
      [0, (w) => {
        seedWeb(w);
        let failed = false;
        w.fake.onRequest((r) => {
          if (!failed && r.resource === "statefulsets" && r.method === "GET") {
            failed = true;
            throw new Error("injected 500");
          }
        });
        w.wake({ ...web, write: setCreate });
      }],
    ],
    ["15 pass default/web", "10015 pass default/web", "10015 pass default/web"],
  ],
];

/** newWorld returns a fake apiserver (shard 0's and shard 1's namespaces) with a client, and records each targeted pass and probe at its ms from `t0()`. */
function newWorld(t0: () => number) {
  const fake = createFakeApiServer({ namespaces: [MINE, OTHER, "ordinal-system"] });
  const timeline: string[] = [];
  const client = createKubeClient({
    baseUrl: "https://fake",
    sleep: async () => {},
    maxAttempts: 1,
    fetch: async (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      const path = decodeURIComponent(url.pathname + url.search);
      const pass = /namespaces\/([^/]+)\/statefulsets\?fieldSelector=metadata\.name=([^&]+)/.exec(path);
      const probe = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/?]+)$/.exec(path);
      if ((init?.method ?? "GET") === "GET" && pass) timeline.push(`${Date.now() - t0()} pass ${pass[1]}/${pass[2]}`);
      if ((init?.method ?? "GET") === "GET" && probe) timeline.push(`${Date.now() - t0()} probe ${probe[1]}/${probe[2]}`);
      return fake.fetch(input, init);
    },
  });
  const world = (shell: Shell): World => ({
    fake,
    wake: (w) => shell.wake(w),
    rv: (pod) => fake.get<Pod>(`/api/v1/namespaces/${MINE}/pods/${pod}`)!.metadata!.resourceVersion!,
    ready: (pod) => {
      const p = fake.get<Pod>(`/api/v1/namespaces/${MINE}/pods/${pod}`)!;
      fake.put({ ...p, status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }, { type: "InPlaceUpdateReady", status: "True" }] } });
    },
  });
  return { fake, client, timeline, world };
}

/** nodeShell returns Node's scheduler of shard 0 (its first full pass done), waiting sets looked at after the Worker's waitingRecheckMs. */
async function nodeShell(client: ReturnType<typeof createKubeClient>): Promise<Shell> {
  const s = new ReconcileScheduler(client, { log: silentLogger, holder: "node", leaseNamespace: "ordinal-system", intervalMs: HOUR, budgetMs: HOUR, idleMs: WORKER_WAITING_RECHECK_MS, shard: SHARDS });
  s.start();
  await vi.advanceTimersByTimeAsync(1_000);
  expect(s.acts()).toBe(true);
  return { wake: (w) => s.wake(w), stop: () => s.stop() };
}

/** workerShell returns the Worker's runner of shard 0 over a memory store whose alarm is a (fake) timer. */
async function workerShell(client: ReturnType<typeof createKubeClient>): Promise<Shell> {
  let stored: ScheduleSnapshot | undefined = { due: {}, nextFullPassAt: Date.now() + HOUR };
  let alarm: ReturnType<typeof setTimeout> | undefined;
  const runner: ShardRunner = new ShardRunner({
    client,
    log: silentLogger,
    shard: SHARDS,
    leaseNamespace: "ordinal-system",
    holder: "worker",
    intervalMs: HOUR,
    budgetMs: HOUR,
    maxRequests: 1_000,
    store: {
      load: async () => stored,
      save: async (s) => void (stored = s),
      setAlarm: async (at) => {
        clearTimeout(alarm);
        alarm = setTimeout(() => void runner.alarm(), Math.max(0, at - Date.now()));
      },
    },
    clock: () => Date.now(),
  });
  await vi.advanceTimersByTimeAsync(1_000);
  return { wake: (w) => void runner.wake(w), stop: async () => clearTimeout(alarm) };
}

/** run plays `script` through a shell made by `make` and returns its timeline. */
async function run(make: (client: ReturnType<typeof createKubeClient>) => Promise<Shell>, script: Script): Promise<string[]> {
  let t0 = 0;
  const w = newWorld(() => t0);
  const shell = await make(w.client);
  t0 = Date.now();
  const world = w.world(shell);
  let at = 0;
  for (const [ms, step] of [...script].sort((a, b) => a[0] - b[0])) {
    await vi.advanceTimersByTimeAsync(ms - at);
    at = ms;
    step(world);
  }
  await vi.advanceTimersByTimeAsync(RUN_MS - at);
  await shell.stop();
  return w.timeline;
}

afterEach(() => void vi.useRealTimers());

describe("the schedule model's two shells", () => {
  it.each(SCENARIOS)("%s: the same passes at the same moments", async (_name, script, timeline) => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"], now: Date.parse("2026-12-04T12:00:00Z") });
    const node = await run(nodeShell, script);
    const worker = await run(workerShell, script);
    expect({ node, worker }).toEqual({ node: timeline, worker: timeline });
  });
});
