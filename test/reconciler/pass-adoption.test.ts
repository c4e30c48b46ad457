/**
 * How reconcilePass (src/reconciler/pass.ts) meets pods it did not list: a set that owns no
 * revision lists its namespace by its own selector (once, filtered, never unfiltered); a pod create
 * that answers AlreadyExists makes the pass read the pod by name and plan the set once more —
 * once, whatever the pod turns out to be, and only while the pod and the set still exist.
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { StatefulSetSchema } from "../../src/api/statefulset.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger, type Logger } from "../../src/log/log.ts";
import type { OrphanLookup } from "../../src/reconciler/orphan-lookup.ts";
import { SET_NAME_LABEL } from "../../src/objects/constants.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { NOW, revisionOf, setManifest } from "../support/fixtures.ts";

const PODS = "/api/v1/namespaces/default/pods";
const REVS = "/apis/apps/v1/namespaces/default/controllerrevisions";

function setup() {
  const fake = createFakeApiServer({ namespaces: ["default"] });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  const logged: Record<string, unknown>[] = [];
  const log: Logger = { debug: (msg, f) => void logged.push({ msg, ...f }), info: (msg, f) => void logged.push({ msg, ...f }), warn() {}, error() {} };
  const pass = () => reconcilePass(client, { now: () => NOW, log });
  /** requests returns the requests since the last call, as `verb resource name` (lists with their query). */
  const requests = () => {
    const out = fake.log.entries.map((e) => `${e.verb} ${e.resource}${e.subresource ? `/${e.subresource}` : ""}${e.name ? ` ${e.name}` : ""}${e.verb === "list" ? ` ${e.query}` : ""}`);
    fake.log.clear();
    return out;
  };
  /** foreignPod seeds `web-0` with `labels`, no owner and no Ordinal label, running the set's template. */
  const foreignPod = (labels: Record<string, string>) =>
    fake.seed({ apiVersion: "v1", kind: "Pod", metadata: { name: "web-0", namespace: "default", labels }, spec: StatefulSetSchema.parse(setManifest({ replicas: 1 })).spec.template.spec });
  /** ownedSet seeds the set with no replicas and runs a pass: it then owns its revision; then it is scaled to `replicas`. */
  const ownedSet = async (replicas: number) => {
    fake.seed(setManifest({ replicas: 0, policy: "Parallel" }));
    await pass();
    await client.patch(R.statefulSets, "default", "web", { spec: { replicas } }, "merge");
    const [rev] = fake.list<{ metadata: { name: string } }>(REVS);
    logged.length = 0;
    requests();
    return rev.metadata.name;
  };
  return { fake, client, logged, pass, requests, foreignPod, ownedSet };
}

