/**
 * In-place image updates, pause, maxUnavailable and healing against the real kube-apiserver: the
 * reconciler (its least-privilege identity) drives the set while the test plays the kubelet, and
 * the apiserver itself accepts (or refuses) every pod write.
 */
import { execFileSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import type { Event, Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { INPLACE_STATE_ANNOTATION } from "../../src/objects/constants.ts";
import { gateCondition } from "../../src/core/inplace-state.ts";
import { getPodRevision, isRunningAndReady } from "../../src/core/pod-state.ts";
import { R } from "../../src/kube/resources.ts";
import type { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { setManifest } from "../support/fixtures.ts";
import { admin, env, kubeletFor, listPods, newNamespace, reconcileInProcess, setupCluster, sleep } from "./support.ts";

const template = (image: string, extra: { labels?: Record<string, string>; env?: boolean } = {}) => ({
  metadata: { labels: { app: "web", ...extra.labels } },
  spec: { containers: [{ name: "nginx", image, ...(extra.env ? { env: [{ name: "MODE", value: "x" }] } : {}) }] },
});

const webSet = (ns: string, rollingUpdate: Record<string, unknown>, replicas = 3) =>
  setManifest({ namespace: ns, replicas, image: "nginx:1.25", container: "nginx", spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate } } });

const getSet = async (ns: string) => (await admin.get<StatefulSet>(R.statefulSets, ns, "web"))!;
const patchSpec = (ns: string, spec: Record<string, unknown>) => admin.patch(R.statefulSets, ns, "web", { spec }, "merge");
const events = async (ns: string) => (await admin.list<Event>(R.events, ns)).map((e) => `${e.reason}: ${e.message}`);
const uids = (pods: Pod[]) => Object.fromEntries(pods.map((p) => [p.metadata!.name!, p.metadata!.uid!]));
const image = (p: Pod) => p.spec!.containers[0].image;
const gate = (p: Pod) => gateCondition(p)?.status;
const unavailable = (pods: Pod[]) => pods.filter((p) => !isRunningAndReady(p) || p.metadata?.deletionTimestamp).length;

/** settled is true when `n` pods run `img`, Ready, with the gate True and no in-place state left. */
const settled = (n: number, img: string) => (pods: Pod[]) =>
  pods.length === n &&
  pods.every((p) => image(p) === img && isRunningAndReady(p) && gate(p) === "True" && !p.metadata?.annotations?.[INPLACE_STATE_ANNOTATION] && !p.metadata?.deletionTimestamp);

/**
 * drive alternates one reconcile invocation and one kubelet step (with a short real-time pause:
 * the grace period is real time here) until `done` holds; returns the pods seen after each
 * half-step (even indexes after a reconcile, odd ones after a kubelet step).
 */
async function drive(ns: string, kubelet: KubeletPlayer, done: (pods: Pod[]) => boolean, maxSteps = 80): Promise<Pod[][]> {
  const seen: Pod[][] = [];
  for (let i = 0; i < maxSteps; i++) {
    await reconcileInProcess(ns);
    seen.push(await listPods(ns));
    await kubelet.step();
    const after = await listPods(ns);
    seen.push(after);
    if (done(after)) {
      // One more pass, so the set's status reports what the kubelet just did.
      await reconcileInProcess(ns);
      return seen;
    }
    await sleep(250);
  }
  const pods = await listPods(ns);
  throw new Error(`not settled: ${pods.map((p) => `${p.metadata!.name}:${image(p)}:${gate(p)}:${isRunningAndReady(p)}:${getPodRevision(p)}`).join(", ")}`);
}

/** firstChange returns the pod names in the order their image first became `img`. */
function firstChange(seen: Pod[][], img: string): string[] {
  const order: string[] = [];
  for (const pods of seen) for (const p of pods) if (image(p) === img && !order.includes(p.metadata!.name!)) order.push(p.metadata!.name!);
  return order;
}

beforeAll(setupCluster);

describe("InPlaceIfPossible with gracePeriodSeconds 2", () => {
  let ns: string;
  let kubelet: KubeletPlayer;
  beforeAll(async () => {
    ns = await newNamespace("inplace");
    kubelet = kubeletFor(ns);
    await admin.create(R.statefulSets, ns, webSet(ns, { podUpdatePolicy: "InPlaceIfPossible", inPlaceUpdateStrategy: { gracePeriodSeconds: 2 } }));
    await drive(ns, kubelet, settled(3, "nginx:1.25"));
  });

  it("an image change keeps the three pod UIDs, goes web-2, web-1, web-0, gate False during each update and True (InPlaceUpdateDone) after", async () => {
    const before = await listPods(ns);
    const oldRev = getPodRevision(before[0]);
    await patchSpec(ns, { template: template("nginx:1.26") });
    const seen = await drive(ns, kubelet, settled(3, "nginx:1.26"));
    const after = await listPods(ns);
    expect(uids(after)).toEqual(uids(before));
    expect(after.map((p) => p.spec?.nodeName)).toEqual(before.map((p) => p.spec?.nodeName));
    expect(firstChange(seen, "nginx:1.26")).toEqual(["web-2", "web-1", "web-0"]);
    for (const name of ["web-0", "web-1", "web-2"]) {
      const states = seen.map((pods) => pods.find((p) => p.metadata!.name === name)!);
      // Gated before its image changed, and never Ready while gated.
      const changedAt = states.findIndex((p) => image(p) === "nginx:1.26");
      expect(states.slice(0, changedAt).some((p) => gate(p) === "False" && gateCondition(p)?.reason === "StartInPlaceUpdate"), name).toBe(true);
      expect(gate(states[changedAt]), name).toBe("False");
      // As the kubelet reports it (right after the gate write, Ready is stale until the kubelet's next sync).
      states.forEach((p, i) => {
        if (i % 2 === 1 && gate(p) === "False") expect(isRunningAndReady(p), `${name} Ready while gated`).toBe(false);
      });
      const last = after.find((p) => p.metadata!.name === name)!;
      expect(gateCondition(last)).toMatchObject({ status: "True", reason: "InPlaceUpdateDone" });
      expect(last.status?.containerStatuses?.[0]).toMatchObject({ image: "nginx:1.26", restartCount: 1 });
    }
    for (const pods of seen) expect(unavailable(pods)).toBeLessThanOrEqual(1);
    const set = await getSet(ns);
    expect(set.status).toMatchObject({ updatedReplicas: 3, currentReplicas: 3, readyReplicas: 3 });
    expect(set.status?.updateRevision).not.toBe(oldRev);
    expect(set.status?.currentRevision).toBe(set.status?.updateRevision);
    expect(set.status?.conditions?.find((c) => c.type === "Progressing")).toMatchObject({ status: "True", reason: "RolloutComplete" });
    expect((await events(ns)).filter((e) => e.startsWith("SuccessfulUpdatePodInPlace"))).toHaveLength(3);
  });

  it("a label-plus-env change falls back to recreate, with an event naming the JSON pointer", async () => {
    const before = uids(await listPods(ns));
    await patchSpec(ns, { template: template("nginx:1.27", { labels: { tier: "web" }, env: true }) });
    await drive(ns, kubelet, settled(3, "nginx:1.27"));
    const after = await listPods(ns);
    for (const p of after) expect(p.metadata!.uid).not.toBe(before[p.metadata!.name!]);
    expect(after.every((p) => p.metadata?.labels?.tier === "web")).toBe(true);
    const fallbacks = (await events(ns)).filter((e) => e.startsWith("InPlaceUpdateFallback"));
    expect(fallbacks).toHaveLength(3);
    for (const e of fallbacks) expect(e).toContain("patch cannot use in-place update: /spec/containers/0/env");
  });

  it("InPlaceOnly refuses such a change: pods untouched, InPlaceUpdateBlocked names the pointer, a warning event", async () => {
    await patchSpec(ns, { updateStrategy: { rollingUpdate: { podUpdatePolicy: "InPlaceOnly" } }, template: template("nginx:1.27", { labels: { tier: "web" } }) });
    const before = await listPods(ns);
    for (let i = 0; i < 4; i++) {
      await reconcileInProcess(ns);
      await kubelet.step();
    }
    const after = await listPods(ns);
    expect(uids(after)).toEqual(uids(before));
    expect(after.map(getPodRevision)).toEqual(before.map(getPodRevision));
    const set = await getSet(ns);
    const blocked = set.status?.conditions?.find((c) => c.type === "InPlaceUpdateBlocked");
    expect(blocked).toMatchObject({ status: "True", reason: "InPlaceOnly" });
    expect(blocked?.message).toContain("patch cannot use in-place update: /spec/containers/0/env");
    expect((await events(ns)).filter((e) => e.startsWith("InPlaceUpdateBlocked"))).toHaveLength(1);
  });
});

describe("paused and maxUnavailable", () => {
  let ns: string;
  let kubelet: KubeletPlayer;
  beforeAll(async () => {
    ns = await newNamespace("pause");
    kubelet = kubeletFor(ns);
    await admin.create(R.statefulSets, ns, webSet(ns, { podUpdatePolicy: "InPlaceIfPossible", paused: true, maxUnavailable: 2 }));
    await drive(ns, kubelet, settled(3, "nginx:1.25"));
  });

  it("paused: true holds the rollout (scaling goes on), with a Paused condition and an event", async () => {
    const before = await listPods(ns);
    await patchSpec(ns, { template: template("nginx:1.26"), replicas: 4 });
    await drive(ns, kubelet, (pods) => pods.length === 4 && pods.every((p) => isRunningAndReady(p) && gate(p) === "True"));
    for (let i = 0; i < 3; i++) {
      await reconcileInProcess(ns);
      await kubelet.step();
    }
    const pods = await listPods(ns);
    expect(pods.slice(0, 3).map(image)).toEqual(["nginx:1.25", "nginx:1.25", "nginx:1.25"]);
    expect(uids(pods.slice(0, 3))).toEqual(uids(before));
    expect(image(pods[3])).toBe("nginx:1.26");
    const set = await getSet(ns);
    expect(set.status?.conditions?.find((c) => c.type === "Paused")).toMatchObject({ status: "True", reason: "Paused" });
    expect(set.status).toMatchObject({ updatedReplicas: 1 });
    expect((await events(ns)).filter((e) => e.startsWith("RolloutPaused"))).toHaveLength(1);
  });

  it("resuming finishes it in place, two pods at a time (maxUnavailable 2), highest ordinals first", async () => {
    const before = uids(await listPods(ns));
    await patchSpec(ns, { updateStrategy: { rollingUpdate: { paused: false } } });
    const seen = await drive(ns, kubelet, settled(4, "nginx:1.26"));
    expect(uids(await listPods(ns))).toEqual(before);
    // web-2 and web-1 are gated in the same pass, web-0 only after them.
    const gatedTogether = seen.find((pods) => pods.filter((p) => gate(p) === "False").length === 2);
    expect(gatedTogether?.filter((p) => gate(p) === "False").map((p) => p.metadata!.name)).toEqual(["web-1", "web-2"]);
    for (const pods of seen) expect(unavailable(pods)).toBeLessThanOrEqual(2);
    expect(firstChange(seen, "nginx:1.26").slice(-1)).toEqual(["web-0"]);
    const set = await getSet(ns);
    expect(set.status?.conditions?.find((c) => c.type === "Paused")).toMatchObject({ status: "False", reason: "Resumed" });
    expect((await events(ns)).filter((e) => e.startsWith("RolloutResumed"))).toHaveLength(1);
  });
});

describe("healing a stuck rollout (upstream's Forced rollback)", () => {
  it("reverting a template whose pod never becomes Ready heals the set with no manual delete", async () => {
    const ns = await newNamespace("heal");
    const kubelet = kubeletFor(ns, { unreadyImages: (i) => i.endsWith(":broken") });
    await admin.create(R.statefulSets, ns, webSet(ns, {}));
    await drive(ns, kubelet, settled(3, "nginx:1.25"));
    const good = getPodRevision((await listPods(ns))[0]);
    await patchSpec(ns, { template: template("nginx:broken") });
    // web-2 is recreated at the broken revision and never becomes Ready: the rollout is stuck.
    await drive(ns, kubelet, (pods) => pods.some((p) => p.metadata!.name === "web-2" && image(p) === "nginx:broken" && p.status?.phase === "Running"));
    for (let i = 0; i < 4; i++) {
      await reconcileInProcess(ns);
      await kubelet.step();
    }
    let pods = await listPods(ns);
    expect(pods.map(image)).toEqual(["nginx:1.25", "nginx:1.25", "nginx:broken"]);
    expect(isRunningAndReady(pods[2])).toBe(false);
    // Revert: upstream would wait for web-2 forever; Ordinal replaces it.
    await patchSpec(ns, { template: template("nginx:1.25") });
    await drive(ns, kubelet, settled(3, "nginx:1.25"));
    pods = await listPods(ns);
    expect(pods.map(getPodRevision)).toEqual([good, good, good]);
    expect((await events(ns)).some((e) => e.startsWith("HealingRollout") && e.includes("web-2"))).toBe(true);
    const set = await getSet(ns);
    expect(set.status).toMatchObject({ currentRevision: good, updateRevision: good, updatedReplicas: 3, readyReplicas: 3 });
  });
});

describe("ordinal rollout restart under InPlaceIfPossible (maxUnavailable 1)", () => {
  it("recreates every pod, one at a time, with new containers, and updates none in place", async () => {
    const ns = await newNamespace("restart");
    const kubelet = kubeletFor(ns);
    await admin.create(R.statefulSets, ns, webSet(ns, { podUpdatePolicy: "InPlaceIfPossible", maxUnavailable: 1 }));
    await drive(ns, kubelet, settled(3, "nginx:1.25"));
    const before = await listPods(ns);
    const containerIDs = (pods: Pod[]) => Object.fromEntries(pods.map((p) => [p.metadata!.name!, p.status?.containerStatuses?.[0]?.containerID]));
    for (const id of Object.values(containerIDs(before))) expect(id).toMatch(/^sim:\/\//);
    // The CLI, as a person runs it: the same annotation `kubectl rollout restart` writes.
    const out = execFileSync("node", ["src/cli/bin.mjs", "rollout", "restart", "web", "-n", ns], {
      env: { ...process.env, KUBE_API_URL: env.KUBE_API_URL, KUBE_TOKEN: env.KUBE_TOKEN, KUBE_CA_FILE: env.KUBE_CA_FILE, KUBECONFIG: "" },
      encoding: "utf8",
    });
    expect(out).toContain("restarted");
    const restarted = (pods: Pod[]) => settled(3, "nginx:1.25")(pods) && pods.every((p) => p.metadata!.uid !== uids(before)[p.metadata!.name!]);
    const seen = await drive(ns, kubelet, restarted);
    const after = await listPods(ns);
    for (const name of ["web-0", "web-1", "web-2"]) {
      expect(uids(after)[name], name).not.toBe(uids(before)[name]);
      expect(containerIDs(after)[name], name).not.toBe(containerIDs(before)[name]);
    }
    for (const pods of seen) expect(unavailable(pods)).toBeLessThanOrEqual(1);
    const evs = await events(ns);
    expect(evs.filter((e) => e.startsWith("InPlaceUpdateFallback") && e.includes("kubectl.kubernetes.io/restartedAt"))).toHaveLength(3);
    expect(evs.filter((e) => e.startsWith("SuccessfulUpdatePodInPlace"))).toEqual([]);
    const set = await getSet(ns);
    expect(set.status).toMatchObject({ updatedReplicas: 3, currentReplicas: 3, readyReplicas: 3 });
    expect(set.status?.currentRevision).toBe(set.status?.updateRevision);
  });
});
