/**
 * executePlan (src/reconciler/executor.ts) on the fake apiserver, one action kind at a time: the
 * request it makes (verb, resource, subresource, name), what it writes, the events it records
 * (upstream's reasons and messages), and what a failure does (the Failed<Verb> event, the first
 * error, AlreadyExists handling, the hash-collision bump). Then the order of execution: prelude
 * first and stopping the set, pod units (a pod's claims and the pod), OrderedReady stopping at
 * the first failure, Parallel slow-start batches, revision deletion and the status last.
 */
import { describe, expect, it, vi } from "vitest";
import type { ImageList } from "../../src/api/imagelist.ts";
import type { ControllerRevision, OwnerReference, PersistentVolumeClaim, Pod } from "../../src/api/k8s.ts";
import { StatefulSetSchema, type StatefulSet } from "../../src/api/statefulset.ts";
import type { Action } from "../../src/core/actions.ts";
import { plan, type Plan } from "../../src/core/planner.ts";
import { ApiError } from "../../src/kube/client.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger, type Logger } from "../../src/log/log.ts";
import { EventRecorder } from "../../src/reconciler/events.ts";
import { describe as describeAction, executePlan, type Execution } from "../../src/reconciler/executor.ts";
import { MAX_WRITE_BATCH } from "../../src/reconciler/write-slice.ts";
import { INPLACE_STATE_ANNOTATION } from "../../src/objects/constants.ts";
import { identityMismatchMessage, reconcilerOnly } from "../../src/objects/reconciler-identity.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import type { Fault } from "../../src/sim/faults/faults.ts";
import type { RequestInfo } from "../../src/sim/faults/request-info.ts";
import { NOW, newClaim, newPod, revisionOf, setManifest } from "../support/fixtures.ts";

const NS = "/api/v1/namespaces/default";
const REVS = "/apis/apps/v1/namespaces/default/controllerrevisions";
const SETS = "/apis/apps.ordinal.dev/v1/namespaces/default/statefulsets";
const LISTS = "/apis/apps.ordinal.dev/v1/namespaces/default/imagelists";

interface Recorded {
  type: string;
  reason: string;
  message: string;
}

/** setup returns a fake apiserver holding the set web (status as given) and its pods and claims. */
function setup(o: { status?: Record<string, unknown>; pods?: number; claims?: number; policy?: "Parallel" } = {}) {
  const fake = createFakeApiServer({ namespaces: ["default"] });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  fake.seed(setManifest({ replicas: 4, claims: ["www"], ...(o.policy ? { policy: o.policy } : {}) }));
  if (o.status) fake.put({ ...fake.get(`${SETS}/web`), status: o.status });
  const set: StatefulSet = StatefulSetSchema.parse(fake.get(`${SETS}/web`));
  for (let i = 0; i < (o.pods ?? 0); i++) {
    const p = newPod(set, i, "web-1");
    delete p.metadata!.uid;
    delete p.metadata!.resourceVersion;
    fake.seed(p);
  }
  for (let i = 0; i < (o.claims ?? 0); i++) {
    const c = newClaim(set, i, "www");
    delete c.metadata!.uid;
    fake.seed({ ...c, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } });
  }
  const recorded: Recorded[] = [];
  const events = { record: (_s: StatefulSet, type: string, reason: string, message: string) => void recorded.push({ type, reason, message }) } as unknown as EventRecorder;
  const logged: Record<string, unknown>[] = [];
  const errors: Record<string, unknown>[] = [];
  const log: Logger = { info: (msg, f) => void logged.push({ msg, ...f }), warn: (msg, f) => void logged.push({ msg, ...f, level: "warn" }), error: (msg, f) => void errors.push({ msg, ...f }) };
  const basis = plan({ set, pods: [], claims: [], revisions: [], now: NOW }).basis;
  /** exec runs the actions as one plan; `done` leaves the status write out. */
  const exec = async (actions: Action[], monotonic = true, sliceSpent?: () => boolean): Promise<Execution> => {
    fake.log.clear();
    requests.length = 0;
    const p: Plan = { actions, status: { replicas: 0 }, waiting: false, basis, monotonic };
    const ex = await executePlan(client, set, p, log, events, sliceSpent);
    // The status write (computed after the writes) is asserted on its own below.
    return { ...ex, done: ex.done.filter((a) => a.type !== "updateStatus") };
  };
  const requests: string[] = [];
  const nameOf = (r: RequestInfo) => r.name || ((r.body ? JSON.parse(r.body) : {}) as { metadata?: { name?: string } }).metadata?.name || "";
  fake.onRequest((r) => {
    if (r.method !== "GET") requests.push(`${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ""} ${nameOf(r)}`);
  });
  /**
   * writes lists the write requests made but status writes and the gate opened right after a
   * create (asserted on their own): "verb resource[/sub] name".
   */
  const writes = () => {
    const created = new Set<string>();
    return requests.filter((w) => {
      if (w.startsWith("create pods ")) created.add(w.slice("create pods ".length));
      const gate = w.startsWith("patch pods/status ") && created.delete(w.slice("patch pods/status ".length));
      return !gate && !w.includes("statefulsets/status");
    });
  };
  const fail = (name: string, fault: Fault = "internal") => fake.faults.add({ fault, when: (r) => r.method !== "GET" && nameOf(r) === name });
  const uid = (path: string) => fake.get<{ metadata: { uid: string } }>(path)!.metadata.uid;
  return { fake, set, exec, writes, recorded, logged, errors, fail, uid };
}

