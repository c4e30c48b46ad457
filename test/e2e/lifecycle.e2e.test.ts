/**
 * Lifecycle hooks (spec.lifecycle, src/core/lifecycle.ts) against the real kube-apiserver: the
 * reconciler (its least-privilege identity) drives the set, the test plays the kubelet and the
 * other controller that removes the hook's label. A preDelete hook holds a scale-in until the
 * label is removed; an inPlaceUpdate hook holds an in-place update until it is removed.
 */
import { spawnSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { gateCondition } from "../../src/core/inplace-state.ts";
import { isRunningAndReady } from "../../src/core/pod-state.ts";
import { R } from "../../src/kube/resources.ts";
import { LIFECYCLE_STATE_LABEL } from "../../src/objects/constants.ts";
import type { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { setManifest } from "../support/fixtures.ts";
import { admin, env, kubectl, kubeletFor, listPods, newNamespace, reconcileInProcess, setupCluster, sleep } from "./support.ts";

const DRAIN = "example.io/drain";
const template = (image: string) => ({ metadata: { labels: { app: "web", [DRAIN]: "true" } }, spec: { containers: [{ name: "nginx", image }] } });
const stateOf = (p: Pod | undefined) => p?.metadata?.labels?.[LIFECYCLE_STATE_LABEL];
const named = (pods: Pod[], name: string) => pods.find((p) => p.metadata?.name === name);

/** drive alternates a reconcile invocation and a kubelet step `steps` times, or until `done` holds. */
async function drive(ns: string, kubelet: KubeletPlayer, steps: number, done: (pods: Pod[]) => boolean = () => false): Promise<Pod[]> {
  for (let i = 0; i < steps; i++) {
    await reconcileInProcess(ns);
    await kubelet.step();
    const pods = await listPods(ns);
    if (done(pods)) {
      await reconcileInProcess(ns);
      return listPods(ns);
    }
    await sleep(100);
  }
  return listPods(ns);
}

const allReady = (n: number) => (pods: Pod[]) => pods.length === n && pods.every((p) => isRunningAndReady(p) && !p.metadata?.deletionTimestamp);
const release = (ns: string, name: string) => admin.patch(R.pods, ns, name, { metadata: { labels: { [DRAIN]: "false" } } }, "merge");
const heldCondition = async (ns: string) => (await admin.get<StatefulSet>(R.statefulSets, ns, "web"))?.status?.conditions?.find((c) => c.type === "LifecycleHookHeld");

/** rolloutStatus runs `ordinal rollout status --no-watch` as the admin and returns what it printed. */
function rolloutStatus(ns: string): string {
  const r = spawnSync("node", ["src/cli/bin.mjs", "rollout", "status", "web", "-n", ns, "--no-watch"], {
    env: { ...process.env, KUBE_API_URL: env.KUBE_API_URL, KUBE_TOKEN: env.KUBE_TOKEN, KUBE_CA_FILE: env.KUBE_CA_FILE, KUBECONFIG: "" },
    encoding: "utf8",
  });
  return `${r.stdout}${r.stderr}`;
}

beforeAll(setupCluster);

describe("the CRD", () => {
  it("kubectl explain describes spec.lifecycle and its handlers", () => {
    expect(kubectl(["explain", "osts.spec.lifecycle", "--api-version=apps.ordinal.dev/v1"])).toMatch(/Lifecycle hooks/);
    expect(kubectl(["explain", "osts.spec.lifecycle.preDelete.labelsHandler", "--api-version=apps.ordinal.dev/v1"])).toMatch(/hold the pod in\s+PreparingDelete/);
    expect(kubectl(["explain", "osts.spec.lifecycle.inPlaceUpdate.markPodNotReady", "--api-version=apps.ordinal.dev/v1"])).toMatch(/InPlaceUpdateReady/);
  });
});

describe("preDelete hook held by a label", () => {
  it("a scale-in waits in PreparingDelete, out of traffic, until the label is removed; then the pod goes and the others stay", async () => {
    const ns = await newNamespace("lifecycle-del");
    const kubelet = kubeletFor(ns);
    const set = setManifest({ namespace: ns, replicas: 3, spec: { template: template("nginx:1.25"), lifecycle: { preDelete: { labelsHandler: { [DRAIN]: "true" }, markPodNotReady: true } } } });
    await admin.create(R.statefulSets, ns, set);
    const before = await drive(ns, kubelet, 40, allReady(3));
    expect(before.map(stateOf)).toEqual(["Normal", "Normal", "Normal"]);
    await admin.patch(R.statefulSets, ns, "web", { spec: { replicas: 2 } }, "merge");
    const held = await drive(ns, kubelet, 6);
    const web2 = named(held, "web-2");
    expect(web2?.metadata?.deletionTimestamp).toBeUndefined();
    expect(stateOf(web2)).toBe("PreparingDelete");
    expect(gateCondition(web2!)).toMatchObject({ status: "False", reason: "PreparingDelete" });
    expect(isRunningAndReady(web2!)).toBe(false);
    expect(await heldCondition(ns)).toMatchObject({ status: "True", message: expect.stringContaining("pod web-2 PreparingDelete: label example.io/drain=true") });
    expect(rolloutStatus(ns)).toContain("waits on a lifecycle hook");
    await release(ns, "web-2");
    const after = await drive(ns, kubelet, 30, (pods) => pods.length === 2);
    expect(after.map((p) => p.metadata?.name)).toEqual(["web-0", "web-1"]);
    expect(after.map((p) => p.metadata?.uid)).toEqual(before.slice(0, 2).map((p) => p.metadata?.uid));
    await reconcileInProcess(ns);
    expect(await heldCondition(ns)).toMatchObject({ status: "False" });
  });
});

describe("inPlaceUpdate hook held by a label", () => {
  it("an in-place update waits in PreparingUpdate until the label is removed, then the images change in place: Updated, Normal once the label is back", async () => {
    const ns = await newNamespace("lifecycle-inplace");
    const kubelet = kubeletFor(ns);
    const set = setManifest({
      namespace: ns,
      replicas: 2,
      spec: {
        template: template("nginx:1.25"),
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible" } },
        lifecycle: { inPlaceUpdate: { labelsHandler: { [DRAIN]: "true" } } },
      },
    });
    await admin.create(R.statefulSets, ns, set);
    const before = await drive(ns, kubelet, 40, allReady(2));
    await admin.patch(R.statefulSets, ns, "web", { spec: { template: template("nginx:1.26") } }, "merge");
    const held = await drive(ns, kubelet, 6);
    expect(stateOf(named(held, "web-1"))).toBe("PreparingUpdate");
    expect(held.map((p) => p.spec?.containers[0].image)).toEqual(["nginx:1.25", "nginx:1.25"]);
    expect(await heldCondition(ns)).toMatchObject({ status: "True", message: expect.stringContaining("pod web-1 PreparingUpdate") });
    await release(ns, "web-1");
    const updated = await drive(ns, kubelet, 30, (pods) => stateOf(named(pods, "web-1")) === "Updated");
    const web1 = named(updated, "web-1")!;
    expect(web1.metadata?.uid).toBe(named(before, "web-1")?.metadata?.uid);
    expect(web1.spec?.containers[0].image).toBe("nginx:1.26");
    expect(gateCondition(web1)?.status).toBe("True");
    // web-0 is next, and held by its own label.
    const next = await drive(ns, kubelet, 10, (pods) => stateOf(named(pods, "web-0")) === "PreparingUpdate");
    expect(named(next, "web-0")?.spec?.containers[0].image).toBe("nginx:1.25");
    // The other controller puts web-1's label back: Normal.
    await admin.patch(R.pods, ns, "web-1", { metadata: { labels: { [DRAIN]: "true" } } }, "merge");
    const normal = await drive(ns, kubelet, 10, (pods) => stateOf(named(pods, "web-1")) === "Normal");
    expect(stateOf(named(normal, "web-1"))).toBe("Normal");
  });
});
