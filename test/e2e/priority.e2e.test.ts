/**
 * priorityStrategy on the real kube-apiserver 1.20 (issue 33), with `ordinal serve` registered as
 * the webhooks and reconciling: a 4-pod set whose pods carry the labels a weightPriority reads is
 * updated in the order of the weights (not the ordinals), `kubectl get osts -o wide` shows that
 * order (status.updateOrder), and a priorityStrategy with both forms is refused on apply with the
 * field's path. The update order seen is printed for the closing note.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { R } from "../../src/kube/resources.ts";
import { setManifest } from "../support/fixtures.ts";
import { startRegisteredServer, unregisterWebhooks, type Running } from "./servers.ts";
import { admin, kubectl, kubectlResult, kubeletFor, listPods, newNamespace, setupCluster, sleep } from "./support.ts";

const PRIORITY = {
  weightPriority: [
    { weight: 60, matchSelector: { matchLabels: { role: "replica" } } },
    { weight: 30, matchSelector: { matchExpressions: [{ key: "zone", operator: "In", values: ["b"] }] } },
  ],
};

const manifest = (ns: string, image: string) =>
  setManifest({ namespace: ns, replicas: 4, policy: "Parallel", image, container: "nginx", spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, unorderedUpdate: { priorityStrategy: PRIORITY } } } } });

const isReady = (p: Pod) => !p.metadata?.deletionTimestamp && !!p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");

/** until plays the kubelet while the server reconciles, calling `look` each step, until `done` holds (90 s at most). */
async function until(ns: string, done: (pods: Pod[]) => boolean, what: string, look: (pods: Pod[]) => void = () => {}): Promise<Pod[]> {
  const kubelet = kubeletFor(ns);
  for (let i = 0; i < 300; i++) {
    await kubelet.step();
    const pods = await listPods(ns);
    look(pods);
    if (done(pods)) return pods;
    await sleep(300);
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify((await listPods(ns)).map((p) => [p.metadata?.name, p.spec?.containers[0].image, p.metadata?.deletionTimestamp]))}`);
}

beforeAll(setupCluster);

describe("priorityStrategy (real apiserver, ordinal serve)", () => {
  let server: Running;
  let ns: string;
  beforeAll(async () => {
    server = await startRegisteredServer();
    ns = await newNamespace("priority");
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    unregisterWebhooks();
  });

  it("refuses both forms at once on apply, naming the field", async () => {
    const bad = manifest(ns, "nginx:1.25") as unknown as { spec: { updateStrategy: { rollingUpdate: { unorderedUpdate: { priorityStrategy: Record<string, unknown> } } } } };
    bad.spec.updateStrategy.rollingUpdate.unorderedUpdate.priorityStrategy = { ...PRIORITY, orderPriority: [{ orderedKey: "rank" }] };
    const r = kubectlResult(["apply", "-f", "-"], JSON.stringify(bad));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("spec.updateStrategy.rollingUpdate.unorderedUpdate.priorityStrategy: Forbidden: only one of weightPriority and orderPriority may be set");
  });

  it("updates the pods in the order of their labels' weights and shows that order", async () => {
    await admin.create(R.statefulSets, ns, manifest(ns, "nginx:1.25"));
    await until(ns, (pods) => pods.length === 4 && pods.every(isReady), "4 ready pods");
    // Scores: web-0 0, web-1 60+30, web-2 30, web-3 60 → web-1, web-3, web-2, web-0 (upstream: web-3, web-2, web-1, web-0).
    await admin.patch(R.pods, ns, "web-1", { metadata: { labels: { role: "replica", zone: "b" } } }, "merge");
    await admin.patch(R.pods, ns, "web-2", { metadata: { labels: { zone: "b" } } }, "merge");
    await admin.patch(R.pods, ns, "web-3", { metadata: { labels: { role: "replica" } } }, "merge");
    let shown = "";
    for (let i = 0; i < 100 && shown !== "web-1,web-3,web-2,web-0"; i++) {
      shown = (await admin.get<StatefulSet>(R.statefulSets, ns, "web"))?.status?.updateOrder ?? "";
      await sleep(300);
    }
    expect(shown).toBe("web-1,web-3,web-2,web-0");
    expect(kubectl(["get", "osts", "web", "-n", ns, "-o", "wide"])).toMatch(/ORDER[\s\S]*web-1,web-3,web-2,web-0/);

    const uids = new Map((await listPods(ns)).map((p) => [p.metadata!.name!, p.metadata!.uid]));
    const order: string[] = [];
    const started = Date.now();
    const timeline: string[] = [];
    await admin.patch(R.statefulSets, ns, "web", { spec: { template: manifest(ns, "nginx:1.26").spec.template } }, "merge");
    await until(
      ns,
      (pods) => pods.length === 4 && pods.every((p) => isReady(p) && p.spec?.containers[0].image === "nginx:1.26"),
      "every pod at nginx:1.26",
      (pods) => {
        for (const p of pods) {
          const name = p.metadata!.name!;
          if (order.includes(name) || (!p.metadata?.deletionTimestamp && p.metadata?.uid === uids.get(name))) continue;
          order.push(name);
          timeline.push(`+${((Date.now() - started) / 1000).toFixed(1)}s ${name} ${p.metadata?.deletionTimestamp ? "deleted" : "recreated"}`);
        }
        // With maxUnavailable 1 the next pod goes only once the one before is back and Ready.
        const down = pods.filter((p) => !isReady(p)).length + (4 - pods.length);
        expect(down).toBeLessThanOrEqual(1);
      },
    );
    console.log(`priority e2e: update order ${order.join(" → ")}\n  ${timeline.join("\n  ")}`);
    expect(order).toEqual(["web-1", "web-3", "web-2", "web-0"]);
  }, 180_000);
});