const owner = (set: StatefulSet): OwnerReference[] => [
  { apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet", name: "web", uid: set.metadata.uid!, controller: true, blockOwnerDeletion: true },
];

describe("executePlan: one action of each kind", () => {
  it("createRevision creates the ControllerRevision", async () => {
    const { fake, set, exec, writes } = setup();
    const rev = revisionOf(set, 1);
    delete rev.metadata!.uid;
    const ex = await exec([{ type: "createRevision", revision: rev }]);
    expect(writes()).toEqual([`create controllerrevisions ${rev.metadata!.name}`]);
    expect(fake.get<ControllerRevision>(`${REVS}/${rev.metadata!.name}`)!.revision).toBe(1);
    expect(ex.done.map((a) => a.type)).toEqual(["createRevision"]);
    expect(ex.error).toBeUndefined();
  });

  /** collidingRevision is a revision of another template under the name of `rev` (a hash collision). */
  const collidingRevision = (set: StatefulSet, rev: ControllerRevision): ControllerRevision => {
    const other = revisionOf(StatefulSetSchema.parse({ ...set, spec: { ...set.spec, template: { ...set.spec.template, spec: { containers: [{ name: "c", image: "other:1" }] } } } }), 1);
    delete other.metadata!.uid;
    return { ...other, metadata: { ...other.metadata, name: rev.metadata!.name } };
  };

  it("createRevision meeting AlreadyExists of a revision that differs bumps status.collisionCount and stops the set", async () => {
    const { fake, set, exec, writes, recorded, logged } = setup({ status: { collisionCount: 2, replicas: 0 } });
    const rev = revisionOf(set, 1);
    delete rev.metadata!.uid;
    fake.seed(collidingRevision(set, rev));
    const ex = await exec([{ type: "createRevision", revision: rev }, { type: "createPod", pod: newPod(set, 0, "x"), reason: "create" }]);
    expect(writes()).toEqual([`create controllerrevisions ${rev.metadata!.name}`]);
    expect(fake.log.entries.map((e) => `${e.verb} ${e.resource}/${e.subresource}`)).toEqual(["create controllerrevisions/", "get controllerrevisions/", "patch statefulsets/status"]);
    expect(fake.get<StatefulSet>(`${SETS}/web`)!.status).toMatchObject({ collisionCount: 3 });
    expect(ex.error).toBeInstanceOf(ApiError);
    expect((ex.error as ApiError).code).toBe(409);
    expect(ex.done).toEqual([]);
    expect(recorded).toEqual([]);
    expect(logged).toEqual([{ msg: "action failed", set: "default/web", action: `createRevision ${rev.metadata!.name}`, error: ex.error!.message, level: "warn" }]);
  });

  it("createRevision meeting AlreadyExists of an equal revision is done, collisionCount untouched (upstream bumps only when it differs)", async () => {
    const { fake, set, exec } = setup({ status: { collisionCount: 2, replicas: 0 } });
    const rev = revisionOf(set, 1);
    delete rev.metadata!.uid;
    fake.seed(rev);
    const web0 = newPod(set, 0, rev.metadata!.name!);
    delete web0.metadata!.uid;
    delete web0.metadata!.resourceVersion;
    const ex = await exec([{ type: "createRevision", revision: rev }, { type: "createPod", pod: web0, reason: "create" }]);
    expect(fake.log.entries.map((e) => `${e.verb} ${e.resource}/${e.subresource}`).slice(0, 3)).toEqual(["create controllerrevisions/", "get controllerrevisions/", "create pods/"]);
    expect(fake.get<StatefulSet>(`${SETS}/web`)!.status).toMatchObject({ collisionCount: 2 });
    expect(ex.error).toBeUndefined();
    expect(ex.done.map((a) => a.type)).toEqual(["createRevision", "createPod"]);
  });

  it("createRevision starts collisionCount at 1 when the status has none", async () => {
    const { fake, set, exec } = setup();
    const rev = revisionOf(set, 1);
    delete rev.metadata!.uid;
    fake.seed(collidingRevision(set, rev));
    await exec([{ type: "createRevision", revision: rev }]);
    expect(fake.get<StatefulSet>(`${SETS}/web`)!.status?.collisionCount).toBe(1);
  });

  it("createRevision failing otherwise does not touch collisionCount", async () => {
    const { fake, set, exec, writes, fail } = setup({ status: { collisionCount: 2, replicas: 0 } });
    const rev = revisionOf(set, 1);
    fail(rev.metadata!.name!);
    const ex = await exec([{ type: "createRevision", revision: rev }]);
    expect(writes()).toEqual([`create controllerrevisions ${rev.metadata!.name}`]);
    expect(fake.get<StatefulSet>(`${SETS}/web`)!.status).toMatchObject({ collisionCount: 2 });
    expect((ex.error as ApiError).code).toBe(500);
  });

  it("updateRevisionNumber patches the revision number", async () => {
    const { fake, set, exec, writes } = setup();
    const rev = revisionOf(set, 1);
    delete rev.metadata!.uid;
    fake.seed(rev);
    const name = rev.metadata!.name!;
    const ex = await exec([{ type: "updateRevisionNumber", name, revision: 7 }]);
    expect(writes()).toEqual([`patch controllerrevisions ${name}`]);
    expect(fake.get<ControllerRevision>(`${REVS}/${name}`)!.revision).toBe(7);
    expect(ex.done).toHaveLength(1);
  });

  it("deleteRevision deletes with the uid as precondition, and without one when none is given", async () => {
    const { fake, set, exec, writes, uid } = setup();
    const [a, b] = [revisionOf(set, 1), revisionOf(set, 2)];
    for (const r of [a, b]) {
      delete r.metadata!.uid;
      r.metadata!.name = `${r.metadata!.name}-${r.revision}`;
      fake.seed(r);
    }
    const [na, nb] = [a.metadata!.name!, b.metadata!.name!];
    const ex = await exec([{ type: "deleteRevision", name: na, uid: "not-its-uid" }, { type: "deleteRevision", name: nb }]);
    expect(writes()).toEqual([`delete controllerrevisions ${na}`, `delete controllerrevisions ${nb}`]);
    expect(fake.get(`${REVS}/${na}`)).toBeDefined();
    expect(fake.get(`${REVS}/${nb}`)).toBeUndefined();
    expect((ex.error as ApiError).code).toBe(409);
    expect(ex.done.map((d) => d.type)).toEqual(["deleteRevision"]);
    const good = uid(`${REVS}/${na}`);
    await exec([{ type: "deleteRevision", name: na, uid: good }]);
    expect(fake.get(`${REVS}/${na}`)).toBeUndefined();
  });

  it("expandClaim carries the claim's uid as precondition: a claim deleted and made again since the plan read it is not grown (issue 34)", async () => {
    const { fake, exec, recorded, uid } = setup({ claims: 1 });
    const path = `${NS}/persistentvolumeclaims/www-web-0`;
    const storage = () => fake.get<PersistentVolumeClaim>(path)!.spec!.resources!.requests!.storage;
    // Bound, of a class that allows expansion: a claim the apiserver lets grow.
    fake.seed({ apiVersion: "storage.k8s.io/v1", kind: "StorageClass", metadata: { name: "grows" }, provisioner: "x.io/p", allowVolumeExpansion: true });
    const read = fake.get<PersistentVolumeClaim>(path)!;
    fake.put({ ...read, spec: { ...read.spec, storageClassName: "grows" }, status: { phase: "Bound", capacity: { storage: "1Gi" } } });
    const ex = await exec([{ type: "expandClaim", name: "www-web-0", uid: "the-claim-read-before", storage: "2Gi", template: "www", pod: "web-0" }]);
    expect((ex.error as ApiError).code).toBe(409);
    expect(storage()).toBe("1Gi");
    expect(recorded.map((r) => r.reason)).toEqual(["FailedResize"]);
    await exec([{ type: "expandClaim", name: "www-web-0", uid: uid(path), storage: "2Gi", template: "www", pod: "web-0" }]);
    expect(storage()).toBe("2Gi");
  });

  it("adoptPod, releasePod, adoptRevision and releaseRevision patch ownerReferences with the uid", async () => {
    const { fake, set, exec, writes, uid } = setup({ pods: 2 });
    const rev = revisionOf(set, 1);
    delete rev.metadata!.uid;
    fake.seed(rev);
    const rn = rev.metadata!.name!;
    const refs = owner(set);
    fake.put({ ...fake.get(`${NS}/pods/web-1`), metadata: { ...fake.get<Pod>(`${NS}/pods/web-1`)!.metadata, ownerReferences: refs } });
    const ex = await exec([
      { type: "adoptPod", name: "web-0", uid: uid(`${NS}/pods/web-0`), ownerReferences: refs },
      { type: "releasePod", name: "web-1", uid: uid(`${NS}/pods/web-1`), ownerReferences: [] },
      { type: "adoptRevision", name: rn, uid: uid(`${REVS}/${rn}`), ownerReferences: refs },
    ]);
    expect(writes()).toEqual(["patch pods web-0", "patch pods web-1", `patch controllerrevisions ${rn}`]);
    expect(fake.get<Pod>(`${NS}/pods/web-0`)!.metadata!.ownerReferences).toEqual(refs);
    expect(fake.get<Pod>(`${NS}/pods/web-1`)!.metadata!.ownerReferences ?? []).toEqual([]);
    expect(fake.get<ControllerRevision>(`${REVS}/${rn}`)!.metadata!.ownerReferences).toEqual(refs);
    expect(ex.error).toBeUndefined();
    await exec([{ type: "releaseRevision", name: rn, uid: uid(`${REVS}/${rn}`), ownerReferences: [] }]);
    expect(fake.get<ControllerRevision>(`${REVS}/${rn}`)!.metadata!.ownerReferences ?? []).toEqual([]);
    // The uid is a precondition: a pod replaced under the same name is not adopted.
    const stale = await exec([{ type: "adoptPod", name: "web-1", uid: "stale", ownerReferences: refs }]);
    expect((stale.error as ApiError).code).toBe(409);
    expect(fake.get<Pod>(`${NS}/pods/web-1`)!.metadata!.ownerReferences ?? []).toEqual([]);
  });

  it("createClaim creates the claim and records SuccessfulCreate; AlreadyExists is success without an event", async () => {
    const { fake, set, exec, writes, recorded } = setup({ claims: 1 });
    const claim = (i: number): PersistentVolumeClaim => {
      const c = newClaim(set, i);
      delete c.metadata!.uid;
      return { ...c, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } };
    };
    const ex = await exec([
      { type: "createClaim", claim: claim(0), pod: "web-0" },
      { type: "createClaim", claim: claim(1), pod: "web-1" },
    ]);
    expect(writes()).toEqual(["create persistentvolumeclaims www-web-0", "create persistentvolumeclaims www-web-1"]);
    expect(fake.get(`${NS}/persistentvolumeclaims/www-web-1`)).toBeDefined();
    expect(recorded).toEqual([{ type: "Normal", reason: "SuccessfulCreate", message: "create Claim www-web-1 Pod web-1 in StatefulSet web success" }]);
    expect(ex.error).toBeUndefined();
    expect(ex.done).toHaveLength(2);
    expect(ex.unseenPods).toEqual([]);
  });

  it("createClaim failing records FailedCreate with the error", async () => {
    const { set, exec, recorded, fail } = setup();
    fail("www-web-0");
    const c = newClaim(set, 0);
    const ex = await exec([{ type: "createClaim", claim: { ...c, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }, pod: "web-0" }]);
    expect(recorded).toEqual([{ type: "Warning", reason: "FailedCreate", message: `create Claim www-web-0 for Pod web-0 in StatefulSet web failed error: ${ex.error!.message}` }]);
    expect(ex.done).toEqual([]);
  });

  it("setClaimOwners patches the claim's ownerReferences; a failure records FailedUpdate about the claim", async () => {
    const { fake, set, exec, writes, recorded, uid, fail } = setup({ claims: 2 });
    const refs = owner(set);
    const ex = await exec([{ type: "setClaimOwners", name: "www-web-0", uid: uid(`${NS}/persistentvolumeclaims/www-web-0`), ownerReferences: refs, pod: "web-0" }]);
    expect(writes()).toEqual(["patch persistentvolumeclaims www-web-0"]);
    expect(fake.get<PersistentVolumeClaim>(`${NS}/persistentvolumeclaims/www-web-0`)!.metadata!.ownerReferences).toEqual(refs);
    expect(recorded).toEqual([]);
    expect(ex.done).toHaveLength(1);
    fail("www-web-1");
    const bad = await exec([{ type: "setClaimOwners", name: "www-web-1", uid: "u", ownerReferences: refs, pod: "web-1" }]);
    expect(recorded).toEqual([{ type: "Warning", reason: "FailedUpdate", message: `update Claim www-web-1 in StatefulSet web failed error: ${bad.error!.message}` }]);
  });

  it("createPod creates the pod and records SuccessfulCreate; AlreadyExists reports the pod unseen", async () => {
    const { fake, set, exec, writes, recorded } = setup({ pods: 1 });
    const pod = (i: number) => {
      const p = newPod(set, i, "web-1");
      delete p.metadata!.uid;
      delete p.metadata!.resourceVersion;
      return p;
    };
    const ex = await exec([{ type: "createPod", pod: pod(1), reason: "create" }]);
    expect(writes()).toEqual(["create pods web-1"]);
    expect(fake.get(`${NS}/pods/web-1`)).toBeDefined();
    expect(recorded).toEqual([{ type: "Normal", reason: "SuccessfulCreate", message: "create Pod web-1 in StatefulSet web successful" }]);
    expect(ex.unseenPods).toEqual([]);
    recorded.length = 0;
    const again = await exec([{ type: "createPod", pod: pod(0), reason: "create" }]);
    expect(again.unseenPods).toEqual(["web-0"]);
    expect((again.error as ApiError).code).toBe(409);
    expect(recorded).toEqual([{ type: "Warning", reason: "FailedCreate", message: `create Pod web-0 in StatefulSet web failed error: ${again.error!.message}` }]);
  });

  it("createPod opens the new pod's InPlaceUpdateReady gate at once (the create's uid as precondition), so the kubelet's first status can say Ready", async () => {
    const { fake, set, exec } = setup();
    const p = newPod(set, 0, "web-1");
    delete p.metadata!.uid;
    delete p.metadata!.resourceVersion;
    const ex = await exec([{ type: "createPod", pod: p, reason: "create" }]);
    expect(fake.log.entries.map((e) => `${e.verb} ${e.resource}${e.subresource ? `/${e.subresource}` : ""}`).slice(0, 2)).toEqual(["create pods", "patch pods/status"]);
    const stored = fake.get<Pod>(`${NS}/pods/web-0`)!;
    expect(stored.status?.conditions?.find((c) => c.type === "InPlaceUpdateReady")).toMatchObject({ status: "True", lastTransitionTime: stored.metadata!.creationTimestamp });
    expect(ex.done.map(describeAction)).toEqual(["createPod web-0"]);
  });

  it("createPod whose pod is bound before its gate is written (a scheduler or kubelet that fast) still opens the gate at once, keeping the binding's PodScheduled", async () => {
    const { fake, set } = setup();
    // The binding lands between the create's answer and the gate's write.
    const bindAfterCreate = async (input: string | URL | Request, init?: RequestInit) => {
      const res = await fake.fetch(input, init);
      if (init?.method === "POST" && String(input).endsWith("/namespaces/default/pods")) {
        const target = { apiVersion: "v1", kind: "Node", name: "node-a" };
        await fake.fetch(`https://fake${NS}/pods/web-0/binding`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ apiVersion: "v1", kind: "Binding", metadata: { name: "web-0" }, target }) });
      }
      return res;
    };
    const client = createKubeClient({ baseUrl: "https://fake", fetch: bindAfterCreate, sleep: async () => {}, maxAttempts: 1 });
    const p = newPod(set, 0, "web-1");
    delete p.metadata!.uid;
    delete p.metadata!.resourceVersion;
    const basis = plan({ set, pods: [], claims: [], revisions: [], now: NOW }).basis;
    const events = { record: () => {} } as unknown as EventRecorder;
    const ex = await executePlan(client, set, { actions: [{ type: "createPod", pod: p, reason: "create" }], status: { replicas: 0 }, waiting: false, basis, monotonic: true }, silentLogger, events);
    expect(ex.done.map(describeAction).filter((d) => d !== "updateStatus")).toEqual(["createPod web-0"]);
    const stored = fake.get<Pod>(`${NS}/pods/web-0`)!;
    expect(stored.spec?.nodeName).toBe("node-a");
    expect(stored.status?.conditions?.map((c) => `${c.type}=${c.status}`).sort()).toEqual(["InPlaceUpdateReady=True", "PodScheduled=True"]);
  });

  it("createPod whose gate write fails is still done: the next pass sets the gate", async () => {
    const { fake, set, exec, errors } = setup();
    fake.faults.add({ fault: "conflict", when: (r) => r.method === "PATCH" && r.subresource === "status" && r.resource === "pods" });
    const p = newPod(set, 0, "web-1");
    delete p.metadata!.uid;
    delete p.metadata!.resourceVersion;
    const ex = await exec([{ type: "createPod", pod: p, reason: "create" }]);
    expect(ex.error).toBeUndefined();
    expect(ex.done.map(describeAction)).toEqual(["createPod web-0"]);
    expect(fake.get<Pod>(`${NS}/pods/web-0`)!.status?.conditions?.some((c) => c.type === "InPlaceUpdateReady")).toBeFalsy();
    expect(errors).toEqual([]);
  });

  it("createPod failing with something else than AlreadyExists leaves unseenPods empty", async () => {
    const { set, exec, fail } = setup();
    fail("web-0", "conflict");
    const p = newPod(set, 0, "web-1");
    delete p.metadata!.uid;
    delete p.metadata!.resourceVersion;
    const ex = await exec([{ type: "createPod", pod: p, reason: "create" }]);
    expect((ex.error as ApiError).code).toBe(409);
    expect(ex.unseenPods).toEqual([]);
  });

  it("deletePod deletes with the uid as precondition; failed pods are RecreatingFailedPod, others SuccessfulDelete", async () => {
    const { fake, exec, writes, recorded, uid } = setup({ pods: 3 });
    const ex = await exec([
      { type: "deletePod", name: "web-0", uid: uid(`${NS}/pods/web-0`), reason: "failed" },
      { type: "deletePod", name: "web-1", uid: uid(`${NS}/pods/web-1`), reason: "scaleDown" },
    ]);
    expect(writes()).toEqual(["delete pods web-0", "delete pods web-1"]);
    expect(recorded).toEqual([
      { type: "Warning", reason: "RecreatingFailedPod", message: "StatefulSet default/web is recreating failed Pod web-0" },
      { type: "Normal", reason: "SuccessfulDelete", message: "delete Pod web-1 in StatefulSet web successful" },
    ]);
    expect(ex.done).toHaveLength(2);
    recorded.length = 0;
    const stale = await exec([{ type: "deletePod", name: "web-2", uid: "stale", reason: "update" }]);
    expect(fake.get(`${NS}/pods/web-2`)).toBeDefined();
    expect((stale.error as ApiError).code).toBe(409);
    expect(recorded).toEqual([{ type: "Warning", reason: "FailedDelete", message: `delete Pod web-2 in StatefulSet web failed error: ${stale.error!.message}` }]);
  });

  it("repairPodLabels merges the labels (null removes); a failure records FailedUpdate about the pod", async () => {
    const { fake, exec, writes, recorded, uid } = setup({ pods: 1 });
    const ex = await exec([{ type: "repairPodLabels", name: "web-0", uid: uid(`${NS}/pods/web-0`), labels: { extra: "x", app: "web" } }]);
    expect(writes()).toEqual(["patch pods web-0"]);
    expect(fake.get<Pod>(`${NS}/pods/web-0`)!.metadata!.labels).toMatchObject({ extra: "x", app: "web" });
    expect(ex.error).toBeUndefined();
    await exec([{ type: "repairPodLabels", name: "web-0", uid: uid(`${NS}/pods/web-0`), labels: { extra: null } }]);
    expect(fake.get<Pod>(`${NS}/pods/web-0`)!.metadata!.labels).not.toHaveProperty("extra");
    expect(recorded).toEqual([]);
    const stale = await exec([{ type: "repairPodLabels", name: "web-0", uid: "stale", labels: { extra: "y" } }]);
    expect(recorded).toEqual([{ type: "Warning", reason: "FailedUpdate", message: `update Pod web-0 in StatefulSet web failed error: ${stale.error!.message}` }]);
  });

  it("setPodCondition patches the pod's status with uid and resourceVersion as preconditions", async () => {
    const { fake, exec, writes, recorded, uid } = setup({ pods: 1 });
    const path = `${NS}/pods/web-0`;
    const rv = fake.get<Pod>(path)!.metadata!.resourceVersion!;
    const conditions = [{ type: "InPlaceUpdateReady", status: "True" }];
    const ex = await exec([{ type: "setPodCondition", name: "web-0", uid: uid(path), resourceVersion: rv, conditions }]);
    expect(writes()).toEqual(["patch pods/status web-0"]);
    expect(fake.get<Pod>(path)!.status!.conditions).toMatchObject(conditions);
    expect(ex.error).toBeUndefined();
    const stale = await exec([{ type: "setPodCondition", name: "web-0", uid: uid(path), resourceVersion: rv, conditions: [] }]);
    expect((stale.error as ApiError).code).toBe(409);
    expect(recorded).toEqual([]);
  });

  it("updatePodInPlace applies the patch and records SuccessfulUpdatePodInPlace; a failure FailedUpdatePodInPlace", async () => {
    const { fake, exec, writes, recorded, uid } = setup({ pods: 1 });
    const path = `${NS}/pods/web-0`;
    const pod = fake.get<Pod>(path)!;
    const containers = pod.spec!.containers.map((c) => ({ ...c, image: "img:2" }));
    const patch = { metadata: { uid: uid(path), resourceVersion: pod.metadata!.resourceVersion!, labels: { "controller-revision-hash": "web-2" }, annotations: { [INPLACE_STATE_ANNOTATION]: "{}" } }, spec: { containers } };
    const ex = await exec([{ type: "updatePodInPlace", name: "web-0", revision: "web-2", patch }]);
    expect(writes()).toEqual(["patch pods web-0"]);
    const after = fake.get<Pod>(path)!;
    expect(after.spec!.containers[0].image).toBe("img:2");
    expect(after.metadata!.labels!["controller-revision-hash"]).toBe("web-2");
    expect(after.metadata!.annotations![INPLACE_STATE_ANNOTATION]).toBe("{}");
    expect(recorded).toEqual([{ type: "Normal", reason: "SuccessfulUpdatePodInPlace", message: "successfully update pod web-0 in-place(revision web-2)" }]);
    expect(ex.done).toHaveLength(1);
    recorded.length = 0;
    const stale = await exec([{ type: "updatePodInPlace", name: "web-0", revision: "web-3", patch }]);
    expect(recorded).toEqual([{ type: "Warning", reason: "FailedUpdatePodInPlace", message: `failed to update pod web-0 in-place(revision web-3): ${stale.error!.message}` }]);
  });

  it.each<[string, Action["type"]]>([
    ["setPodCondition", "setPodCondition"],
    ["clearInPlaceState", "clearInPlaceState"],
    ["adoptPod", "adoptPod"],
  ])("%s refused (a webhook's deny) records FailedUpdate about the pod, as a refused create records FailedCreate", async (_, type) => {
    const { fake, exec, recorded, uid } = setup({ pods: 1 });
    const path = `${NS}/pods/web-0`;
    const deny = 'admission webhook "pods.validate.ordinal.dev" denied the request: Pod "web-0" is invalid: spec: Forbidden: a pod of Ordinal StatefulSet "web" may change only spec.containers[*].image';
    fake.faults.add({ verb: "patch", resource: "pods", fault: { status: 400, reason: "BadRequest", message: deny } });
    const rv = fake.get<Pod>(path)!.metadata!.resourceVersion!;
    const action = {
      setPodCondition: { type: "setPodCondition", name: "web-0", uid: uid(path), resourceVersion: rv, conditions: [] },
      clearInPlaceState: { type: "clearInPlaceState", name: "web-0", uid: uid(path) },
      adoptPod: { type: "adoptPod", name: "web-0", uid: uid(path), ownerReferences: [] },
    }[type as "setPodCondition"] as Action;
    const ex = await exec([action]);
    expect((ex.error as ApiError).code).toBe(400);
    expect(recorded).toEqual([{ type: "Warning", reason: "FailedUpdate", message: `update Pod web-0 in StatefulSet web failed error: ${deny}` }]);
  });

  it("a write refused for the reconciler's identity: an error line and a Warning event naming both identities and the fix, counted", async () => {
    const { fake, exec, recorded, errors, uid } = setup({ pods: 1 });
    const path = `${NS}/pods/web-0`;
    const SA = "system:serviceaccount:ordinal-system:ordinal-reconciler";
    const deny = `admission webhook "pods.validate.ordinal.dev" denied the request: Pod "web-0" is invalid: metadata.annotations[${INPLACE_STATE_ANNOTATION}]: Forbidden: removed: ${reconcilerOnly(SA, "admin")}`;
    fake.faults.add({ verb: "patch", resource: "pods", fault: { status: 400, reason: "BadRequest", message: deny } });
    const ex = await exec([{ type: "clearInPlaceState", name: "web-0", uid: uid(path) }]);
    const why = identityMismatchMessage({ expected: SA, actual: "admin" });
    expect(recorded).toContainEqual({ type: "Warning", reason: "ReconcilerIdentityMismatch", message: why });
    expect(errors).toEqual([{ msg: why, set: "default/web", action: "clearInPlaceState web-0", reconciler: "admin", expected: SA }]);
    expect(ex.identityRefusals).toBe(1);
    expect(ex.identityRefusal).toEqual({ expected: SA, actual: "admin" });
    // Any other refusal is no identity mismatch.
    fake.faults.clear();
    fake.faults.add({ verb: "patch", resource: "pods", fault: { status: 403, reason: "Forbidden", message: 'pods "web-0" is forbidden: User "admin" cannot patch resource "pods"' } });
    recorded.length = 0;
    const other = await exec([{ type: "clearInPlaceState", name: "web-0", uid: uid(path) }]);
    expect(other.identityRefusals).toBe(0);
    expect(recorded.map((r) => r.reason)).toEqual(["FailedUpdate"]);
  });

  it("clearInPlaceState removes the state annotation", async () => {
    const { fake, exec, writes, uid } = setup({ pods: 1 });
    const path = `${NS}/pods/web-0`;
    const pod = fake.get<Pod>(path)!;
    fake.put({ ...pod, metadata: { ...pod.metadata, annotations: { [INPLACE_STATE_ANNOTATION]: "{}", keep: "1" } } });
    const ex = await exec([{ type: "clearInPlaceState", name: "web-0", uid: uid(path) }]);
    expect(writes()).toEqual(["patch pods web-0"]);
    expect(fake.get<Pod>(path)!.metadata!.annotations).toEqual({ keep: "1" });
    expect(ex.error).toBeUndefined();
  });

  it("event records the event as given, with no request", async () => {
    const { exec, writes, recorded } = setup();
    const ex = await exec([{ type: "event", eventType: "Warning", reason: "Why", message: "because" }]);
    expect(writes()).toEqual([]);
    expect(recorded).toEqual([{ type: "Warning", reason: "Why", message: "because" }]);
    expect(ex.done).toEqual([{ type: "event", eventType: "Warning", reason: "Why", message: "because" }]);
  });

  it("writeImageList creates or patches the node's ImageList and returns what was written", async () => {
    const { fake, exec, writes } = setup();
    const created = { apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", metadata: { name: "node-a", namespace: "default" }, spec: { images: { "img:2": { alwaysPull: false } } } } as ImageList;
    const ex = await exec([{ type: "writeImageList", node: "node-a", create: created }]);
    expect(writes()).toEqual(["create imagelists node-a"]);
    expect(ex.imageLists.map((l) => Object.keys(l.spec.images))).toEqual([["img:2"]]);
    const rv = fake.get<ImageList>(`${LISTS}/node-a`)!.metadata.resourceVersion!;
    const patched = await exec([{ type: "writeImageList", node: "node-a", patch: { metadata: { resourceVersion: rv, annotations: {} }, spec: { images: { "img:2": null, "img:3": { alwaysPull: true } } } } }]);
    expect(writes()).toEqual(["patch imagelists node-a"]);
    expect(patched.imageLists).toHaveLength(1);
    expect(patched.imageLists[0].spec.images).toEqual({ "img:3": { alwaysPull: true } });
    expect(fake.get<ImageList>(`${LISTS}/node-a`)!.spec.images).toEqual({ "img:3": { alwaysPull: true } });
  });
});

