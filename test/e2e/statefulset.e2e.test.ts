/**
 * The core against the real kube-apiserver: the reconciler (as its least-privilege identity)
 * drives pods, PVCs and ControllerRevisions while the test plays the kubelet.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { ControllerRevision, PersistentVolumeClaim, Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { getPodRevision } from "../../src/core/pod-state.ts";
import { R } from "../../src/kube/resources.ts";
import { setManifest } from "../support/fixtures.ts";
import { allReady, driveUntil, reconcileStep } from "./driver.ts";
import { admin, kubectl, kubectlResult, kubeletFor, listPods, newNamespace, reconcileCli, setupCluster, sleep } from "./support.ts";

const webSet = (ns: string, extra: Record<string, unknown> = {}) =>
  setManifest({ namespace: ns, image: "nginx:1.25", container: "nginx", claims: ["www"], spec: extra });

const getSet = (ns: string) => admin.get<StatefulSet>(R.statefulSets, ns, "web");
const claims = async (ns: string) => (await admin.list<PersistentVolumeClaim>(R.pvcs, ns)).map((c) => c.metadata!.name!).sort();
const patchSpec = (ns: string, spec: Record<string, unknown>) => admin.patch(R.statefulSets, ns, "web", { spec }, "merge");
const setImage = (ns: string, image: string) => patchSpec(ns, { template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image }] } } });
const names = (pods: Pod[]) => pods.map((p) => p.metadata!.name!);
const uids = (pods: Pod[]) => Object.fromEntries(pods.map((p) => [p.metadata!.name!, p.metadata!.uid!]));

beforeAll(setupCluster);

describe("OrderedReady set with a volumeClaimTemplate, driven by `ordinal reconcile --once`", () => {
  let ns: string;
  beforeAll(async () => {
    ns = await newNamespace("ordered");
    await admin.create(R.statefulSets, ns, webSet(ns));
  });

  it("creates web-0 and its PVC first, and not web-1 while web-0 is not Ready", async () => {
    const out = reconcileCli(ns);
    expect(out).toMatch(/createClaim www-web-0/);
    expect(out).toMatch(/createPod web-0/);
    const pods = await listPods(ns);
    expect(names(pods)).toEqual(["web-0"]);
    const pvc = await admin.get<PersistentVolumeClaim>(R.pvcs, ns, "www-web-0");
    expect(pvc).toBeDefined();
    expect(Number(pvc!.metadata!.resourceVersion)).toBeLessThan(Number(pods[0].metadata!.resourceVersion));
    expect(pods[0].spec?.volumes?.find((v) => v.name === "www")?.persistentVolumeClaim?.claimName).toBe("www-web-0");
    expect(pods[0].metadata?.labels).toMatchObject({ "statefulset.kubernetes.io/pod-name": "web-0", "apps.kubernetes.io/pod-index": "0" });
    expect(pods[0].spec).toMatchObject({ hostname: "web-0", subdomain: "web" });
    // No kubelet yet: web-0 stays Pending, so repeated passes must not create web-1.
    for (let i = 0; i < 2; i++) reconcileCli(ns);
    expect(names(await listPods(ns))).toEqual(["web-0"]);
  });

  it("then creates web-1 only after web-0 is Ready, then web-2, each PVC before its pod", async () => {
    const kubelet = kubeletFor(ns);
    const steps = await driveUntil(ns, allReady(3), { kubelet, cli: true });
    const order = steps.flatMap((s) => s.created);
    expect(order).toEqual(["web-1", "web-2"]);
    expect(await claims(ns)).toEqual(["www-web-0", "www-web-1", "www-web-2"]);
    const set = await getSet(ns);
    const pods = await listPods(ns);
    const rev = getPodRevision(pods[0]);
    expect(set!.status).toMatchObject({
      observedGeneration: set!.metadata.generation,
      replicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
      currentRevision: rev,
      updateRevision: rev,
    });
    const revs = await admin.list<ControllerRevision>(R.controllerRevisions, ns);
    expect(revs.map((r) => r.metadata!.name)).toEqual([rev]);
    expect(pods.every((p) => p.status?.conditions?.some((c) => c.type === "InPlaceUpdateReady" && c.status === "True"))).toBe(true);
  });

  it("scales 3→1 deleting web-2, then web-1 after web-2 is gone, keeping their PVCs", async () => {
    await patchSpec(ns, { replicas: 1 });
    const kubelet = kubeletFor(ns);
    // One pass: web-2 starts terminating; web-1 is untouched while it does.
    let step = await reconcileStep(ns);
    expect(step.deleted).toEqual(["web-2"]);
    step = await reconcileStep(ns);
    expect(step.deleted).toEqual([]);
    expect(step.after.find((p) => p.metadata!.name === "web-1")?.metadata?.deletionTimestamp).toBeUndefined();
    const steps = await driveUntil(ns, allReady(1), { kubelet });
    expect(steps.flatMap((s) => s.deleted)).toEqual(["web-1"]);
    expect(await claims(ns)).toEqual(["www-web-0", "www-web-1", "www-web-2"]);
    const set = await getSet(ns);
    expect(set!.status).toMatchObject({ replicas: 1, readyReplicas: 1, currentReplicas: 1, updatedReplicas: 1 });
  });

  it("scales back to 3 reusing the PVCs", async () => {
    await patchSpec(ns, { replicas: 3 });
    await driveUntil(ns, allReady(3), { kubelet: kubeletFor(ns) });
    expect(await claims(ns)).toEqual(["www-web-0", "www-web-1", "www-web-2"]);
  });

  it("rolls a template change through web-2, web-1, web-0, one at a time, each with the new revision", async () => {
    const oldRev = getPodRevision((await listPods(ns))[0]);
    await setImage(ns, "nginx:1.26");
    const kubelet = kubeletFor(ns);
    const steps = await driveUntil(ns, (pods) => allReady(3)(pods) && pods.every((p) => getPodRevision(p) !== oldRev), { kubelet, ordered: false });
    expect(steps.flatMap((s) => s.deleted)).toEqual(["web-2", "web-1", "web-0"]);
    for (const s of steps) expect(s.after.filter((p) => p.status?.phase !== "Running" || p.metadata?.deletionTimestamp || !p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")).length).toBeLessThanOrEqual(1);
    const pods = await listPods(ns);
    const set = await getSet(ns);
    expect(new Set(pods.map(getPodRevision))).toEqual(new Set([set!.status!.updateRevision]));
    expect(set!.status!.updateRevision).not.toBe(oldRev);
    expect(set!.status).toMatchObject({ currentRevision: set!.status!.updateRevision, currentReplicas: 3, updatedReplicas: 3, readyReplicas: 3 });
    expect(pods.every((p) => p.spec!.containers[0].image === "nginx:1.26")).toBe(true);
  });

  it("with partition 2 updates only web-2", async () => {
    await patchSpec(ns, { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } } });
    const before = uids(await listPods(ns));
    await setImage(ns, "nginx:1.27");
    const kubelet = kubeletFor(ns);
    await driveUntil(ns, (pods) => allReady(3)(pods) && pods.find((p) => p.metadata!.name === "web-2")!.spec!.containers[0].image === "nginx:1.27", { kubelet, ordered: false });
    for (let i = 0; i < 3; i++) {
      await reconcileStep(ns);
      await kubelet.step();
    }
    const pods = await listPods(ns);
    expect(uids(pods)["web-0"]).toBe(before["web-0"]);
    expect(uids(pods)["web-1"]).toBe(before["web-1"]);
    expect(pods.map((p) => p.spec!.containers[0].image)).toEqual(["nginx:1.26", "nginx:1.26", "nginx:1.27"]);
    const set = await getSet(ns);
    expect(set!.status).toMatchObject({ updatedReplicas: 1, currentReplicas: 2, replicas: 3 });
    expect(set!.status!.currentRevision).not.toBe(set!.status!.updateRevision);
  });

  it("with OnDelete updates nothing until a pod is deleted, then recreates it at the update revision", async () => {
    await patchSpec(ns, { updateStrategy: { type: "OnDelete", rollingUpdate: null } });
    await setImage(ns, "nginx:1.28");
    const kubelet = kubeletFor(ns);
    const before = uids(await listPods(ns));
    for (let i = 0; i < 4; i++) {
      const s = await reconcileStep(ns);
      expect(s.deleted).toEqual([]);
      await kubelet.step();
    }
    expect(uids(await listPods(ns))).toEqual(before);
    kubectl(["-n", ns, "delete", "pod", "web-1", "--wait=false"]);
    await driveUntil(ns, (pods) => allReady(3)(pods) && pods.find((p) => p.metadata!.name === "web-1")!.metadata!.uid !== before["web-1"], { kubelet, ordered: false });
    const pods = await listPods(ns);
    expect(pods.map((p) => p.spec!.containers[0].image)).toEqual(["nginx:1.26", "nginx:1.28", "nginx:1.27"]);
    const set = await getSet(ns);
    expect(getPodRevision(pods[1])).toBe(set!.status!.updateRevision);
  });

  it("deleting the set removes its pods through the garbage collector and keeps the PVCs", async () => {
    kubectl(["-n", ns, "delete", "osts", "web", "--wait=false"]);
    const kubelet = kubeletFor(ns);
    // kube-controller-manager's garbage collector learns new CRDs on its discovery resync
    // (30 s), so on a fresh cluster this can take that long.
    for (let i = 0; i < 200; i++) {
      await kubelet.step();
      if ((await listPods(ns)).length === 0) break;
      await sleep(500);
    }
    expect(await listPods(ns)).toEqual([]);
    expect(await claims(ns)).toEqual(["www-web-0", "www-web-1", "www-web-2"]);
  });
});

describe("least-privilege RBAC of the reconciler identity", () => {
  it.each([
    ["delete", "persistentvolumeclaims", "no"],
    ["get", "secrets", "no"],
    ["update", "pods", "no"],
    ["create", "pods", "yes"],
    ["patch", "persistentvolumeclaims", "yes"],
  ])("can-i %s %s: %s", (verb, resource, answer) => {
    const r = kubectlResult(["auth", "can-i", verb, resource, "--as", "ordinal-reconciler", "-n", "default"]);
    expect(r.stdout.trim() || r.stderr.trim()).toBe(answer);
  });
});

describe("Parallel pod management", () => {
  it("creates all pods at once and scales down all condemned pods at once", async () => {
    const ns = await newNamespace("parallel");
    await admin.create(R.statefulSets, ns, webSet(ns, { podManagementPolicy: "Parallel" }));
    const first = await reconcileStep(ns, { ordered: false });
    expect(first.created.sort()).toEqual(["web-0", "web-1", "web-2"]);
    await driveUntil(ns, allReady(3), { kubelet: kubeletFor(ns), ordered: false });
    await patchSpec(ns, { replicas: 1 });
    const down = await reconcileStep(ns, { ordered: false });
    expect(down.deleted.sort()).toEqual(["web-1", "web-2"]);
  });
});

describe("failed pods and retention policy", () => {
  it("deletes and recreates a failed pod", async () => {
    const ns = await newNamespace("failed");
    await admin.create(R.statefulSets, ns, webSet(ns, { replicas: 2 }));
    const failPods = new Set<string>();
    const kubelet = kubeletFor(ns, { failPods });
    await driveUntil(ns, allReady(2), { kubelet });
    const before = uids(await listPods(ns));
    failPods.add("web-0");
    await kubelet.step();
    expect((await listPods(ns))[0].status?.phase).toBe("Failed");
    await driveUntil(ns, (pods) => allReady(2)(pods) && pods[0].metadata!.uid !== before["web-0"], { kubelet, ordered: false });
  });

  it("whenScaled: Delete lets the garbage collector delete the claims of scaled-down pods, and only those", async () => {
    const ns = await newNamespace("retention");
    await admin.create(R.statefulSets, ns, webSet(ns, { persistentVolumeClaimRetentionPolicy: { whenScaled: "Delete", whenDeleted: "Retain" } }));
    const kubelet = kubeletFor(ns);
    await driveUntil(ns, allReady(3), { kubelet });
    await patchSpec(ns, { replicas: 1 });
    await driveUntil(ns, allReady(1), { kubelet });
    for (let i = 0; i < 40 && (await claims(ns)).length > 1; i++) await sleep(500);
    expect(await claims(ns)).toEqual(["www-web-0"]);
  });
});
