/**
 * Claim templates that change (issue 23) against the real kube-apiserver 1.20, whose
 * PersistentVolumeClaimResize admission plugin (on by default) lets a claim grow only when it is
 * bound and its StorageClass has allowVolumeExpansion: true. The reconciler (its least-privilege
 * identity, which may list StorageClasses and patch claims) drives the set; the test plays the
 * kubelet, the PV controller (binds each new claim at its request) and the external resizer (a
 * grown claim's capacity follows one step later). Then, with the webhooks of `ordinal serve`,
 * the changes refused at apply time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Event, PersistentVolumeClaim, Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { isRunningAndReady } from "../../src/core/pod-state.ts";
import { ApiError, isAlreadyExists } from "../../src/kube/client.ts";
import { R } from "../../src/kube/resources.ts";
import type { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { setManifest } from "../support/fixtures.ts";
import { startRegisteredServer, unregisterWebhooks, type Running } from "./servers.ts";
import { admin, kubectlResult, kubeletFor, listPods, newNamespace, reconcileInProcess, setupCluster, sleep } from "./support.ts";

const GROWS = "ordinal-e2e-grows";
const FIXED = "ordinal-e2e-fixed";

const template = (name: string, storage: string, storageClassName: string) => ({
  metadata: { name },
  spec: { storageClassName, accessModes: ["ReadWriteOnce"], resources: { requests: { storage } } },
});
const webSet = (ns: string, claims: ReturnType<typeof template>[]) =>
  setManifest({
    namespace: ns,
    replicas: 3,
    image: "nginx:1.25",
    container: "nginx",
    spec: { volumeClaimTemplates: claims, volumeClaimUpdateStrategy: { type: "OnPodRollingUpdate" } },
  });

const claimsOf = async (ns: string) => (await admin.list<PersistentVolumeClaim>(R.pvcs, ns)).sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!));
const getSet = async (ns: string) => (await admin.get<StatefulSet>(R.statefulSets, ns, "web"))!;
const setClaims = (ns: string, claims: ReturnType<typeof template>[]) => admin.patch(R.statefulSets, ns, "web", { spec: { volumeClaimTemplates: claims } }, "merge");
const reasons = async (ns: string) => (await admin.list<Event>(R.events, ns)).map((e) => e.reason ?? "");
const size = (c: PersistentVolumeClaim) => `${c.spec?.resources?.requests?.storage}/${c.status?.capacity?.storage}`;

/** Claims the PV controller leaves as they are (by namespace/name): e.g. one the test made Pending. */
const unbound = new Set<string>();

/** volumes plays the PV controller (a Pending claim becomes Bound at its request) and the resizer (capacity follows a grown request). */
async function volumes(ns: string): Promise<void> {
  for (const c of await claimsOf(ns)) {
    if (unbound.has(`${ns}/${c.metadata!.name!}`)) continue;
    const request = c.spec?.resources?.requests?.storage;
    if (c.status?.phase === "Bound" && c.status.capacity?.storage === request) continue;
    await admin.patch(R.pvcs, ns, c.metadata!.name!, { status: { phase: "Bound", accessModes: c.spec?.accessModes, capacity: { storage: request } } }, "merge", "status");
  }
}

/** step: the volume controllers, one reconcile invocation, one kubelet step. */
async function step(ns: string, kubelet: KubeletPlayer): Promise<void> {
  await volumes(ns);
  await reconcileInProcess(ns);
  await kubelet.step();
  await sleep(100);
}

const allReady = (pods: Pod[]) => pods.length === 3 && pods.every((p) => isRunningAndReady(p) && !p.metadata?.deletionTimestamp);

/** running creates the set in a fresh namespace and drives it until its 3 pods are Ready and its claims bound. */
async function running(prefix: string, claims: ReturnType<typeof template>[]): Promise<{ ns: string; kubelet: KubeletPlayer }> {
  const ns = await newNamespace(prefix);
  const kubelet = kubeletFor(ns);
  await admin.create(R.statefulSets, ns, webSet(ns, claims));
  for (let i = 0; i < 40 && !allReady(await listPods(ns)); i++) await step(ns, kubelet);
  await step(ns, kubelet);
  expect(allReady(await listPods(ns))).toBe(true);
  return { ns, kubelet };
}

