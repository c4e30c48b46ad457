/**
 * A chosen pod (label ordinal.dev/specified-delete) goes through the eviction API (issue 35, G8):
 * a PodDisruptionBudget that allows no disruption holds it (429, not retried by the client), the
 * pass asks again next time and says so in Progressing; once the budget allows, the pod is evicted
 * and recreated at its ordinal. On the fake apiserver, whose eviction checks budgets as 1.20 does.
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { isDisruptionBudgetRefusal } from "../../src/kube/client.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { SPECIFIED_DELETE_LABEL } from "../../src/objects/constants.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { setManifest } from "../support/fixtures.ts";

function setup() {
  let clock = Date.parse("2026-12-04T12:00:00Z");
  const now = () => new Date(clock);
  const fake = createFakeApiServer({ now });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} });
  const kubelet = new KubeletPlayer(client, { namespace: "default", now });
  const podNamed = (name: string) => fake.get<Pod>(`/api/v1/namespaces/default/pods/${name}`);
  const progressing = () =>
    fake.get<{ status?: { conditions?: { type: string; message?: string }[] } }>("/apis/apps.ordinal.dev/v1/namespaces/default/statefulsets/web")?.status?.conditions?.find((c) => c.type === "Progressing");
  const settle = async (passes: number) => {
    for (let i = 0; i < passes; i++) {
      await reconcilePass(client, { now, log: silentLogger });
      await kubelet.step();
      clock += 1000;
    }
  };
  const budget = (minAvailable: number) => ({ apiVersion: "policy/v1beta1", kind: "PodDisruptionBudget", metadata: { name: "web", namespace: "default" }, spec: { minAvailable, selector: { matchLabels: { app: "web" } } } });
  return { fake, client, podNamed, progressing, settle, budget };
}

describe("a chosen pod is evicted", () => {
  it("waits while a PodDisruptionBudget allows no disruption, saying so in Progressing; goes once it allows one", async () => {
    const t = setup();
    t.fake.seed(setManifest({ replicas: 3 }));
    await t.settle(12);
    t.fake.seed(t.budget(3));
    const uid = t.podNamed("web-1")?.metadata?.uid;
    await t.client.patch(R.pods, "default", "web-1", { metadata: { labels: { [SPECIFIED_DELETE_LABEL]: "true" } } }, "merge");
    t.fake.log.clear();
    await t.settle(4);
    expect(t.podNamed("web-1")?.metadata?.uid).toBe(uid);
    expect(t.podNamed("web-1")?.metadata?.deletionTimestamp).toBeUndefined();
    // One eviction asked per pass, none retried within it, no plain delete.
    expect(t.fake.log.entries.filter((e) => e.subresource === "eviction").map((e) => e.code)).toEqual([429, 429, 429, 429]);
    expect(t.fake.log.entries.filter((e) => e.verb === "delete" && e.resource === "pods")).toEqual([]);
    expect(t.progressing()?.message).toContain(
      "chosen pods wait for a PodDisruptionBudget to allow their eviction: pod web-1: Cannot evict pod as it would violate the pod's disruption budget. The disruption budget web needs 3 healthy pods and has 3 currently",
    );

    await t.client.patch(R.podDisruptionBudgets, "default", "web", { spec: { minAvailable: 2 } }, "merge");
    await t.settle(6);
    const recreated = t.podNamed("web-1");
    expect(recreated?.metadata?.uid).not.toBe(uid);
    expect(recreated?.metadata?.labels).not.toHaveProperty(SPECIFIED_DELETE_LABEL);
    expect(t.progressing()?.message).not.toContain("PodDisruptionBudget");
  });

  it("without a budget, by one eviction (no plain delete)", async () => {
    const t = setup();
    t.fake.seed(setManifest({ replicas: 2 }));
    await t.settle(8);
    const uid = t.podNamed("web-0")?.metadata?.uid;
    await t.client.patch(R.pods, "default", "web-0", { metadata: { labels: { [SPECIFIED_DELETE_LABEL]: "true" } } }, "merge");
    t.fake.log.clear();
    await t.settle(1);
    expect(t.fake.log.entries.filter((e) => e.subresource === "eviction").map((e) => e.code)).toEqual([201]);
    await t.settle(4);
    expect(t.podNamed("web-0")?.metadata?.uid).not.toBe(uid);
  });
});

describe("a rollout held only by a PodDisruptionBudget", () => {
  it.each<["OrderedReady" | "Parallel"]>([["OrderedReady"], ["Parallel"]])("%s: the progress deadline runs and Progressing names the budget (a hold is not progress)", async (policy) => {
    const t = setup();
    t.fake.seed(setManifest({ replicas: 3, policy, spec: { progressDeadlineSeconds: 10, updateStrategy: { type: "RollingUpdate", rollingUpdate: { rollbackOnFailure: true } } } }));
    await t.settle(12);
    t.fake.seed(t.budget(3));
    await t.client.patch(R.pods, "default", "web-2", { metadata: { labels: { [SPECIFIED_DELETE_LABEL]: "true" } } }, "merge");
    const uids = ["web-0", "web-1"].map((n) => t.podNamed(n)?.metadata?.uid);
    await t.client.patch(R.statefulSets, "default", "web", { spec: { template: { spec: { containers: [{ name: "c", image: "img:2" }] } } } }, "merge");
    await t.settle(30);
    // The held pod is the rollout's step in progress: no other pod is updated meanwhile (OrderedReady
    // waits on each pod, as upstream; Parallel's maxUnavailable 1 is spent on the chosen pod).
    expect(["web-0", "web-1"].map((n) => t.podNamed(n)?.metadata?.uid)).toEqual(uids);
    const p = t.progressing() as { status?: string; reason?: string; message?: string } | undefined;
    // Before: every pass saw "nothing unavailable: Ordinal's step" and restarted the clock (lastUpdateTime kept moving, never exceeded).
    expect(p).toMatchObject({ status: "False", reason: "ProgressDeadlineExceeded" });
    expect(p?.message).toContain("no pod newly updated and Ready for 10s; chosen pods wait for a PodDisruptionBudget to allow their eviction: pod web-2: Cannot evict pod");
    expect(p?.message).toContain("The disruption budget web needs 3 healthy pods and has 3 currently");
    // The budget's answer once, in the list of held pods (twice before: in the deadline's words and in the list).
    expect(p?.message?.split("The disruption budget web needs").length).toBe(2);
    // A budget's hold is not the release's fault: rollbackOnFailure does not undo it.
    const set = t.fake.get<{ spec: { template: { spec: { containers: { image: string }[] } } } }>("/apis/apps.ordinal.dev/v1/namespaces/default/statefulsets/web");
    expect(set?.spec.template.spec.containers[0].image).toBe("img:2");
    expect(t.podNamed("web-2")?.metadata?.deletionTimestamp).toBeUndefined();
  });
});

describe("the fake apiserver's eviction (1.20)", () => {
  it("refuses a policy/v1 Eviction, a name that differs from the URL's, and answers 404 for a pod that does not exist", async () => {
    const t = setup();
    const post = (name: string, body: object) => t.client.createSubresource(R.pods, "default", name, "eviction", body).then(() => "ok", (e: Error) => e.message);
    expect(await post("nope", { apiVersion: "policy/v1beta1", kind: "Eviction", metadata: { name: "nope" } })).toBe('pods "nope" not found');
    expect(await post("x", { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "x" } })).toBe(
      'Eviction in version "v1" cannot be handled as a Eviction: no kind "Eviction" is registered for version "policy/v1" in scheme "k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30"',
    );
    expect(await post("x", { apiVersion: "policy/v1beta1", kind: "Eviction", metadata: { name: "y" } })).toBe("name in URL does not match name in Eviction object");
  });

  it("a budget's 429 is recognized and not retried by the client", async () => {
    const t = setup();
    t.fake.seed(setManifest({ replicas: 1 }));
    await t.settle(6);
    t.fake.seed(t.budget(1));
    t.fake.log.clear();
    const e = await t.client.createSubresource(R.pods, "default", "web-0", "eviction", { apiVersion: "policy/v1beta1", kind: "Eviction", metadata: { name: "web-0" } }).catch((x: unknown) => x);
    expect(isDisruptionBudgetRefusal(e)).toBe(true);
    expect(t.fake.log.entries).toHaveLength(1);
  });
});
