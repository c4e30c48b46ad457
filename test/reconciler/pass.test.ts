/**
 * The pass and the invocation loop against the fake apiserver: failures mid-pass stop that set
 * (and only that set) and the next pass finishes the job; each kind is listed once per pass;
 * events are recorded like upstream; the Lease keeps two invocations from acting at once.
 */
import { describe, expect, it } from "vitest";
import type { Lease, Pod } from "../../src/api/k8s.ts";
import { SET_NAME_LABEL } from "../../src/objects/constants.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { acquireLease, releaseLease } from "../../src/lease/lease.ts";
import { silentLogger } from "../../src/log/log.ts";
import { runReconcile } from "../../src/schedule/loop.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

const setObj = (name: string, replicas = 2) => setManifest({ name, replicas, policy: "Parallel", claims: ["data"] });

function setup() {
  const fake = createFakeApiServer({ namespaces: ["default", "ordinal-system"] });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  const pods = () => fake.list<Pod>("/api/v1/namespaces/default/pods").map((p) => p.metadata!.name!).sort();
  const claims = () => fake.list<{ metadata: { name: string } }>("/api/v1/namespaces/default/persistentvolumeclaims").map((c) => c.metadata.name).sort();
  return { fake, client, pods, claims };
}
const now = () => new Date("2026-11-21T12:00:00Z");

