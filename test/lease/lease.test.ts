/**
 * The reconciler's Lease (src/lease/lease.ts) against the fake apiserver: who may take it and
 * when (upstream leader election: a lease is live while renewTime + leaseDurationSeconds is after
 * now), races, errors, and what release writes back (the cursor, the other annotations).
 */
import { describe, expect, it } from "vitest";
import type { Lease } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { acquireLease, CURSOR_ANNOTATION, releaseLease, WAKE_ENDPOINT_ANNOTATION, type LeaseOptions } from "../../src/lease/lease.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";

const NS = "ordinal-system";
const PATH = `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/ordinal-reconciler`;
const T0 = Date.parse("2026-11-21T12:00:00.123Z");
const at = (s: number) => new Date(T0 + s * 1000);

function setup() {
  const fake = createFakeApiServer({ namespaces: ["default", NS] });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  const lease = () => fake.get<Lease>(PATH);
  /** put stores the Lease as given (spec and annotations as another holder left them). */
  const put = (spec: Record<string, unknown> | undefined, annotations?: Record<string, string>) =>
    fake.put({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "ordinal-reconciler", namespace: NS, annotations }, ...(spec ? { spec } : {}) });
  return { fake, client, lease, put };
}
const opts = (holder: string, extra: Partial<LeaseOptions> = {}): LeaseOptions => ({ namespace: NS, holder, ...extra });

