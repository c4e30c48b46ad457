/**
 * Upstream's StatefulSet test matrix as one table: {OrderedReady, Parallel} × whenDeleted
 * {Retain, Delete} × whenScaled {Retain, Delete} × {scale up, scale down, rolling update}, run
 * through reconcile passes against the fake apiserver with a kubelet player. Each case checks
 * upstream's ordering (pods created in ordinal order, each waiting for the one below under
 * OrderedReady; removed from the highest ordinal, one at a time under OrderedReady; updated from
 * the highest ordinal, one at a time, each Ready first) and the PVC outcomes (claims created with
 * their pods, never deleted by the reconciler; scaled-down claims owned by their pod, hence
 * collected, only under whenScaled=Delete; claims owned by the set, hence collected with it, only
 * under whenDeleted=Delete).
 */
import { describe, expect, it } from "vitest";
import type { PersistentVolumeClaim, Pod } from "../../src/api/k8s.ts";
import { getPodRevision, isRunningAndReady, isTerminating } from "../../src/core/pod-state.ts";
import { createKubeClient, type FetchLike } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { setManifest } from "../support/fixtures.ts";

type Policy = "OrderedReady" | "Parallel";
type Retention = "Retain" | "Delete";
type Operation = "scale up" | "scale down" | "rolling update";

const NS = "default";
const PODS = `/api/v1/namespaces/${NS}/pods`;
const CLAIMS = `/api/v1/namespaces/${NS}/persistentvolumeclaims`;
const SET = `/apis/apps.ordinal.dev/v1/namespaces/${NS}/statefulsets/web`;

/** A pod write the reconciler made, with what the cluster looked like just before it. */
interface PodWrite {
  verb: "create" | "delete";
  name: string;
  pass: number;
  /** Pods Running, Ready and not terminating at that moment. */
  ready: string[];
  /** Pods present at that moment (terminating ones included). */
  present: string[];
}

/** world runs the set of the case against the fake apiserver, recording the reconciler's pod writes. */
function world(policy: Policy, whenDeleted: Retention, whenScaled: Retention) {
  let clock = Date.parse("2026-11-21T12:00:00Z");
  const now = () => new Date(clock);
  const fake = createFakeApiServer({ now, namespaces: [NS, "ordinal-system"] });
  const writes: PodWrite[] = [];
  const claimDeletes: string[] = [];
  let pass = 0;
  const pods = () => fake.list<Pod>(PODS);
  const recording: FetchLike = async (input, init) => {
    const method = init?.method ?? "GET";
    const path = new URL(String(input)).pathname;
    const before = pods();
    const res = await fake.fetch(input, init);
    if (res.ok) {
      const write = (verb: PodWrite["verb"], name: string) =>
        writes.push({ verb, name, pass, ready: before.filter((p) => isRunningAndReady(p) && !isTerminating(p)).map((p) => p.metadata!.name!).sort(), present: before.map((p) => p.metadata!.name!).sort() });
      if (method === "POST" && path === PODS) write("create", (JSON.parse(String(init?.body)) as Pod).metadata!.name!);
      if (method === "DELETE" && path.startsWith(`${PODS}/`)) write("delete", decodeURIComponent(path.split("/").pop()!));
      if (method === "DELETE" && path.startsWith(CLAIMS)) claimDeletes.push(path);
    }
    return res;
  };
  const reconciler = createKubeClient({ baseUrl: "https://fake", fetch: recording, sleep: async () => {}, maxAttempts: 1 });
  const observer = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  const kubelet = new KubeletPlayer(observer, { namespace: NS, now });
  const manifest = (replicas: number, image: string) =>
    setManifest({ replicas, policy, image, claims: ["data"], spec: { persistentVolumeClaimRetentionPolicy: { whenDeleted, whenScaled } } });

  /** step is one reconcile pass, then one kubelet step, then a second of time. */
  const step = async () => {
    pass++;
    await reconcilePass(reconciler, { now, log: silentLogger });
    await kubelet.step();
    clock += 1000;
  };
  /** converge steps until `replicas` pods run Ready at the set's update revision with status to match (at most 60 steps). */
  const converge = async (replicas: number) => {
    for (let i = 0; i < 60; i++) {
      await step();
      const set = fake.get<{ metadata: { generation: number }; status?: { updateRevision?: string; readyReplicas?: number; observedGeneration?: number } }>(SET)!;
      const ps = pods();
      const done =
        ps.length === replicas &&
        ps.every((p) => isRunningAndReady(p) && !isTerminating(p) && getPodRevision(p) === set.status?.updateRevision) &&
        set.status?.readyReplicas === replicas &&
        set.status.observedGeneration === set.metadata.generation;
      if (done) return;
    }
    throw new Error(`did not converge to ${replicas} replicas: ${pods().map((p) => `${p.metadata!.name}:${isRunningAndReady(p) ? "ready" : "unready"}`).join(", ")}`);
  };
  const claims = () => fake.list<PersistentVolumeClaim>(CLAIMS);
  const claimNames = () => claims().map((c) => c.metadata!.name!).sort();
  return { fake, observer, manifest, converge, step, writes, claimDeletes, claims, claimNames, pods, kubelet };
}