describe("reconcilePass", () => {
  it("lists each kind once per pass, whatever the number of sets", async () => {
    const { fake, client } = setup();
    for (const n of ["a", "b", "c"]) await fake.seed(setObj(n));
    fake.log.clear();
    await reconcilePass(client, { now, log: silentLogger });
    // A set that owns no revision yet also lists its pods and revisions by its own selector, once.
    const first = fake.log.counts();
    expect([first["list pods"], first["list controllerrevisions"], first["list persistentvolumeclaims"]]).toEqual([4, 4, 1]);
    fake.log.clear();
    await reconcilePass(client, { now, log: silentLogger });
    const counts = fake.log.counts();
    expect(counts["list pods"]).toBe(1);
    expect(counts["list persistentvolumeclaims"]).toBe(1);
    expect(counts["list controllerrevisions"]).toBe(1);
    expect(counts["list statefulsets"]).toBe(1);
  });

  it.each([
    ["a claim create", { method: "POST", resource: "persistentvolumeclaims" }],
    ["a pod create", { method: "POST", resource: "pods" }],
    ["the revision create", { method: "POST", resource: "controllerrevisions" }],
    ["the status write", { method: "PATCH", resource: "statefulsets", subresource: "status" }],
  ])("stops the set at the first failure (%s) and the next pass finishes the job", async (_, match) => {
    const { fake, client, pods, claims } = setup();
    await fake.seed(setObj("web"));
    fake.faults.add({ ...match, fault: "internal", times: 1 });
    const first = await reconcilePass(client, { now, log: silentLogger });
    expect(first.sets[0].error).toMatch(/injected|Internal|500/i);
    expect(first.pending).toBe(true);
    await reconcilePass(client, { now, log: silentLogger });
    await reconcilePass(client, { now, log: silentLogger });
    expect(pods()).toEqual(["web-0", "web-1"]);
    expect(claims()).toEqual(["data-web-0", "data-web-1"]);
    const set = fake.get<{ status?: { replicas?: number } }>("/apis/apps.ordinal.dev/v1/namespaces/default/statefulsets/web");
    expect(set?.status?.replicas).toBe(2);
  });

  it("a targeted pass says which writes its wakes announced it did not read yet", async () => {
    const { fake, client } = setup();
    await fake.seed(setObj("web"));
    await reconcilePass(client, { now, log: silentLogger });
    const rv = (name: string) => fake.get<Pod>(`/api/v1/namespaces/default/pods/${name}`)!.metadata!.resourceVersion!;
    const stored = { resource: "pods", name: "web-0", operation: "UPDATE", resourceVersion: "1" } as const;
    const pending = { resource: "pods", name: "web-1", operation: "UPDATE", resourceVersion: rv("web-1") } as const;
    const created = { resource: "pods", name: "web-0", operation: "CREATE" } as const;
    const notYetCreated = { resource: "persistentvolumeclaims", name: "data-web-9", operation: "CREATE" } as const;
    const deleted = { resource: "pods", name: "web-7", operation: "DELETE", resourceVersion: "3" } as const;
    const r = await reconcilePass(client, { now, log: silentLogger, namespace: "default", setName: "web", hints: { awaiting: [stored, pending, created, notYetCreated, deleted] } });
    expect(r.unseenWrites).toEqual([pending, notYetCreated]);
    const gone = await reconcilePass(client, { now, log: silentLogger, namespace: "default", setName: "db", hints: { awaiting: [{ resource: "statefulsets", name: "db", operation: "CREATE" }, pending] } });
    // The set is not stored yet (one read): its create is unseen; its pods are not looked at.
    expect(gone.unseenWrites).toEqual([{ resource: "statefulsets", name: "db", operation: "CREATE" }]);
    expect((await reconcilePass(client, { now, log: silentLogger, namespace: "default", setName: "web" })).unseenWrites).toBeUndefined();
  });

  it("a failure of one set does not stop the others", async () => {
    const { fake, client, pods } = setup();
    await fake.seed(setObj("a", 1));
    await fake.seed(setObj("b", 1));
    // Matched on the pod's name: "a-0" alone also occurs in random uids (…a-0b3d…), which made this flaky.
    fake.faults.add({ method: "POST", resource: "pods", when: (r) => (JSON.parse(r.body) as Pod).metadata?.name === "a-0", fault: "internal", times: 5 });
    const r = await reconcilePass(client, { now, log: silentLogger });
    expect(r.sets.find((s) => s.set === "default/a")?.error).toBeTruthy();
    expect(pods()).toEqual(["b-0"]);
  });

  it("a set sees only its own namespace's pods, claims and revisions", async () => {
    const fake = createFakeApiServer({ namespaces: ["a", "b", "ordinal-system"] });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    const setA = fake.seed<{ metadata: { uid: string } }>(setManifest({ namespace: "a", replicas: 1, policy: "Parallel", claims: ["data"] }));
    const setB = fake.seed<{ metadata: { uid: string } }>(setManifest({ namespace: "b", replicas: 1, policy: "Parallel", claims: ["data"] }));
    // An orphan web-0 of a set "web" (orphaned by a deletion, Ordinal's label kept) in b only: b's
    // set adopts it, a's set must create its own.
    const labels = { app: "web", [SET_NAME_LABEL]: "web" };
    fake.seed({ apiVersion: "v1", kind: "Pod", metadata: { name: "web-0", namespace: "b", labels }, spec: { containers: [{ name: "c", image: "img:1" }] } });
    const first = await reconcilePass(client, { now, log: silentLogger });
    const actionsOf = (id: string) => first.sets.find((x) => x.set === id);
    expect(actionsOf("a/web")).toMatchObject({ error: undefined });
    expect(actionsOf("a/web")?.actions.filter((x) => /Pod|Claim/.test(x))).toEqual(["createClaim data-web-0", "createPod web-0"]);
    expect(actionsOf("b/web")?.actions).toContain("adoptPod web-0");
    expect(actionsOf("b/web")?.actions).not.toContain("createPod web-0");
    for (let i = 0; i < 2; i++) await reconcilePass(client, { now, log: silentLogger });
    const owner = (ns: string) => fake.get<Pod>(`/api/v1/namespaces/${ns}/pods/web-0`)?.metadata?.ownerReferences?.[0]?.uid;
    expect(owner("a")).toBe(setA.metadata.uid);
    expect(owner("b")).toBe(setB.metadata.uid);
    for (const ns of ["a", "b"]) {
      expect(fake.list<Pod>(`/api/v1/namespaces/${ns}/persistentvolumeclaims`).map((c) => c.metadata?.name)).toEqual(["data-web-0"]);
      expect(fake.list(`/apis/apps/v1/namespaces/${ns}/controllerrevisions`)).toHaveLength(1);
    }
  });

  it("records upstream's events, FailedCreate included", async () => {
    const { fake, client } = setup();
    await fake.seed(setObj("web", 1));
    fake.faults.add({ method: "POST", resource: "pods", fault: { status: 403, reason: "Forbidden", message: "quota exceeded" }, times: 1 });
    await reconcilePass(client, { now, log: silentLogger });
    await reconcilePass(client, { now, log: silentLogger });
    const events = fake.list<{ reason: string; message: string; type: string }>("/api/v1/namespaces/default/events");
    const reasons = events.map((e) => e.reason);
    expect(reasons).toContain("FailedCreate");
    expect(reasons).toContain("SuccessfulCreate");
    expect(events.find((e) => e.reason === "FailedCreate")?.message).toMatch(/^create Pod web-0 in StatefulSet web failed error: /);
    expect(events.find((e) => e.reason === "SuccessfulCreate" && e.message.startsWith("create Pod"))?.message).toBe("create Pod web-0 in StatefulSet web successful");
  });
});