describe("executePlan: order", () => {
  const pod = (set: StatefulSet, i: number): Action => {
    const p = newPod(set, i, "web-1");
    delete p.metadata!.uid;
    delete p.metadata!.resourceVersion;
    return { type: "createPod", pod: p, reason: "create" };
  };

  it("runs adoption and revision writes first, pods next, revision deletion and pre-warm after", async () => {
    const { fake, set, exec, writes, uid } = setup({ pods: 1 });
    const rev = revisionOf(set, 1);
    delete rev.metadata!.uid;
    fake.seed({ ...rev, metadata: { ...rev.metadata, name: "old" } });
    const list = { apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", metadata: { name: "n", namespace: "default" }, spec: { images: {} } } as unknown as ImageList;
    await exec([
      { type: "writeImageList", node: "n", create: list },
      { type: "deleteRevision", name: "old" },
      pod(set, 1),
      { type: "adoptPod", name: "web-0", uid: uid(`${NS}/pods/web-0`), ownerReferences: owner(set) },
      { type: "createRevision", revision: rev },
    ]);
    expect(writes()).toEqual([
      "patch pods web-0",
      `create controllerrevisions ${rev.metadata!.name}`,
      "create pods web-1",
      "delete controllerrevisions old",
      "create imagelists n",
    ]);
  });

  it("a failed prelude write stops the set: no pod write, no status", async () => {
    const { set, exec, writes, fail } = setup({ pods: 1 });
    fail("web-0");
    const ex = await exec([{ type: "adoptPod", name: "web-0", uid: "u", ownerReferences: [] }, pod(set, 1), { type: "deleteRevision", name: "old" }]);
    expect(writes()).toEqual(["patch pods web-0"]);
    expect(ex.done).toEqual([]);
  });

  const preludes: Record<string, (set: StatefulSet) => Action> = {
    adoptPod: () => ({ type: "adoptPod", name: "web-0", uid: "u", ownerReferences: [] }),
    releasePod: () => ({ type: "releasePod", name: "web-0", uid: "u", ownerReferences: [] }),
    adoptRevision: () => ({ type: "adoptRevision", name: "web-0", uid: "u", ownerReferences: [] }),
    releaseRevision: () => ({ type: "releaseRevision", name: "web-0", uid: "u", ownerReferences: [] }),
    createRevision: (set) => ({ type: "createRevision", revision: { ...revisionOf(set, 1), metadata: { name: "web-0", namespace: "default" } } }),
    updateRevisionNumber: () => ({ type: "updateRevisionNumber", name: "web-0", revision: 2 }),
  };
  for (const [kind, make] of Object.entries(preludes)) {
    it(`${kind} is a prelude write: it goes first, and its failure stops the set (no pod write, no status)`, async () => {
      const { set, exec, writes, fail } = setup({ pods: 1, policy: "Parallel" });
      fail("web-0");
      const ex = await exec([pod(set, 1), { type: "deleteRevision", name: "old" }, make(set)], false);
      expect(writes()).toHaveLength(1);
      expect(writes()[0]).toMatch(/ web-0$/);
      expect(ex.done).toEqual([]);
    });
  }

  it("the plan's own updateStatus is not run: the status is written once, last, from the writes done", async () => {
    const { fake, set, exec } = setup();
    await exec([{ type: "updateStatus", status: { replicas: 7 } }, pod(set, 0)]);
    expect(fake.log.entries.map((e) => `${e.verb} ${e.resource}${e.subresource ? `/${e.subresource}` : ""}`)).toEqual(["create pods", "patch pods/status", "patch statefulsets/status"]);
    expect(fake.get<StatefulSet>(`${SETS}/web`)!.status!.replicas).toBe(1);
  });

  it("OrderedReady runs every unit in order when all succeed, and stops at the first failure", async () => {
    const { fake, set, exec, writes, fail } = setup();
    await exec([pod(set, 0), pod(set, 1), pod(set, 2)]);
    expect(writes()).toEqual(["create pods web-0", "create pods web-1", "create pods web-2"]);
    for (const i of [0, 1, 2]) fake.remove(`${NS}/pods/web-${i}`);
    fail("web-1");
    const ex = await exec([pod(set, 0), pod(set, 1), pod(set, 2), { type: "deleteRevision", name: "gone" }]);
    expect(writes()).toEqual(["create pods web-0", "create pods web-1", "delete controllerrevisions gone"]);
    expect(ex.done.map(describeAction)).toEqual(["createPod web-0", "deleteRevision gone"]);
    expect((ex.error as ApiError).code).toBe(500);
  });

  it("Parallel runs slow-start batches of 1, 2, 4 units and stops after a batch with a failure", async () => {
    const { set, exec, writes, fail } = setup({ policy: "Parallel" });
    fail("web-1");
    const ex = await exec([0, 1, 2, 3, 4].map((i) => pod(set, i)), false);
    expect(writes().sort()).toEqual(["create pods web-0", "create pods web-1", "create pods web-2"]);
    expect(ex.done.map(describeAction).sort()).toEqual(["createPod web-0", "createPod web-2"]);
  });

  it("Parallel with no failure runs every unit", async () => {
    const { set, exec, writes } = setup({ policy: "Parallel" });
    const ex = await exec([0, 1, 2, 3, 4, 5, 6, 7].map((i) => pod(set, i)), false);
    expect(writes()).toHaveLength(8);
    expect(ex.done).toHaveLength(8);
  });

  // Issue 35: a set's share of the writes (write-slice.ts). Before it, a plan's 500 creates all ran in one pass.
  it("Parallel's batches grow 1, 2, 4, … to MAX_WRITE_BATCH (32) and no more", async () => {
    const { set, exec, writes } = setup({ policy: "Parallel" });
    const seen: number[] = [];
    const ex = await exec(Array.from({ length: 200 }, (_, i) => pod(set, i)), false, () => {
      seen.push(writes().length);
      return false;
    });
    expect(MAX_WRITE_BATCH).toBe(32);
    expect(seen).toEqual([1, 3, 7, 15, 31, 63, 95, 127, 159, 191, 200]);
    expect(ex.done).toHaveLength(200);
  });

  it("Parallel starts no batch once the set's write slice is spent; the status counts what was written", async () => {
    const { fake, set, exec, writes } = setup({ policy: "Parallel" });
    let asked = 0;
    const ex = await exec([0, 1, 2, 3, 4, 5, 6, 7].map((i) => pod(set, i)), false, () => ++asked >= 2);
    expect(writes().sort()).toEqual(["create pods web-0", "create pods web-1", "create pods web-2"]);
    expect(ex.done.map(describeAction).sort()).toEqual(["createPod web-0", "createPod web-1", "createPod web-2"]);
    expect(ex.error).toBeUndefined();
    expect(fake.get<StatefulSet>(`${SETS}/web`)!.status!.replicas).toBe(3);
  });

  it("OrderedReady stops after the unit that spent the slice", async () => {
    const { set, exec, writes } = setup();
    await exec([pod(set, 0), pod(set, 1), pod(set, 2)], true, () => true);
    expect(writes()).toEqual(["create pods web-0"]);
  });

  // A pod's writes are one unit: when the first fails the rest of that pod's writes are not made,
  // while the other pod of the batch goes on (Parallel, second batch = web-1's and web-2's units).
  const first: Record<string, (set: StatefulSet) => Action> = {
    createClaim: (set) => ({ type: "createClaim", claim: { ...newClaim(set, 1), spec: {} }, pod: "web-1" }),
    setClaimOwners: () => ({ type: "setClaimOwners", name: "www-web-1", uid: "u", ownerReferences: [], pod: "web-1" }),
    createPod: (set) => pod(set, 1),
    deletePod: () => ({ type: "deletePod", name: "web-1", uid: "u", reason: "update" }),
    repairPodLabels: () => ({ type: "repairPodLabels", name: "web-1", uid: "u", labels: {} }),
    setPodCondition: () => ({ type: "setPodCondition", name: "web-1", uid: "u", resourceVersion: "1", conditions: [] }),
    updatePodInPlace: () => ({ type: "updatePodInPlace", name: "web-1", revision: "r", patch: { metadata: { uid: "u", resourceVersion: "1", labels: {}, annotations: {} }, spec: {} } }),
    clearInPlaceState: () => ({ type: "clearInPlaceState", name: "web-1", uid: "u" }),
  };
  for (const [kind, make] of Object.entries(first)) {
    it(`groups ${kind} with the pod's next write`, async () => {
      const { set, exec, writes, fail } = setup({ policy: "Parallel" });
      fail("web-1");
      fail("www-web-1");
      const next: Action = kind === "clearInPlaceState" ? { type: "repairPodLabels", name: "web-1", uid: "u", labels: {} } : { type: "clearInPlaceState", name: "web-1", uid: "u" };
      await exec([pod(set, 0), make(set), next, pod(set, 2)], false);
      expect(writes()).toHaveLength(3);
      expect(writes()).toContain("create pods web-2");
    });
  }

  it("writes the status last, replacing what the stored one says", async () => {
    const { fake, set, exec } = setup({ status: { replicas: 9, currentRevision: "stale", collisionCount: 0, updatedReadyReplicas: 9 } });
    await exec([pod(set, 0)]);
    const last = fake.log.entries[fake.log.entries.length - 1];
    expect(`${last.verb} ${last.resource}/${last.subresource}`).toBe("patch statefulsets/status");
    const status = fake.get<StatefulSet>(`${SETS}/web`)!.status!;
    expect(status.replicas).toBe(1);
    expect(status).not.toHaveProperty("currentRevision", "stale");
    // The created pod is not ready yet.
    expect(status.updatedReadyReplicas).toBe(0);
  });
});

describe("describe", () => {
  it("names each action for the logs", () => {
    const set = StatefulSetSchema.parse(setManifest());
    const rev = revisionOf(set, 1);
    expect(describeAction({ type: "createRevision", revision: rev })).toBe(`createRevision ${rev.metadata!.name}`);
    expect(describeAction({ type: "createClaim", claim: newClaim(set, 0), pod: "web-0" })).toBe("createClaim www-web-0");
    expect(describeAction({ type: "createPod", pod: newPod(set, 3, "r"), reason: "create" })).toBe("createPod web-3");
    expect(describeAction({ type: "updateStatus", status: { replicas: 0 } })).toBe("updateStatus");
    expect(describeAction({ type: "event", eventType: "Normal", reason: "R", message: "m" })).toBe("event R");
    expect(describeAction({ type: "writeImageList", node: "n1", create: {} as ImageList })).toBe("createImageList n1");
    expect(describeAction({ type: "writeImageList", node: "n2" })).toBe("patchImageList n2");
    expect(describeAction({ type: "deletePod", name: "web-1", uid: "u", reason: "heal" })).toBe("deletePod web-1");
  });
});

describe("executePlan: a new revision and the first pod's claims go out together", () => {
  /**
   * world returns a fake apiserver with a new OrderedReady set of `replicas` (claim template www)
   * and a client whose revision creates wait for `release()`; `sent` lists each create as sent
   * and as answered.
   */
  function world(replicas = 1) {
    const fake = createFakeApiServer({ namespaces: ["default"] });
    const raw = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    fake.seed(setManifest({ replicas, claims: ["www"] }));
    const set: StatefulSet = StatefulSetSchema.parse(fake.get(`${SETS}/web`));
    const sent: string[] = [];
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const client = Object.create(raw) as typeof raw;
    client.create = async (r, ns, obj, opts) => {
      const name = (obj as { metadata?: { name?: string } }).metadata?.name;
      sent.push(`sent ${r.resource} ${name}`);
      if (r.resource === "controllerrevisions") await held;
      const out = await raw.create(r, ns, obj, opts);
      sent.push(`done ${r.resource} ${name}`);
      return out;
    };
    const p = plan({ set, pods: [], claims: [], revisions: [], now: NOW });
    const run = () => executePlan(client, set, p, silentLogger, { record: () => {} } as unknown as EventRecorder);
    return { fake, set, sent, release, p, run };
  }

  it("the claim is sent while the revision's create is in flight; the pod only after both", async () => {
    const w = world();
    expect(w.p.actions.map((a) => a.type)).toEqual(["createRevision", "createClaim", "createPod", "updateStatus"]);
    const running = w.run();
    await vi.waitFor(() => expect(w.sent).toContain("done persistentvolumeclaims www-web-0"));
    expect(w.sent.filter((s) => s.includes("pods web-0"))).toEqual([]);
    w.release();
    const ex = await running;
    expect(ex.error).toBeUndefined();
    const revision = w.sent.indexOf(w.sent.find((s) => s.startsWith("done controllerrevisions"))!);
    expect(w.sent.indexOf("sent pods web-0")).toBeGreaterThan(revision);
    expect(ex.done.map((a) => a.type).sort()).toEqual(["createClaim", "createPod", "createRevision", "updateStatus"]);
  });

  it("a failed revision create stops the set: the claim sent beside it stays, no pod is created", async () => {
    const w = world();
    w.fake.faults.add({ fault: "internal", resource: "controllerrevisions", method: "POST" });
    w.release();
    const ex = await w.run();
    expect(ex.error).toBeDefined();
    expect(ex.done.map((a) => a.type)).toEqual(["createClaim"]);
    expect(w.sent.filter((s) => s.startsWith("sent pods"))).toEqual([]);
  });

  it("a failed claim stops the pods (OrderedReady): the revision is created, no pod is", async () => {
    const w = world(2);
    w.fake.faults.add({ fault: "internal", resource: "persistentvolumeclaims", method: "POST" });
    w.release();
    const ex = await w.run();
    expect(ex.done.map((a) => a.type)).toContain("createRevision");
    expect(ex.done.map((a) => a.type)).not.toContain("createPod");
    expect(w.sent.filter((s) => s.startsWith("sent pods"))).toEqual([]);
  });

  it("with an adoption in the prelude the claims wait for it (it decides which pods are the set's)", async () => {
    const { set, exec, writes, uid } = setup({ pods: 1 });
    const claim: Action = { type: "createClaim", pod: "web-1", claim: { ...newClaim(set, 1, "www"), spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } } };
    delete (claim.claim.metadata as { uid?: string }).uid;
    await exec([{ type: "adoptPod", name: "web-0", uid: uid(`${NS}/pods/web-0`), ownerReferences: owner(set) }, claim]);
    expect(writes()).toEqual(["patch pods web-0", "create persistentvolumeclaims www-web-1"]);
  });
});