describe("acquireLease", () => {
  it("writes the holder's wake endpoint on the Lease; a standby reads it; a new holder without one, or a release, removes it", async () => {
    const { client, lease } = setup();
    expect(await acquireLease(client, opts("a", { endpoint: "https://10.0.0.1:8443/internal/wake" }), at(0))).toBe(true);
    expect(lease()?.metadata?.annotations?.[WAKE_ENDPOINT_ANNOTATION]).toBe("https://10.0.0.1:8443/internal/wake");
    const seen: { value?: string } = {};
    expect(await acquireLease(client, opts("b", { holderEndpoint: seen }), at(1))).toBe(false);
    expect(seen.value).toBe("https://10.0.0.1:8443/internal/wake");
    // Taken over after expiry by a holder with no endpoint (the Worker): the old one is not left behind.
    expect(await acquireLease(client, opts("worker"), at(100))).toBe(true);
    expect(lease()?.metadata?.annotations?.[WAKE_ENDPOINT_ANNOTATION]).toBeUndefined();
    expect(await acquireLease(client, opts("worker", { endpoint: "https://10.0.0.3:8443/internal/wake" }), at(101))).toBe(true);
    await releaseLease(client, opts("worker"));
    expect(lease()?.metadata?.annotations?.[WAKE_ENDPOINT_ANNOTATION]).toBeUndefined();
  });

  it("creates the lease with MicroTime renew and acquire times and no transitions", async () => {
    const { client, lease } = setup();
    expect(await acquireLease(client, opts("a"), at(0))).toBe(true);
    expect(lease()?.spec).toMatchObject({
      holderIdentity: "a",
      leaseDurationSeconds: 30,
      renewTime: "2026-11-21T12:00:00.123000Z",
      acquireTime: "2026-11-21T12:00:00.123000Z",
      leaseTransitions: 0,
    });
  });

  it.each<[string, number, boolean]>([
    ["live one second before renewTime + duration", 29.999, false],
    // leaderelection: valid while renewTime + leaseDuration is after now; at equality it expired.
    ["expired at exactly renewTime + duration", 30, true],
    ["expired after", 31, true],
  ])("another holder's lease: %s", async (_, seconds, taken) => {
    const { client, lease } = setup();
    expect(await acquireLease(client, opts("a"), at(0))).toBe(true);
    expect(await acquireLease(client, opts("b"), at(seconds))).toBe(taken);
    expect(lease()?.spec?.holderIdentity).toBe(taken ? "b" : "a");
  });

  it("the holder's own leaseDurationSeconds decides, not the taker's", async () => {
    const { client } = setup();
    expect(await acquireLease(client, opts("a", { durationSeconds: 60 }), at(0))).toBe(true);
    expect(await acquireLease(client, opts("b"), at(45))).toBe(false);
    expect(await acquireLease(client, opts("b"), at(60))).toBe(true);
  });

  it("a lease without a duration lasts the taker's duration", async () => {
    const { client, put } = setup();
    put({ holderIdentity: "a", renewTime: "2026-11-21T12:00:00.123000Z" });
    expect(await acquireLease(client, opts("b", { durationSeconds: 10 }), at(9))).toBe(false);
    expect(await acquireLease(client, opts("b", { durationSeconds: 10 }), at(10))).toBe(true);
  });

  it("renewing keeps acquireTime and transitions; a takeover resets acquireTime and counts one", async () => {
    const { client, lease } = setup();
    await acquireLease(client, opts("a"), at(0));
    expect(await acquireLease(client, opts("a"), at(20))).toBe(true);
    expect(lease()?.spec).toMatchObject({ renewTime: "2026-11-21T12:00:20.123000Z", acquireTime: "2026-11-21T12:00:00.123000Z", leaseTransitions: 0 });
    expect(await acquireLease(client, opts("b"), at(60))).toBe(true);
    expect(lease()?.spec).toMatchObject({ holderIdentity: "b", acquireTime: "2026-11-21T12:01:00.123000Z", leaseTransitions: 1 });
  });

  it("an empty lease (released, no holder) is taken at once", async () => {
    const { client, put } = setup();
    put(undefined);
    expect(await acquireLease(client, opts("b"), at(0))).toBe(true);
  });

  it("reads the cursor annotation (an empty one is no cursor)", async () => {
    const { client, put } = setup();
    const cursor: { value?: string } = { value: "stale" };
    expect(await acquireLease(client, opts("a", { cursor }), at(0))).toBe(true);
    expect(cursor.value).toBeUndefined();
    put({}, { [CURSOR_ANNOTATION]: "default/web" });
    await acquireLease(client, opts("a", { cursor }), at(0));
    expect(cursor.value).toBe("default/web");
    put({}, { [CURSOR_ANNOTATION]: "" });
    await acquireLease(client, opts("a", { cursor }), at(0));
    expect(cursor.value).toBeUndefined();
  });

  it("two takers of an expired lease: the resourceVersion lets exactly one win", async () => {
    const { client, lease } = setup();
    await acquireLease(client, opts("a"), at(0));
    const results = await Promise.all(["b", "c"].map((h) => acquireLease(client, opts(h), at(60))));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(lease()?.spec?.holderIdentity).toBe(results[0] ? "b" : "c");
  });

  it("a conflict on update is a lost race, not an error", async () => {
    const { fake, client } = setup();
    await acquireLease(client, opts("a"), at(0));
    fake.faults.add({ verb: "update", resource: "leases", fault: "conflict", times: 1 });
    expect(await acquireLease(client, opts("a"), at(1))).toBe(false);
  });

  it("other errors are thrown as they are, with no word of a namespace", async () => {
    const { fake, client } = setup();
    fake.faults.add({ verb: "create", resource: "leases", fault: { status: 403, reason: "Forbidden", message: "leases is forbidden" } });
    const err = await acquireLease(client, opts("a"), at(0)).catch((e: unknown) => e);
    expect(String(err)).toMatch(/leases is forbidden/);
    expect(String(err)).not.toMatch(/namespace/);
  });

  it("a missing namespace says what to do and keeps the apiserver's error as the cause", async () => {
    const fake = createFakeApiServer({ namespaces: ["default"] });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    const err = (await acquireLease(client, opts("a"), at(0)).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/^lease namespace "ordinal-system" not found: apply deploy\/namespace.yaml or set LEASE_NAMESPACE \(/);
    expect(String(err.cause)).toMatch(/not found/);
  });
});

describe("releaseLease", () => {
  it("clears the holder, keeps renewTime (the last renewal), writes the cursor and keeps other annotations", async () => {
    const { client, lease, put } = setup();
    put({ holderIdentity: "a", leaseDurationSeconds: 30, renewTime: "2026-11-21T12:00:00.123000Z" }, { keep: "me", [CURSOR_ANNOTATION]: "default/old" });
    await releaseLease(client, opts("a", { cursor: { value: "default/web" } }));
    expect(lease()?.spec?.holderIdentity).toBeUndefined();
    expect(lease()?.spec?.renewTime).toBe("2026-11-21T12:00:00.123000Z");
    expect(lease()?.spec?.leaseDurationSeconds).toBe(30);
    expect(lease()?.metadata?.annotations).toEqual({ keep: "me", [CURSOR_ANNOTATION]: "default/web" });
  });

  it.each<[string, LeaseOptions["cursor"]]>([
    ["no cursor value: the old cursor is removed", {}],
    ["no cursor at all: the old cursor is removed", undefined],
  ])("%s", async (_, cursor) => {
    const { client, lease, put } = setup();
    put({ holderIdentity: "a" }, { [CURSOR_ANNOTATION]: "default/old" });
    await releaseLease(client, opts("a", { cursor }));
    expect(lease()?.metadata?.annotations?.[CURSOR_ANNOTATION]).toBeUndefined();
    expect(lease()?.spec?.holderIdentity).toBeUndefined();
  });

  it("a lease without annotations gets only the cursor", async () => {
    const { client, lease, put } = setup();
    put({ holderIdentity: "a" });
    await releaseLease(client, opts("a", { cursor: { value: "default/web" } }));
    expect(lease()?.metadata?.annotations).toEqual({ [CURSOR_ANNOTATION]: "default/web" });
  });

  it.each<[string, Record<string, unknown> | undefined | null]>([
    ["another holder's lease", { holderIdentity: "b" }],
    ["a lease with no spec", undefined],
    ["no lease at all", null],
  ])("leaves %s alone", async (_, spec) => {
    const { fake, client, lease, put } = setup();
    if (spec !== null) put(spec, { [CURSOR_ANNOTATION]: "default/old" });
    const before = lease();
    await releaseLease(client, opts("a", { cursor: { value: "default/web" } }));
    expect(lease()).toEqual(before);
    expect(fake.log.entries.filter((e) => e.method !== "GET")).toEqual([]);
  });

  it("a conflict (the lease moved on) is not an error; other errors are", async () => {
    const { fake, client, lease, put } = setup();
    put({ holderIdentity: "a" });
    fake.faults.add({ verb: "update", resource: "leases", fault: "conflict", times: 1 });
    await expect(releaseLease(client, opts("a"))).resolves.toBeUndefined();
    expect(lease()?.spec?.holderIdentity).toBe("a");
    fake.faults.add({ verb: "update", resource: "leases", fault: "internal", times: 1 });
    await expect(releaseLease(client, opts("a"))).rejects.toThrow();
  });
});