describe("a pod create that meets an unlisted pod (AlreadyExists)", () => {
  it("reads it by name and plans the set once more: a pod the selector matches is adopted", async () => {
    const { fake, logged, pass, requests, foreignPod, ownedSet } = setup();
    const rev = await ownedSet(1);
    foreignPod({ app: "web", "controller-revision-hash": rev });
    const r = await pass();
    expect(r.sets).toStrictEqual([{ set: "default/web", actions: ["updateStatus", "adoptPod web-0", "repairPodLabels web-0", "updateStatus"], error: undefined, waiting: false }]);
    expect(r.pending).toBe(true);
    expect(requests().filter((q) => !q.startsWith("list") && !q.includes("events"))).toEqual([
      "create pods",
      "patch statefulsets/status web",
      "get pods web-0",
      "get statefulsets web",
      "patch pods web-0",
      "patch pods web-0",
      "patch statefulsets/status web",
    ]);
    expect(fake.get<Pod>(`${PODS}/web-0`)?.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "StatefulSet", name: "web", controller: true });
    expect(logged.filter((l) => l.msg !== "action failed")).toEqual([
      { msg: "pods found without Ordinal's label", set: "default/web", pods: ["web-0"] },
      { msg: "set reconciled", set: "default/web", actions: ["updateStatus", "adoptPod web-0", "repairPodLabels web-0", "updateStatus"], error: undefined },
      expect.objectContaining({ msg: "rollout", set: "default/web", state: "Scaling", was: "RolloutComplete" }),
    ]);
  });

  it("plans twice at most: a pod the selector does not match stays, and the set reports AlreadyExists", async () => {
    const { fake, pass, requests, foreignPod, ownedSet } = setup();
    await ownedSet(1);
    foreignPod({ app: "other" });
    const r = await pass();
    expect(r.sets[0].error).toMatch(/pods "web-0" already exists/);
    expect(r.pending).toBe(true);
    const writes = requests().filter((q) => !q.startsWith("list") && !q.includes("events"));
    expect(writes.filter((q) => q === "create pods")).toHaveLength(2);
    expect(writes.filter((q) => q === "get pods web-0")).toHaveLength(1);
    expect(writes.filter((q) => q === "get statefulsets web")).toHaveLength(1);
    expect(fake.get<Pod>(`${PODS}/web-0`)?.metadata?.ownerReferences).toBeUndefined();
    expect(fake.get<Pod>(`${PODS}/web-0`)?.metadata?.labels).toEqual({ app: "other" });
  });

  it("does not plan again when the pod is gone by the time it is read; the next pass creates it", async () => {
    const { fake, pass, requests, ownedSet } = setup();
    await ownedSet(1);
    fake.faults.add({ verb: "create", resource: "pods", fault: { status: 409, reason: "AlreadyExists", message: 'pods "web-0" already exists' }, times: 1 });
    const r = await pass();
    expect(r.sets[0].error).toMatch(/already exists/);
    expect(r.sets[0].actions).toEqual(["updateStatus"]);
    const calls = requests().filter((q) => !q.startsWith("list") && !q.includes("events"));
    expect(calls).toEqual(["create pods", "patch statefulsets/status web", "get pods web-0"]);
    await pass();
    expect(fake.get<Pod>(`${PODS}/web-0`)?.metadata?.labels?.[SET_NAME_LABEL]).toBe("web");
  });

  it("does not plan again when the set is gone by the time it is read again", async () => {
    const { fake, pass, requests, foreignPod, ownedSet } = setup();
    const rev = await ownedSet(1);
    foreignPod({ app: "web", "controller-revision-hash": rev });
    fake.faults.add({ verb: "get", resource: "statefulsets", fault: { status: 404, reason: "NotFound" }, times: 1 });
    const r = await pass();
    expect(r.sets[0].error).toMatch(/already exists/);
    expect(r.sets[0].actions).toEqual(["updateStatus"]);
    expect(requests().filter((q) => !q.startsWith("list") && !q.includes("events"))).toEqual([
      "create pods",
      "patch statefulsets/status web",
      "get pods web-0",
      "get statefulsets web",
    ]);
    expect(fake.get<Pod>(`${PODS}/web-0`)?.metadata?.ownerReferences).toBeUndefined();
  });

  it("a set with nothing to do logs nothing and its result carries no requeue", async () => {
    const { logged, pass, ownedSet } = setup();
    await ownedSet(0);
    await pass();
    logged.length = 0;
    const r = await pass();
    expect(r.sets).toStrictEqual([{ set: "default/web", actions: [], error: undefined, waiting: false }]);
    expect(r.pending).toBe(false);
    expect(logged).toEqual([]);
  });
});

