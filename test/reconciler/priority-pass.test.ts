/**
 * priorityStrategy through whole reconcile passes on the fake apiserver with a kubelet player
 * (issue 33): the order pods are recreated or updated in place follows the weights and keys on
 * their labels (re-read every pass), and with a partition the last pods in that order keep the
 * current revision.
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { setManifest } from "../support/fixtures.ts";

const WEIGHTS = { weightPriority: [{ weight: 60, matchSelector: { matchLabels: { role: "replica" } } }, { weight: 30, matchSelector: { matchLabels: { zone: "b" } } }] };

function setup(rollingUpdate: Record<string, unknown>, policy: "OrderedReady" | "Parallel" = "Parallel") {
  let clock = Date.parse("2026-11-21T12:00:00Z");
  const now = () => new Date(clock);
  const fake = createFakeApiServer({ now });
  /** The pods the reconciler moved to a new image, in order: deleted (recreate) or patched in place. */
  const moved: string[] = [];
  const fetch: typeof fake.fetch = async (input, init) => {
    const res = await fake.fetch(input, init);
    const url = String(input instanceof Request ? input.url : input);
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    const pod = /\/namespaces\/default\/pods\/([^/?]+)$/.exec(new URL(url).pathname)?.[1];
    const body = typeof init?.body === "string" ? init.body : "";
    if (pod && res.ok && (method === "DELETE" || (method === "PATCH" && body.includes('"image"')))) moved.push(pod);
    return res;
  };
  const client = createKubeClient({ baseUrl: "https://fake", fetch, sleep: async () => {} });
  // The kubelet and the test write through their own client: only the reconciler's writes are recorded.
  const other = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} });
  const kubelet = new KubeletPlayer(other, { namespace: "default", now });
  const manifest = (image: string) => setManifest({ replicas: 4, policy, image, spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { unorderedUpdate: { priorityStrategy: WEIGHTS }, ...rollingUpdate } } } });
  const pods = () => fake.list<Pod>("/api/v1/namespaces/default/pods");
  const settle = async (passes = 30) => {
    for (let i = 0; i < passes; i++) {
      await reconcilePass(client, { now, log: silentLogger });
      await kubelet.step();
      clock += 1000;
    }
  };
  const label = (name: string, labels: Record<string, string | null>) => other.patch(R.pods, "default", name, { metadata: { labels } }, "merge");
  const setImage = (image: string) => other.patch(R.statefulSets, "default", "web", { spec: { template: manifest(image).spec.template } }, "merge");
  const images = () => Object.fromEntries(pods().map((p) => [p.metadata!.name!, p.spec!.containers[0].image]));
  return { fake, manifest, moved, settle, label, setImage, images };
}

describe("priorityStrategy through passes", () => {
  it.each([
    ["recreate, Parallel", {}, "Parallel"],
    ["in place, Parallel", { podUpdatePolicy: "InPlaceIfPossible" }, "Parallel"],
    ["recreate, OrderedReady (the update order only)", {}, "OrderedReady"],
  ] as const)("%s: pods move in the order of their labels' weights, ties highest ordinal first", async (_, ru, policy) => {
    const t = setup(ru, policy);
    await t.fake.seed(t.manifest("img:1"));
    await t.settle();
    // Scores: web-0 60+30, web-1 30, web-2 0, web-3 60 → web-0, web-3, web-1, web-2.
    await t.label("web-0", { role: "replica", zone: "b" });
    await t.label("web-1", { zone: "b" });
    await t.label("web-3", { role: "replica" });
    await t.setImage("img:2");
    await t.settle(40);
    expect(t.moved).toEqual(["web-0", "web-3", "web-1", "web-2"]);
    expect(Object.values(t.images())).toEqual(["img:2", "img:2", "img:2", "img:2"]);
  });

  it("re-reads the labels every pass: a pod labelled during the rollout moves up", async () => {
    const t = setup({});
    await t.fake.seed(t.manifest("img:1"));
    await t.settle();
    await t.setImage("img:2");
    // One pass: the first pod (web-3, the highest ordinal, all tied) goes; then web-0 is labelled first.
    await t.settle(1);
    expect(t.moved).toEqual(["web-3"]);
    await t.label("web-0", { role: "replica" });
    await t.settle(40);
    expect(t.moved).toEqual(["web-3", "web-0", "web-2", "web-1"]);
  });

  it("partition 1 counts pods: the last pod in the order keeps the current revision, whatever its ordinal", async () => {
    const t = setup({ partition: 1 });
    await t.fake.seed(t.manifest("img:1"));
    await t.settle();
    await t.label("web-1", { role: "replica" });
    await t.label("web-2", { zone: "b" });
    await t.label("web-3", { zone: "b" });
    await t.setImage("img:2");
    await t.settle(40);
    // Order: web-1 (60), web-3, web-2 (30, highest ordinal first), web-0 (0): web-0 stays.
    expect(t.moved).toEqual(["web-1", "web-3", "web-2"]);
    expect(t.images()).toEqual({ "web-0": "img:1", "web-1": "img:2", "web-2": "img:2", "web-3": "img:2" });
  });
});
