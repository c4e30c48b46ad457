/**
 * Progress deadline and automatic rollback on the real kube-apiserver (issue 23): the reconciler
 * runs as its least-privilege identity (deploy/rbac.yaml: `patch` on statefulsets for the
 * rollback), the test plays the kubelet and a pod with the bad image reports ErrImagePull and
 * never becomes Ready. No person acts after the bad image is applied.
 */
import { spawn, spawnSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import type { Event, Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { getPodRevision, isRunningAndReady } from "../../src/core/pod-state.ts";
import { R } from "../../src/kube/resources.ts";
import { FAILED_REVISIONS_ANNOTATION } from "../../src/objects/constants.ts";
import type { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { setManifest } from "../support/fixtures.ts";
import { admin, env, kubeletFor, listPods, newNamespace, reconcileInProcess, setupCluster, sleep } from "./support.ts";

const GOOD = "nginx:1.25";
const BAD = "registry.invalid/nginx:missing";

const getSet = async (ns: string) => (await admin.get<StatefulSet>(R.statefulSets, ns, "web"))!;
const setImage = (ns: string, image: string) => admin.patch(R.statefulSets, ns, "web", { spec: { template: { spec: { containers: [{ name: "nginx", image }] } } } }, "merge");
const events = async (ns: string) => await admin.list<Event>(R.events, ns);
const imageOf = (s: StatefulSet) => s.spec.template.spec.containers[0].image;
const progressing = (s: StatefulSet) => s.status?.conditions?.find((c) => c.type === "Progressing");

/** allReadyAt is true when 3 pods run `revision`, Ready, none terminating. */
const allReadyAt = (revision: string) => (pods: Pod[]) => pods.length === 3 && pods.every((p) => isRunningAndReady(p) && !p.metadata?.deletionTimestamp && getPodRevision(p) === revision);

/** drive alternates a reconcile invocation and a kubelet step (real time passes: the deadline is real) until `done`. */
async function drive(ns: string, kubelet: KubeletPlayer, done: (set: StatefulSet, pods: Pod[]) => boolean, maxSteps = 120): Promise<void> {
  for (let i = 0; i < maxSteps; i++) {
    await reconcileInProcess(ns);
    await kubelet.step();
    if (done(await getSet(ns), await listPods(ns))) return;
    await sleep(250);
  }
  const pods = await listPods(ns);
  throw new Error(`not done: ${pods.map((p) => `${p.metadata!.name}:${p.spec!.containers[0].image}:${isRunningAndReady(p)}:${getPodRevision(p)}`).join(", ")}`);
}

async function newSet(prefix: string, spec: Record<string, unknown>): Promise<{ ns: string; kubelet: KubeletPlayer; before: string }> {
  const ns = await newNamespace(prefix);
  const kubelet = kubeletFor(ns, { pullFails: (image) => image === BAD });
  await admin.create(R.statefulSets, ns, setManifest({ namespace: ns, replicas: 3, image: GOOD, container: "nginx", spec: { progressDeadlineSeconds: 4, ...spec } }));
  await drive(ns, kubelet, (s, pods) => !!s.status?.updateRevision && allReadyAt(s.status.updateRevision)(pods) && s.status.readyReplicas === 3);
  return { ns, kubelet, before: (await getSet(ns)).status!.updateRevision! };
}

beforeAll(setupCluster);

describe("rollbackOnFailure on the real apiserver", () => {
  it.each<[string, Record<string, unknown>]>([
    ["ReCreate, OrderedReady", { updateStrategy: { type: "RollingUpdate", rollingUpdate: { rollbackOnFailure: true } } }],
    ["InPlaceIfPossible, maxUnavailable 2", { updateStrategy: { type: "RollingUpdate", rollingUpdate: { rollbackOnFailure: true, podUpdatePolicy: "InPlaceIfPossible", maxUnavailable: 2 } } }],
  ])("%s: a bad image rolls back by itself and the set ends Ready at the old revision", async (_, spec) => {
    const { ns, kubelet, before } = await newSet("deadline", spec);
    await setImage(ns, BAD);
    await drive(ns, kubelet, (s, pods) => imageOf(s) === GOOD && s.status?.updateRevision === before && s.status.currentRevision === before && s.status.readyReplicas === 3 && allReadyAt(before)(pods));
    await reconcileInProcess(ns);
    const set = await getSet(ns);
    expect(set.status).toMatchObject({ currentRevision: before, updateRevision: before, readyReplicas: 3, updatedReplicas: 3 });
    expect(progressing(set)).toMatchObject({ status: "True", reason: "RolloutComplete" });
    const failed = set.metadata.annotations?.[FAILED_REVISIONS_ANNOTATION] ?? "";
    expect(failed).toMatch(/^web-[0-9a-z]+$/);
    expect(failed).not.toBe(before);
    for (const p of await listPods(ns)) expect(p.spec!.containers[0].image).toBe(GOOD);
    const evs = await events(ns);
    const exceeded = evs.filter((e) => e.reason === "ProgressDeadlineExceeded");
    expect(exceeded).toHaveLength(1);
    expect(exceeded[0].type).toBe("Warning");
    expect(exceeded[0].message).toMatch(/has timed out progressing: no pod newly updated and Ready for 4s: pod web-\d container nginx: image \S+ cannot be pulled \((ErrImagePull|ImagePullBackOff)/);
    expect(exceeded[0].message).toContain(`rolled back to revision ${before}`);
    const rolledBack = evs.filter((e) => e.reason === "RolledBack");
    expect(rolledBack.map((e) => e.message)).toEqual([`StatefulSet ${ns}/web rolled back from revision ${failed} (ProgressDeadlineExceeded) to revision ${before}, the last fully available; ${failed} is recorded in ${FAILED_REVISIONS_ANNOTATION}`]);
  });
});

describe("`ordinal rollout status` during an automatic rollback", () => {
  it("started on the bad image, exits 1 naming the failed revision and the one rolled back to (it does not follow the rollback)", async () => {
    const { ns, kubelet, before } = await newSet("deadline-status", { updateStrategy: { type: "RollingUpdate", rollingUpdate: { rollbackOnFailure: true } } });
    await setImage(ns, BAD);
    const cli = spawn("node", ["src/cli/bin.mjs", "rollout", "status", "web", "-n", ns, "--timeout", "5m"], { env: { ...process.env, KUBECONFIG: env.KUBECONFIG, KUBE_API_URL: "", KUBE_TOKEN: "" } });
    let out = "";
    cli.stdout.on("data", (d: Buffer) => (out += d.toString()));
    cli.stderr.on("data", (d: Buffer) => (out += d.toString()));
    let code: number | null | undefined;
    cli.on("exit", (c) => (code = c));
    try {
      // Nothing moves until the test drives the reconciler: the command's first poll finds the change not yet observed.
      for (let i = 0; i < 300 && !out.includes("Waiting for statefulset spec update to be observed"); i++) await sleep(100);
      await drive(ns, kubelet, (s, pods) => imageOf(s) === GOOD && s.status?.updateRevision === before && allReadyAt(before)(pods));
      // It ends by itself: 1 at the rollback (following the rollback to its end, it would exit 0).
      await drive(ns, kubelet, () => code !== undefined, 80);
    } finally {
      if (code === undefined) cli.kill();
    }
    expect(code).toBe(1);
    const failed = (await getSet(ns)).metadata.annotations?.[FAILED_REVISIONS_ANNOTATION] ?? "";
    expect(failed).toMatch(/^web-[0-9a-z]+$/);
    expect(out).toContain(`error: statefulset.apps.ordinal.dev "web" exceeded its progress deadline: revision ${failed} was rolled back to revision ${before}`);
    expect(out).not.toContain("rolling update complete");
  });
});

describe("progressDeadlineSeconds without rollback", () => {
  it("Progressing turns False with ProgressDeadlineExceeded and `ordinal rollout status` exits 1 with that message", async () => {
    const { ns, kubelet } = await newSet("deadline-report", {});
    await setImage(ns, BAD);
    await drive(ns, kubelet, (s) => progressing(s)?.reason === "ProgressDeadlineExceeded" && s.status?.observedGeneration === s.metadata.generation);
    const set = await getSet(ns);
    expect(imageOf(set)).toBe(BAD);
    expect(progressing(set)).toMatchObject({ status: "False", reason: "ProgressDeadlineExceeded" });
    const status = spawnSync("node", ["src/cli/bin.mjs", "rollout", "status", "web", "-n", ns], { env: { ...process.env, KUBECONFIG: env.KUBECONFIG, KUBE_API_URL: "", KUBE_TOKEN: "" }, encoding: "utf8" });
    expect(status.status).toBe(1);
    expect(status.stdout + status.stderr).toMatch(/rollout of web is stuck: Progressing ProgressDeadlineExceeded: StatefulSet \S+\/web has timed out progressing: .*pod web-2 container nginx: image \S+ cannot be pulled \((ErrImagePull|ImagePullBackOff)/);
  });
});