describe("leases and invocations", () => {
  it("two holders never hold the lease at once; an expired lease is taken over", async () => {
    const { client } = setup();
    const t0 = new Date("2026-11-21T12:00:00Z");
    expect(await acquireLease(client, { namespace: "ordinal-system", holder: "a" }, t0)).toBe(true);
    expect(await acquireLease(client, { namespace: "ordinal-system", holder: "b" }, new Date(t0.getTime() + 10_000))).toBe(false);
    expect(await acquireLease(client, { namespace: "ordinal-system", holder: "a" }, new Date(t0.getTime() + 20_000))).toBe(true);
    expect(await acquireLease(client, { namespace: "ordinal-system", holder: "b" }, new Date(t0.getTime() + 51_000))).toBe(true);
    expect(await acquireLease(client, { namespace: "ordinal-system", holder: "a" }, new Date(t0.getTime() + 52_000))).toBe(false);
  });

  it("a holder that lost the lease leaves the new holder's lease alone on release", async () => {
    const { client } = setup();
    const t0 = new Date("2026-11-21T12:00:00Z");
    const at = (s: number) => new Date(t0.getTime() + s * 1000);
    expect(await acquireLease(client, { namespace: "ordinal-system", holder: "a" }, t0)).toBe(true);
    expect(await acquireLease(client, { namespace: "ordinal-system", holder: "b" }, at(31))).toBe(true);
    await releaseLease(client, { namespace: "ordinal-system", holder: "a" });
    const lease = await client.get<Lease>(R.leases, "ordinal-system", "ordinal-reconciler");
    expect(lease?.spec?.holderIdentity).toBe("b");
    expect(await acquireLease(client, { namespace: "ordinal-system", holder: "c" }, at(32))).toBe(false);
  });

  it("an invocation stops acting once another holder has taken its lease", async () => {
    const { fake, client } = setup();
    await fake.seed(setManifest({ replicas: 3, policy: "OrderedReady" }));
    let t = Date.parse("2026-11-21T12:00:00Z");
    const clock = () => new Date(t);
    // web-0 exists and nobody plays the kubelet: every pass from now on waits for it (pending, no
    // pod writes), so the invocation sleeps between passes.
    await reconcilePass(client, { now: clock, log: silentLogger });
    let takenOver = false;
    let passesAfterTakeover = 0;
    // While it sleeps its lease expires and another invocation takes it over.
    const sleep = async () => {
      t += 31_000;
      takenOver = await acquireLease(client, { namespace: "ordinal-system", holder: "other" }, clock());
    };
    const r = await runReconcile(client, {
      log: silentLogger,
      holder: "me",
      leaseNamespace: "ordinal-system",
      budgetMs: 3_600_000,
      idleMs: 1,
      maxPasses: 5,
      now: clock,
      sleep,
      beforePass: async () => void (takenOver && passesAfterTakeover++),
    });
    expect(r.acquired).toBe(true);
    expect(r.passes.every((p) => p.pending)).toBe(true);
    expect(takenOver).toBe(true);
    expect(passesAfterTakeover).toBe(0);
    const lease = await client.get<Lease>(R.leases, "ordinal-system", "ordinal-reconciler");
    expect(lease?.spec?.holderIdentity).toBe("other");
  });

  it("racing acquisitions: exactly one wins", async () => {
    const { client } = setup();
    const results = await Promise.all(["a", "b", "c", "d"].map((h) => acquireLease(client, { namespace: "ordinal-system", holder: h }, now())));
    expect(results.filter(Boolean).length).toBe(1);
  });

  it("an invocation skips when another holds the lease, and keeps passing while work is pending", async () => {
    const { fake, client, pods } = setup();
    await fake.seed({ ...setObj("web", 3), spec: { ...setObj("web", 3).spec, podManagementPolicy: "OrderedReady" } });
    expect(await acquireLease(client, { namespace: "ordinal-system", holder: "other" }, new Date())).toBe(true);
    const skipped = await runReconcile(client, { log: silentLogger, holder: "me", leaseNamespace: "ordinal-system", budgetMs: 1000 });
    expect(skipped.acquired).toBe(false);
    expect(pods()).toEqual([]);
    const fresh = setup();
    await fresh.fake.seed(setObj("web", 3));
    const r = await runReconcile(fresh.client, { log: silentLogger, holder: "me", leaseNamespace: "ordinal-system", budgetMs: 5_000, idleMs: 1, maxPasses: 3 });
    expect(r.acquired).toBe(true);
    expect(r.passes.length).toBeGreaterThan(1);
    expect(fresh.pods()).toEqual(["web-0", "web-1", "web-2"]);
  });

  it("stops before the request budget", async () => {
    const { fake, client } = setup();
    await fake.seed(setObj("web", 3));
    const r = await runReconcile(client, { log: silentLogger, holder: "me", leaseNamespace: "ordinal-system", budgetMs: 60_000, idleMs: 1, maxRequests: 45 });
    expect(r.passes.length).toBe(1);
    expect(client.requestCount).toBeLessThanOrEqual(45);
  });
});

describe("lease namespace", () => {
  it("a missing lease namespace is a clear error", async () => {
    const fake = createFakeApiServer({ namespaces: ["default"] });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} });
    await expect(acquireLease(client, { namespace: "ordinal-system", holder: "a" }, now())).rejects.toThrow(/lease namespace "ordinal-system" not found: apply deploy\/namespace.yaml/);
  });
});