const names = (ws: PodWrite[]) => ws.map((w) => w.name);
const ownerKinds = (c: PersistentVolumeClaim) => (c.metadata?.ownerReferences ?? []).map((r) => r.kind).sort();

const cases: [Policy, Retention, Retention, Operation][] = [];
for (const policy of ["OrderedReady", "Parallel"] as const)
  for (const whenDeleted of ["Retain", "Delete"] as const)
    for (const whenScaled of ["Retain", "Delete"] as const)
      for (const op of ["scale up", "scale down", "rolling update"] as const) cases.push([policy, whenDeleted, whenScaled, op]);

describe("upstream's matrix: pod management policy × PVC retention × operation", () => {
  it.each(cases)("%s, whenDeleted=%s, whenScaled=%s: %s", async (policy, whenDeleted, whenScaled, op) => {
    const w = world(policy, whenDeleted, whenScaled);
    const start = op === "scale up" ? 1 : 3;
    const end = op === "scale down" ? 1 : 3;
    await w.observer.create(R.statefulSets, NS, w.manifest(start, "img:1"));
    await w.converge(start);
    const claimUids = new Map(w.claims().map((c) => [c.metadata!.name!, c.metadata!.uid!]));
    w.writes.length = 0;

    if (op === "rolling update") await w.observer.patch(R.statefulSets, NS, "web", { spec: { template: w.manifest(end, "img:2").spec.template } }, "merge");
    else await w.observer.patch(R.statefulSets, NS, "web", { spec: { replicas: end } }, "merge");
    await w.converge(end);

    const creates = w.writes.filter((x) => x.verb === "create");
    const deletes = w.writes.filter((x) => x.verb === "delete");
    if (op === "scale up") {
      expect(names(creates)).toEqual(["web-1", "web-2"]);
      expect(deletes).toEqual([]);
      if (policy === "OrderedReady") {
        // Each pod waits for every lower ordinal to be Running and Ready.
        expect(creates[0].ready).toEqual(["web-0"]);
        expect(creates[1].ready).toEqual(["web-0", "web-1"]);
      } else {
        // Parallel: both in the same pass, without waiting.
        expect(creates[0].pass).toBe(creates[1].pass);
        expect(creates[1].ready).not.toContain("web-1");
      }
    } else if (op === "scale down") {
      expect(names(deletes)).toEqual(["web-2", "web-1"]);
      expect(creates).toEqual([]);
      if (policy === "OrderedReady") {
        // web-1 goes only once web-2 is gone entirely.
        expect(deletes[1].present).toEqual(["web-0", "web-1"]);
      } else {
        expect(deletes[0].pass).toBe(deletes[1].pass);
      }
    } else {
      // A rolling update goes from the highest ordinal down, one pod at a time, for both policies:
      // each is deleted while every other replica is Ready, and recreated before the next goes.
      expect(names(deletes)).toEqual(["web-2", "web-1", "web-0"]);
      expect(names(creates)).toEqual(["web-2", "web-1", "web-0"]);
      for (const d of deletes) expect(d.ready).toEqual(["web-0", "web-1", "web-2"]);
      const order = w.writes.map((x) => `${x.verb} ${x.name}`);
      expect(order).toEqual(["delete web-2", "create web-2", "delete web-1", "create web-1", "delete web-0", "create web-0"]);
    }

    // PVCs: the reconciler never deletes one; the garbage collector does, only as the policy says.
    expect(w.claimDeletes).toEqual([]);
    const wantClaims = op === "scale down" && whenScaled === "Delete" ? ["data-web-0"] : ["data-web-0", "data-web-1", "data-web-2"];
    expect(w.claimNames()).toEqual(wantClaims);
    for (const c of w.claims()) {
      const name = c.metadata!.name!;
      // A claim is never recreated: the one from before the operation is still there.
      if (claimUids.has(name)) expect(c.metadata!.uid).toBe(claimUids.get(name));
      const condemned = op === "scale down" && name !== "data-web-0";
      expect(ownerKinds(c), name).toEqual(whenDeleted === "Delete" && !(condemned && whenScaled === "Delete") ? ["StatefulSet"] : []);
    }

    // Deleting the set: its claims go with it only under whenDeleted=Delete.
    const kept = w.claimNames();
    await w.observer.delete(R.statefulSets, NS, "web");
    for (let i = 0; i < 10 && w.pods().length > 0; i++) await w.kubelet.step();
    w.fake.gc();
    expect(w.pods()).toEqual([]);
    expect(w.claimNames()).toEqual(whenDeleted === "Delete" ? [] : kept);
  });
});