beforeAll(async () => {
  await setupCluster();
  for (const [name, allowVolumeExpansion] of [[GROWS, true], [FIXED, false]] as const) {
    try {
      await admin.create(R.storageClasses, undefined, { apiVersion: "storage.k8s.io/v1", kind: "StorageClass", metadata: { name }, provisioner: "example.com/none", allowVolumeExpansion });
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  }
  // The resize plugin reads StorageClasses from its informer: give it a moment to see them.
  await sleep(1500);
});

describe("a larger storage request (OnPodRollingUpdate, a class that allows expansion)", () => {
  it("reaches every claim in rollout order, one resize at a time, without restarting a pod", async () => {
    const { ns, kubelet } = await running("claims-grow", [template("data", "1Gi", GROWS)]);
    const uids = (await listPods(ns)).map((p) => p.metadata?.uid).sort();
    await setClaims(ns, [template("data", "2Gi", GROWS)]);
    const order: string[] = [];
    for (let i = 0; i < 40 && order.length < 3; i++) {
      await step(ns, kubelet);
      const claims = await claimsOf(ns);
      expect(claims.filter((c) => size(c) === "2Gi/1Gi").length, "resizing at once").toBeLessThanOrEqual(1);
      for (const c of claims) if (c.spec?.resources?.requests?.storage === "2Gi" && !order.includes(c.metadata!.name!)) order.push(c.metadata!.name!);
    }
    expect(order).toEqual(["data-web-2", "data-web-1", "data-web-0"]);
    for (let i = 0; i < 3; i++) await step(ns, kubelet);
    expect((await claimsOf(ns)).map(size)).toEqual(["2Gi/2Gi", "2Gi/2Gi", "2Gi/2Gi"]);
    expect((await getSet(ns)).status?.volumeClaims).toEqual([{ volumeClaimName: "data", compatibleReplicas: 3, compatibleReadyReplicas: 3 }]);
    expect((await listPods(ns)).map((p) => p.metadata?.uid).sort()).toEqual(uids);
    expect((await reasons(ns)).filter((r) => r === "SuccessfulResize")).toHaveLength(3);
  });
});

describe("a claim to grow that is not Bound", () => {
  it("is left (the apiserver refuses to grow it) and named in Progressing WaitingForClaim; it grows once Bound", async () => {
    const { ns, kubelet } = await running("claims-unbound", [template("data", "1Gi", GROWS)]);
    unbound.add(`${ns}/data-web-1`);
    await admin.patch(R.pvcs, ns, "data-web-1", { status: { phase: "Pending", capacity: null } }, "merge", "status");
    // The oracle: the apiserver refuses growing a claim that is not bound (validation, 422).
    const refused = await admin
      .patch(R.pvcs, ns, "data-web-1", { spec: { resources: { requests: { storage: "2Gi" } } } }, "merge")
      .then(() => undefined, (e: unknown) => e);
    expect((refused as ApiError).code).toBe(422);
    expect((refused as ApiError).message).toContain("spec is immutable after creation except resources.requests for bound claims");
    await setClaims(ns, [template("data", "2Gi", GROWS)]);
    for (let i = 0; i < 12; i++) await step(ns, kubelet);
    expect((await claimsOf(ns)).map(size)).toEqual(["2Gi/2Gi", "1Gi/undefined", "2Gi/2Gi"]);
    const progressing = async () => (await getSet(ns)).status?.conditions?.find((c) => c.type === "Progressing");
    expect(await progressing()).toMatchObject({ status: "True", reason: "WaitingForClaim" });
    expect((await progressing())?.message).toContain("claim data-web-1 is not Bound (Pending): it grows to 2Gi once it is");
    unbound.delete(`${ns}/data-web-1`);
    for (let i = 0; i < 6; i++) await step(ns, kubelet);
    expect((await claimsOf(ns)).map(size)).toEqual(["2Gi/2Gi", "2Gi/2Gi", "2Gi/2Gi"]);
    expect(await progressing()).toMatchObject({ status: "True", reason: "RolloutComplete" });
  });
});

describe("a class without allowVolumeExpansion", () => {
  it("is reported in a condition and an event; no claim is written (the apiserver would refuse it)", async () => {
    const { ns, kubelet } = await running("claims-fixed", [template("data", "1Gi", FIXED)]);
    // The oracle: the apiserver itself refuses growing such a claim.
    const refused = await admin
      .patch(R.pvcs, ns, "data-web-0", { spec: { resources: { requests: { storage: "2Gi" } } } }, "merge")
      .then(() => undefined, (e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe(403);
    expect((refused as ApiError).message).toContain("the storageclass that provisions the pvc must support resize");
    const versions = (await claimsOf(ns)).map((c) => c.metadata?.resourceVersion);
    await setClaims(ns, [template("data", "2Gi", FIXED)]);
    for (let i = 0; i < 4; i++) await step(ns, kubelet);
    expect((await claimsOf(ns)).map((c) => c.metadata?.resourceVersion)).toEqual(versions);
    const set = await getSet(ns);
    const cond = set.status?.conditions?.find((c) => c.type === "VolumeExpansionBlocked");
    expect(cond?.status).toBe("True");
    expect(cond?.message).toContain(`claim data-web-2: StorageClass "${FIXED}" does not allow volume expansion`);
    expect(set.status?.volumeClaims).toEqual([{ volumeClaimName: "data", compatibleReplicas: 0, compatibleReadyReplicas: 0 }]);
    const r = await reasons(ns);
    expect(r.filter((x) => x === "VolumeExpansionBlocked")).toHaveLength(1);
    expect(r.filter((x) => x === "FailedResize")).toHaveLength(0);
  });
});

describe("a claim template added to a running set", () => {
  it("gives every pod its new claim, recreating the pods in rollout order; the existing claims are kept", async () => {
    const { ns, kubelet } = await running("claims-add", [template("data", "1Gi", GROWS)]);
    const before = Object.fromEntries((await listPods(ns)).map((p) => [p.metadata!.name!, p.metadata!.uid!]));
    const dataUids = (await claimsOf(ns)).map((c) => c.metadata?.uid);
    await setClaims(ns, [template("data", "1Gi", GROWS), template("logs", "1Gi", GROWS)]);
    const recreated: string[] = [];
    for (let i = 0; i < 60; i++) {
      await step(ns, kubelet);
      const pods = await listPods(ns);
      for (const p of pods) if (before[p.metadata!.name!] !== p.metadata!.uid && !recreated.includes(p.metadata!.name!)) recreated.push(p.metadata!.name!);
      if (recreated.length === 3 && allReady(pods)) break;
    }
    expect(recreated).toEqual(["web-2", "web-1", "web-0"]);
    const mounts = (await listPods(ns)).map((p) => (p.spec?.volumes ?? []).flatMap((v) => (v.persistentVolumeClaim ? [v.persistentVolumeClaim.claimName] : [])).sort());
    expect(mounts).toEqual([0, 1, 2].map((i) => [`data-web-${i}`, `logs-web-${i}`]));
    const claims = await claimsOf(ns);
    expect(claims.map((c) => c.metadata?.name)).toEqual(["data-web-0", "data-web-1", "data-web-2", "logs-web-0", "logs-web-1", "logs-web-2"]);
    expect(claims.slice(0, 3).map((c) => c.metadata?.uid)).toEqual(dataUids);
  });
});

describe("changes refused at apply time (webhooks of `ordinal serve`)", () => {
  let server: Running;
  let ns: string;
  beforeAll(async () => {
    ns = await newNamespace("claims-refused");
    await admin.create(R.statefulSets, ns, webSet(ns, [template("data", "2Gi", GROWS), template("logs", "1Gi", GROWS)]));
    server = await startRegisteredServer();
  });
  afterAll(async () => {
    await server?.stop();
    unregisterWebhooks();
  });
  const apply = (claims: ReturnType<typeof template>[]) => kubectlResult(["apply", "-f", "-"], JSON.stringify(webSet(ns, claims)));

  it.each([
    ["removing a template", [template("data", "2Gi", GROWS)], `spec.volumeClaimTemplates: Forbidden: volume claim template "logs" may not be removed`],
    ["shrinking a request", [template("data", "1Gi", GROWS), template("logs", "1Gi", GROWS)], "spec.volumeClaimTemplates[0].spec.resources.requests.storage: Forbidden: may not be less than the previous value 2Gi"],
    ["another storage class under OnPodRollingUpdate", [template("data", "2Gi", FIXED), template("logs", "1Gi", GROWS)], "spec.volumeClaimTemplates[0]: Forbidden: with volumeClaimUpdateStrategy OnPodRollingUpdate only spec.resources.requests.storage may change"],
  ])("%s is refused with the field's error", (_, claims, message) => {
    const r = apply(claims);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(message);
  });

  it("a larger request is admitted", () => {
    const r = apply([template("data", "3Gi", GROWS), template("logs", "1Gi", GROWS)]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });
});