describe("a set that owns no revision lists its namespace by its own selector", () => {
  it("when its only revisions are orphans (set re-created after an orphaning delete): once, filtered, adopting each pod once", async () => {
    const { fake, pass, requests } = setup();
    const old = StatefulSetSchema.parse({ ...setManifest({ replicas: 2, policy: "Parallel" }), metadata: { name: "web", namespace: "default", uid: "old-uid" } });
    const rev = revisionOf(old);
    // Ordinal's revision and pods of the deleted set: labelled, no owner any more.
    fake.seed({ ...rev, metadata: { ...rev.metadata, namespace: "default", ownerReferences: undefined, uid: undefined } });
    for (const i of [0, 1]) {
      fake.seed({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: `web-${i}`, namespace: "default", labels: { app: "web", [SET_NAME_LABEL]: "web", "controller-revision-hash": rev.metadata!.name! } },
        spec: old.spec.template.spec,
      });
    }
    fake.seed(setManifest({ replicas: 2, policy: "Parallel" }));
    requests();
    const r = await pass();
    const lists = requests().filter((q) => q.startsWith("list pods") || q.startsWith("list controllerrevisions"));
    expect(lists.filter((q) => q.includes("labelSelector=app%3Dweb"))).toHaveLength(2);
    expect(lists).toHaveLength(4);
    const actions = r.sets[0].actions;
    expect(actions.filter((a) => a === "adoptPod web-0")).toHaveLength(1);
    expect(actions.filter((a) => a === "adoptPod web-1")).toHaveLength(1);
    expect(actions.filter((a) => /^(createPod|deletePod|createRevision)/.test(a))).toEqual([]);
    expect(r.sets[0].error).toBeUndefined();
    expect(fake.log.count({ verb: "create", resource: "pods" })).toBe(0);
  });

  it("with an orphan lookup started early (the scheduler's, orphan-lookups.ts) by the set's selector: no list of its own, the same adoptions", async () => {
    const { fake, client, requests } = setup();
    const old = StatefulSetSchema.parse({ ...setManifest({ replicas: 1, policy: "Parallel" }), metadata: { name: "web", namespace: "default", uid: "old-uid" } });
    const rev = revisionOf(old);
    fake.seed({ ...rev, metadata: { ...rev.metadata, namespace: "default", ownerReferences: undefined, uid: undefined } });
    fake.seed({ apiVersion: "v1", kind: "Pod", metadata: { name: "web-0", namespace: "default", labels: { app: "web", "controller-revision-hash": rev.metadata!.name! } }, spec: old.spec.template.spec });
    const page = { labelSelector: "app=web" };
    const lookup = { selector: "app=web", found: Promise.all([client.list<Pod>(R.pods, "default", page), client.list(R.controllerRevisions, "default", page)]).then(([pods, revisions]) => ({ pods, revisions })) } as OrphanLookup;
    await lookup.found;
    fake.seed(setManifest({ replicas: 1, policy: "Parallel" }));
    requests();
    const r = await reconcilePass(client, { now: () => NOW, log: silentLogger, namespace: "default", setName: "web", hints: { orphans: lookup } });
    expect(requests().filter((q) => q.includes("labelSelector=app%3Dweb"))).toEqual([]);
    expect(r.sets[0].actions.filter((a) => /^(adoptPod|adoptRevision|createPod|createRevision)/.test(a))).toEqual(["adoptPod web-0", `adoptRevision ${rev.metadata!.name!}`]);
  });

  it("a lookup by another selector (the set was replaced) or one that failed is not used: the pass lists itself", async () => {
    for (const lookup of [
      { selector: "app=other", found: Promise.resolve({ pods: [], revisions: [] }) },
      { selector: "app=web", found: Promise.reject(new Error("503")) },
    ]) {
      const { fake, client, requests } = setup();
      fake.seed(setManifest({ replicas: 1 }));
      requests();
      await reconcilePass(client, { now: () => NOW, log: silentLogger, namespace: "default", setName: "web", hints: { orphans: lookup as OrphanLookup } });
      expect(requests().filter((q) => q.includes("labelSelector=app%3Dweb"))).toHaveLength(2);
    }
  });

  it("never unfiltered: a set whose selector is empty (written around the webhook) lists nothing by it", async () => {
    const { fake, pass, requests } = setup();
    const m = setManifest({ replicas: 0 });
    fake.seed({ ...m, spec: { ...m.spec, selector: {} } });
    requests();
    const r = await pass();
    expect(r.sets[0]).toMatchObject({ set: "default/web", error: undefined });
    const podLists = requests().filter((q) => q.startsWith("list pods"));
    expect(podLists).toHaveLength(1);
    expect(podLists[0]).toContain("labelSelector=ordinal.dev%2Fstatefulset");
  });
});
