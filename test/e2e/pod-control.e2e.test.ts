/**
 * Issue 22 on the real kube-apiserver: a chosen delete (pod label ordinal.dev/specified-delete),
 * a Parallel scale-up under scaleStrategy.maxUnavailable, and kubernetes#137409's scenario
 * (Parallel, maxUnavailable 2, a second template change while the first rolls).
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { getPodRevision, isHealthy } from "../../src/core/pod-state.ts";
import { R } from "../../src/kube/resources.ts";
import { SPECIFIED_DELETE_LABEL } from "../../src/objects/constants.ts";
import { setManifest } from "../support/fixtures.ts";
import { allReady, driveUntil, reconcileStep } from "./driver.ts";
import { admin, kubeletFor, listPods, newNamespace, setupCluster } from "./support.ts";

const uids = (pods: Pod[]) => Object.fromEntries(pods.map((p) => [p.metadata!.name!, p.metadata!.uid!]));
const webSet = (ns: string, spec: Record<string, unknown>, replicas = 3) => setManifest({ namespace: ns, replicas, image: "nginx:1.25", container: "nginx", spec });
const setImage = (ns: string, image: string) =>
  admin.patch(R.statefulSets, ns, "web", { spec: { template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image }] } } } }, "merge");

beforeAll(setupCluster);

describe("pod control", () => {
  it("a pod labelled ordinal.dev/specified-delete is deleted and recreated at its ordinal; the others stay", async () => {
    const ns = await newNamespace("chosen");
    await admin.create(R.statefulSets, ns, webSet(ns, {}));
    const kubelet = kubeletFor(ns);
    await driveUntil(ns, allReady(3), { kubelet });
    const before = uids(await listPods(ns));
    await admin.patch(R.pods, ns, "web-1", { metadata: { labels: { [SPECIFIED_DELETE_LABEL]: "true" } } }, "merge");
    const steps = await driveUntil(ns, (pods) => allReady(3)(pods) && pods[1].metadata!.uid !== before["web-1"], { kubelet, ordered: false });
    expect(steps.flatMap((s) => s.deleted)).toEqual(["web-1"]);
    const after = await listPods(ns);
    expect([after[0].metadata!.uid, after[2].metadata!.uid]).toEqual([before["web-0"], before["web-2"]]);
    expect(after[1].metadata!.labels?.[SPECIFIED_DELETE_LABEL]).toBeUndefined();
  });

  it("a Parallel scale-up under scaleStrategy.maxUnavailable 1 keeps at most one pod not yet Ready", async () => {
    const ns = await newNamespace("scale-rate");
    await admin.create(R.statefulSets, ns, webSet(ns, { podManagementPolicy: "Parallel", scaleStrategy: { maxUnavailable: 1 } }, 4));
    const first = await reconcileStep(ns, { ordered: false });
    expect(first.created).toEqual(["web-0"]);
    const steps = await driveUntil(ns, allReady(4), { kubelet: kubeletFor(ns), ordered: false });
    for (const s of steps) expect(s.after.filter((p) => !isHealthy(p)).length).toBeLessThanOrEqual(1);
    expect(steps.flatMap((s) => s.created).sort()).toEqual(["web-1", "web-2", "web-3"]);
  });

  it("kubernetes#137409: Parallel, maxUnavailable 2, a second template change while the first rolls: all pods reach the last revision", async () => {
    const ns = await newNamespace("k137409");
    await admin.create(R.statefulSets, ns, webSet(ns, { podManagementPolicy: "Parallel", updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 2 } } }, 4));
    const kubelet = kubeletFor(ns);
    await driveUntil(ns, allReady(4), { kubelet, ordered: false });
    await setImage(ns, "nginx:1.26");
    const first = await reconcileStep(ns, { ordered: false });
    expect(first.deleted.sort()).toEqual(["web-2", "web-3"]);
    await kubelet.step();
    await setImage(ns, "nginx:1.27");
    const steps = await driveUntil(
      ns,
      (pods) => allReady(4)(pods) && pods.every((p) => p.spec!.containers[0].image === "nginx:1.27"),
      { kubelet, ordered: false, maxSteps: 60 },
    );
    for (const s of steps) expect(4 - s.after.filter(isHealthy).length).toBeLessThanOrEqual(2);
    const set = await admin.get<StatefulSet>(R.statefulSets, ns, "web");
    const pods = await listPods(ns);
    expect(new Set(pods.map(getPodRevision))).toEqual(new Set([set!.status!.updateRevision]));
    // The status catches up on the next pass.
    await reconcileStep(ns, { ordered: false });
    const done = await admin.get<StatefulSet>(R.statefulSets, ns, "web");
    expect(done!.status).toMatchObject({ currentRevision: done!.status!.updateRevision, updatedReplicas: 4, readyReplicas: 4 });
  });
});
