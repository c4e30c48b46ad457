// Each shard's Durable Object is its own Lease holder (issue 36): `ordinal-worker-<shard>-<8 hex
// digits>`, made on its first run and kept in its storage. Two shards never share a holder; an
// object restarted on its storage is the same holder and takes its Lease back at once; a second
// deployment of the Worker on the same cluster (another object serving the same shard) respects
// the first one's Lease until it sees it unrenewed for its duration. The objects' apiserver is the
// in-process fake (as in shards.test.ts); the objects' own clock for Lease expiry is
// performance.now, moved forward here (they run in the tests' isolate).
import { abortAllDurableObjects, createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Lease, Pod } from "../../src/api/k8s.ts";
import { shardLeaseName } from "../../src/lease/shard-leases.ts";
import { shardOf } from "../../src/reconciler/pass.ts";
import { createFakeApiServer, type FakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import worker from "../../src/worker/index.ts";
import { setManifest } from "../support/fixtures.ts";
import { bindings, resetShards, SHARDS, stubOf } from "./shard-stubs.ts";

const LEASES = "/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases";
const SET = "/apis/apps.ordinal.dev/v1/namespaces/default/statefulsets/web";
const index = shardOf("default", SHARDS);
/** The object of a second deployment of the Worker (its own storage), sent shard `index`'s messages. */
const staging = () => bindings.SHARDS.get(bindings.SHARDS.idFromName(`staging-shard-${index}`)) as ReturnType<typeof stubOf>;

let fake: FakeApiServer;
/** The User-Agent of each pod create, by namespace. */
let podCreators: Map<string, string>;
/** How far the objects' monotonic clock (performance.now) is moved ahead of the real one, ms. */
let ahead: number;

const podNames = (ns = "default") => fake.list<Pod>(`/api/v1/namespaces/${ns}/pods`).map((p) => p.metadata!.name).sort();
const leaseOf = (shard: number) => fake.get<Lease>(`${LEASES}/${shardLeaseName(shard, SHARDS)}`);
const storedHolder = (stub: ReturnType<typeof stubOf>) => runInDurableObject(stub, (_o, state) => state.storage.get<string>("holder"));
const message = (stub: ReturnType<typeof stubOf>, path: "wake" | "poke") =>
  stub.fetch(`https://shard/${path}`, { method: "POST", body: JSON.stringify({ index, wake: { namespace: "default", name: "web" } }) });

/** scaleTo sets the set's replicas (the user's apply). */
function scaleTo(replicas: number): void {
  const set = fake.get<ReturnType<typeof setManifest>>(SET)!;
  fake.put({ ...set, spec: { ...set.spec, replicas } });
}

beforeEach(() => {
  fake = createFakeApiServer({ namespaces: ["default", "team-a", "team-b", "team-c", "ordinal-system"] });
  podCreators = new Map();
  ahead = 0;
  const realNow = performance.now.bind(performance);
  vi.spyOn(performance, "now").mockImplementation(() => realNow() + ahead);
  const realFetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith("https://apiserver.test/")) return realFetch(input, init);
    const created = /^\/api\/v1\/namespaces\/([^/]+)\/pods$/.exec(new URL(url).pathname);
    if (created && init?.method === "POST") podCreators.set(created[1], new Headers(init.headers).get("user-agent") ?? "");
    return fake.fetch(input, init);
  });
});

afterEach(async () => {
  await runInDurableObject(staging(), async (_o, state) => {
    await state.storage.deleteAlarm();
    await state.storage.deleteAll();
  });
  await resetShards();
  vi.restoreAllMocks();
});

describe("a shard's holder identity", () => {
  it("differs between shards: ordinal-worker-<shard>-<8 hex digits> on its Lease, and `ordinal/<it>` on its writes", async () => {
    const namespaces = new Map<number, string>();
    for (const ns of ["default", "team-a", "team-b", "team-c"]) namespaces.set(shardOf(ns, SHARDS), ns);
    for (const ns of namespaces.values()) await fake.seed(setManifest({ namespace: ns, replicas: 1, claims: [] }));
    const ctx = createExecutionContext();
    await worker.scheduled({ scheduledTime: Date.now(), cron: "* * * * *" }, bindings, ctx);
    await waitOnExecutionContext(ctx);
    const holders = Array.from({ length: SHARDS }, (_, i) => leaseOf(i)?.spec?.holderIdentity);
    holders.forEach((h, i) => expect(h).toMatch(new RegExp(`^ordinal-worker-${i}-[0-9a-f]{8}$`)));
    expect(new Set(holders).size).toBe(SHARDS);
    for (const [shard, ns] of namespaces) {
      expect(podNames(ns)).toEqual(["web-0"]);
      expect(podCreators.get(ns)).toBe(`ordinal/${holders[shard]}`);
      expect(await storedHolder(stubOf(shard))).toBe(holders[shard]);
    }
  });

  it("is kept across a restart: the new instance renews its Lease at once (no transition) and acts in the same wake", async () => {
    await fake.seed(setManifest({ replicas: 1, policy: "Parallel", claims: [] }));
    expect((await message(stubOf(index), "wake")).status).toBe(204);
    expect(podNames()).toEqual(["web-0"]);
    const holder = leaseOf(index)?.spec?.holderIdentity;
    expect(holder).toMatch(new RegExp(`^ordinal-worker-${index}-[0-9a-f]{8}$`));
    const renewed = leaseOf(index)?.metadata?.resourceVersion;
    // Evicted (storage kept), and the set scaled meanwhile: the next wake meets a new instance.
    await abortAllDurableObjects();
    scaleTo(2);
    expect((await message(stubOf(index), "wake")).status).toBe(204);
    expect(podNames()).toEqual(["web-0", "web-1"]);
    expect(leaseOf(index)?.spec?.holderIdentity).toBe(holder);
    expect(leaseOf(index)?.metadata?.resourceVersion).not.toBe(renewed);
    expect(leaseOf(index)?.spec?.leaseTransitions).toBe(0);
    expect(podCreators.get("default")).toBe(`ordinal/${holder}`);
  });

  it("of a second deployment is another: it respects the first one's Lease until it saw it unrenewed for 30 s on its own clock", async () => {
    // The first deployment's shard takes its Lease (a tick over a namespace with nothing to do: no
    // rechecks, so it makes no renewal while the clock is moved), then stops renewing.
    expect((await message(stubOf(index), "poke")).status).toBe(204);
    const first = leaseOf(index)?.spec?.holderIdentity;
    await fake.seed(setManifest({ replicas: 1, claims: [] }));
    expect((await message(staging(), "wake")).status).toBe(204);
    expect(podNames()).toEqual([]);
    ahead = 20_000;
    expect((await message(staging(), "poke")).status).toBe(204);
    expect(podNames()).toEqual([]);
    expect(leaseOf(index)?.spec?.holderIdentity).toBe(first);
    ahead = 31_000;
    expect((await message(staging(), "poke")).status).toBe(204);
    expect(podNames()).toEqual(["web-0"]);
    const second = leaseOf(index)?.spec?.holderIdentity;
    expect(second).toMatch(new RegExp(`^ordinal-worker-${index}-[0-9a-f]{8}$`));
    expect(second).not.toBe(first);
    expect(leaseOf(index)?.spec?.leaseTransitions).toBe(1);
    expect(podCreators.get("default")).toBe(`ordinal/${second}`);
  });
});