describe("executePlan's log lines", () => {
  it("a refused create and an identity refusal are each one line: the recorder does not log their Warning events again", async () => {
    const fake = createFakeApiServer({ namespaces: ["default"] });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    fake.seed(setManifest({ replicas: 1 }));
    const set: StatefulSet = StatefulSetSchema.parse(fake.get(`${SETS}/web`));
    const lines: string[] = [];
    const log: Logger = { info() {}, warn: (msg) => void lines.push(`warn ${msg}`), error: () => void lines.push("error identity") };
    const events = new EventRecorder(client, log);
    const basis = plan({ set, pods: [], claims: [], revisions: [], now: NOW }).basis;
    const run = (a: Action) => executePlan(client, set, { actions: [a], status: { replicas: 0 }, waiting: false, basis, monotonic: true }, log, events);
    const pod = newPod(set, 0, "web-1");
    delete pod.metadata!.uid;
    delete pod.metadata!.resourceVersion;
    fake.faults.add({ verb: "create", resource: "pods", fault: { status: 403, reason: "Forbidden", message: 'pods "web-0" is forbidden: exceeded quota: pods' } });
    await run({ type: "createPod", pod, reason: "create" });
    await events.flush(NOW);
    expect(lines).toEqual(["warn action failed"]);
    expect(fake.list<{ reason: string }>(`${NS}/events`).map((e) => e.reason)).toEqual(["FailedCreate"]);
    lines.length = 0;
    fake.faults.clear();
    const SA = "system:serviceaccount:ordinal-system:ordinal-reconciler";
    const deny = `admission webhook "pods.validate.ordinal.dev" denied the request: Pod "web-0" is invalid: metadata.annotations[${INPLACE_STATE_ANNOTATION}]: Forbidden: removed: ${reconcilerOnly(SA, "admin")}`;
    fake.seed(pod);
    fake.faults.add({ verb: "patch", resource: "pods", fault: { status: 400, reason: "BadRequest", message: deny } });
    await run({ type: "clearInPlaceState", name: "web-0", uid: fake.get<Pod>(`${NS}/pods/web-0`)!.metadata!.uid! });
    await events.flush(NOW);
    expect(lines).toEqual(["error identity"]);
  });
});
