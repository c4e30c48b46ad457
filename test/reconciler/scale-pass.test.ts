/**
 * The scalable pass (issue 8): managed objects only, orphans found by name, status always
 * written with the counts observed, OrderedReady/Parallel failure rules, events aggregated like
 * kube's correlator, the cursor on the Lease, and two namespace shards.
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { StatefulSetSchema } from "../../src/api/statefulset.ts";
import { newRevision } from "../../src/core/revisions.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { EventRecorder } from "../../src/reconciler/events.ts";
import { CURSOR_ANNOTATION } from "../../src/lease/lease.ts";
import { silentLogger } from "../../src/log/log.ts";
import { runReconcile } from "../../src/schedule/loop.ts";
import { reconcilePass, shardOf } from "../../src/reconciler/pass.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

const setObj = (name: string, replicas = 2, policy: "Parallel" | "OrderedReady" = "Parallel", namespace = "default") =>
  setManifest({ name, namespace, replicas, policy, claims: ["data"] });

function setup(namespaces = ["default", "ordinal-system"]) {
  const fake = createFakeApiServer({ namespaces });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  const pods = (ns = "default") => fake.list<Pod>(`/api/v1/namespaces/${ns}/pods`).map((p) => p.metadata?.name ?? "").sort();
  const status = (name: string, ns = "default") => fake.get<{ status?: Record<string, unknown> }>(`/apis/apps.ordinal.dev/v1/namespaces/${ns}/statefulsets/${name}`)?.status;
  const events = () => fake.list<{ reason: string; message: string; count: number }>("/api/v1/namespaces/default/events");
  return { fake, client, pods, status, events };
}
const now = () => new Date("2026-11-21T12:00:00Z");
const pod = (name: string, labels: Record<string, string>) => ({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default", labels }, spec: { containers: [{ name: "c", image: "x" }] } });

describe("reconcilePass reads only what Ordinal manages", () => {
  it("lists pods, claims and revisions with Ordinal's label selector (and its own ImageLists); unrelated pods are never read", async () => {
    const { fake, client } = setup();
    await fake.seed(setObj("web"));
    for (let i = 0; i < 5; i++) await fake.seed(pod(`other-${i}`, { app: "other" }));
    await reconcilePass(client, { now, log: silentLogger });
    fake.log.clear();
    const r = await reconcilePass(client, { now, log: silentLogger });
    const lists = fake.log.entries.filter((e) => e.verb === "list");
    expect(lists.map((e) => e.resource).sort()).toEqual(["controllerrevisions", "imagelists", "persistentvolumeclaims", "pods", "statefulsets"]);
    for (const e of lists.filter((l) => l.resource !== "statefulsets" && l.resource !== "imagelists")) expect(e.query).toContain("labelSelector=ordinal.dev%2Fstatefulset");
    expect(r.sets[0].actions.filter((a) => a.startsWith("createPod"))).toEqual([]);
  });

  it("adopts an orphan without Ordinal's label named <set>-<n>: its create meets AlreadyExists, it is read by name and adopted", async () => {
    const { fake, client } = setup();
    await fake.seed(setObj("web", 0));
    await reconcilePass(client, { now, log: silentLogger }); // the set now owns its revision
    const [rev] = fake.list<{ metadata: { name: string } }>("/apis/apps/v1/namespaces/default/controllerrevisions");
    // At the set's revision, so the pass adopts it and has nothing to update.
    await fake.seed({ ...pod("web-0", { app: "web", "controller-revision-hash": rev.metadata.name }), spec: StatefulSetSchema.parse(setObj("web")).spec.template.spec });
    await client.patch(R.statefulSets, "default", "web", { spec: { replicas: 1 } }, "merge");
    fake.log.clear();
    const r = await reconcilePass(client, { now, log: silentLogger });
    expect(fake.log.entries.filter((e) => e.verb === "list" && e.resource === "pods").map((e) => e.query)).toEqual([expect.stringContaining("ordinal.dev%2Fstatefulset")]);
    expect(r.sets[0].actions).toContain("adoptPod web-0");
    const p = fake.get<Pod>("/api/v1/namespaces/default/pods/web-0");
    expect(p?.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "StatefulSet", name: "web", controller: true });
  });

  it("a new set (migrated from apps/v1) adopts the orphaned revision its pods are labelled with, keeping the pods", async () => {
    const { fake, client } = setup();
    const raw = setObj("web", 2);
    await fake.seed(raw);
    const set = StatefulSetSchema.parse(fake.get("/apis/apps.ordinal.dev/v1/namespaces/default/statefulsets/web"));
    // What the apps/v1 controller left after `kubectl delete --cascade=orphan`: no owner, no Ordinal label.
    const rev = newRevision(set, 1, 0);
    await fake.seed({ ...rev, metadata: { name: "web-5f8c7d9b6", namespace: "default", labels: { app: "web", "controller.kubernetes.io/hash": "5f8c7d9b6" } } });
    for (const i of [0, 1]) {
      await fake.seed({ ...pod(`web-${i}`, { app: "web", "controller-revision-hash": "web-5f8c7d9b6" }), spec: set.spec.template.spec });
    }
    const uids = fake.list<Pod>("/api/v1/namespaces/default/pods").map((p) => p.metadata?.uid);
    const r = await reconcilePass(client, { now, log: silentLogger });
    expect(r.sets[0].actions.filter((a) => /^(createPod|deletePod|createRevision)/.test(a))).toEqual([]);
    expect(r.sets[0].actions).toEqual(expect.arrayContaining(["adoptPod web-0", "adoptPod web-1"]));
    expect(fake.list<Pod>("/api/v1/namespaces/default/pods").map((p) => p.metadata?.uid)).toEqual(uids);
    const revs = fake.list<{ metadata: { name: string; ownerReferences?: unknown[] } }>("/apis/apps/v1/namespaces/default/controllerrevisions");
    expect(revs.map((x) => x.metadata.name)).toEqual(["web-5f8c7d9b6"]);
    expect(revs[0].metadata.ownerReferences?.[0]).toMatchObject({ kind: "StatefulSet", name: "web", controller: true });
  });

  it("a hinted pass (one set) reads only that set's objects", async () => {
    const { fake, client } = setup();
    await fake.seed(setObj("a", 1));
    await fake.seed(setObj("b", 1));
    await reconcilePass(client, { now, log: silentLogger });
    fake.log.clear();
    const r = await reconcilePass(client, { now, log: silentLogger, namespace: "default", setName: "a" });
    expect(r.sets.map((s) => s.set)).toEqual(["default/a"]);
    const podList = fake.log.entries.find((e) => e.verb === "list" && e.resource === "pods");
    expect(podList?.query).toContain("labelSelector=ordinal.dev%2Fstatefulset%3Da");
  });
});

describe("status and failures", () => {
  it("writes the status even when a write fails, with the counts observed", async () => {
    const { fake, client, status } = setup();
    await fake.seed(setObj("web", 3));
    fake.faults.add({ method: "POST", resource: "pods", when: (r) => JSON.stringify(r).includes("web-0"), fault: "internal", times: 1 });
    const r = await reconcilePass(client, { now, log: silentLogger });
    expect(r.sets[0].error).toBeTruthy();
    // Slow start: web-0 alone in the first batch failed, so web-1 and web-2 wait for the next pass.
    expect(r.sets[0].actions.filter((a) => a.startsWith("createPod"))).toEqual([]);
    expect(r.sets[0].actions).toContain("updateStatus");
    expect(status("web")).toMatchObject({ replicas: 0, observedGeneration: 1 });
  });

  it("Parallel goes on in slow-start batches of 1, 2, 4, … and stops after a batch with a failure", async () => {
    const { fake, client, status } = setup();
    await fake.seed(setObj("web", 7));
    fake.faults.add({ method: "POST", resource: "pods", when: (r) => JSON.stringify(r).includes("web-2"), fault: "internal", times: 1 });
    const r = await reconcilePass(client, { now, log: silentLogger });
    // Batches: [web-0], [web-1, web-2] (web-2 fails), then stop: web-3… wait for the next pass.
    expect(r.sets[0].actions.filter((a) => a.startsWith("createPod")).sort()).toEqual(["createPod web-0", "createPod web-1"]);
    expect(status("web")).toMatchObject({ replicas: 2 });
  });

  it("OrderedReady stops at the first failure and still writes the status", async () => {
    const { fake, client, status } = setup();
    await fake.seed(setObj("web", 2, "OrderedReady"));
    fake.faults.add({ method: "POST", resource: "persistentvolumeclaims", fault: "internal", times: 1 });
    const r = await reconcilePass(client, { now, log: silentLogger });
    expect(r.sets[0].actions.some((a) => a.startsWith("createPod"))).toBe(false);
    expect(status("web")).toMatchObject({ replicas: 0 });
  });
});

describe("events", () => {
  it("the claims and pods a Parallel pass creates: nine Events, then one combining the rest (kube's correlator waits for 10)", async () => {
    const { fake, client, events } = setup();
    await fake.seed(setObj("web", 6));
    await reconcilePass(client, { now, log: silentLogger });
    const created = events().filter((e) => e.reason === "SuccessfulCreate");
    expect(created).toHaveLength(10);
    const combined = created.filter((e) => e.message.startsWith("(combined from similar events): "));
    expect(combined).toHaveLength(1);
    expect(combined[0].count).toBe(3);
    expect(combined[0].message).toMatch(/^\(combined from similar events\): create Pod web-5/);
  });

  it("a set failing every pass writes one Event and counts the repeats, not an event per pass", async () => {
    const { fake, client, events } = setup();
    await fake.seed(setObj("web", 1));
    fake.faults.add({ method: "POST", resource: "pods", fault: { status: 403, reason: "Forbidden", message: "quota exceeded" }, times: 100 });
    const recorder = new EventRecorder(client, silentLogger);
    let t = now().getTime();
    for (let i = 0; i < 5; i++) {
      await reconcilePass(client, { now: () => new Date(t), log: silentLogger, events: recorder });
      t += 1000;
    }
    const writes = () => fake.log.entries.filter((e) => e.resource === "events" && e.verb !== "get").length;
    const before = writes();
    await recorder.close(new Date(t));
    const failed = events().filter((e) => e.reason === "FailedCreate");
    expect(failed).toHaveLength(1);
    expect(failed[0].count).toBe(5);
    expect(writes() - before).toBe(1);
  });

  it("an invocation's passes share one correlator: repeats are patched onto one Event, written at most once a minute", async () => {
    const { fake, client, events } = setup();
    await fake.seed(setObj("web", 1));
    fake.faults.add({ method: "POST", resource: "pods", fault: { status: 403, reason: "Forbidden", message: "quota exceeded" }, times: 1000 });
    const recorder = new EventRecorder(client, silentLogger);
    let t = now().getTime();
    for (let i = 0; i < 130; i++) {
      await reconcilePass(client, { now: () => new Date(t), log: silentLogger, events: recorder });
      t += 1000;
    }
    // 130 passes over 130 s: the claim's SuccessfulCreate and the FailedCreate, then one patch per minute.
    const writes = fake.log.entries.filter((e) => e.resource === "events").map((e) => e.verb);
    expect(writes).toEqual(["create", "create", "patch", "patch"]);
    await recorder.close(new Date(t));
    expect(events().filter((e) => e.reason === "FailedCreate").map((e) => e.count)).toEqual([130]);
  });
});

describe("beyond one invocation", () => {
  it("a pass stopped by its budget leaves a cursor on the Lease and the next invocation resumes there", async () => {
    const { fake, client, pods } = setup();
    for (const n of ["a", "b", "c", "d"]) await fake.seed(setObj(n, 1));
    // Room for the lease, the lists and about two sets.
    const first = await runReconcile(client, { log: silentLogger, holder: "w", leaseNamespace: "ordinal-system", budgetMs: 60_000, maxPasses: 1, maxRequests: client.requestCount + 33, now });
    const done1 = first.passes[0].sets.map((s) => s.set);
    expect(done1.length).toBeGreaterThan(0);
    expect(done1.length).toBeLessThan(4);
    const lease = fake.get<{ metadata: { annotations?: Record<string, string> } }>("/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases/ordinal-reconciler");
    expect(lease?.metadata.annotations?.[CURSOR_ANNOTATION]).toBe(done1[done1.length - 1]);
    const second = await runReconcile(client, { log: silentLogger, holder: "w", leaseNamespace: "ordinal-system", budgetMs: 60_000, maxPasses: 1, now });
    const done2 = second.passes[0].sets.map((s) => s.set);
    expect(done2[0]).toBe(["default/a", "default/b", "default/c", "default/d"][done1.length]);
    expect(pods()).toEqual(["a-0", "b-0", "c-0", "d-0"]);
  });

  it("two shards (two Workers, one Lease each) split the namespaces and together do every set once", async () => {
    const namespaces = ["n1", "n2", "n3", "n4", "n5", "n6"];
    const { fake, client, pods } = setup([...namespaces, "ordinal-system"]);
    for (const ns of namespaces) await fake.seed(setObj("web", 1, "Parallel", ns));
    const shards = [0, 1].map((index) => ({ index, count: 2 }));
    const runs = await Promise.all(shards.map((shard) => runReconcile(client, { log: silentLogger, holder: `w${shard.index}`, leaseNamespace: "ordinal-system", budgetMs: 60_000, maxPasses: 1, shard, now })));
    const seen = runs.map((r) => r.passes[0].sets.map((s) => s.set.split("/")[0]));
    expect(runs.every((r) => r.acquired)).toBe(true);
    expect([...seen[0], ...seen[1]].sort()).toEqual(namespaces);
    for (const [i, list] of seen.entries()) for (const ns of list) expect(shardOf(ns, 2)).toBe(i);
    for (const ns of namespaces) expect(pods(ns)).toEqual(["web-0"]);
  });
});
