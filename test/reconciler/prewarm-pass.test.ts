/**
 * Pre-warm through whole reconcile passes (planner phase + ImageList actuator) on the fake
 * apiserver, the kubelet player running puller pods with slow pulls.
 */
import { describe, expect, it } from "vitest";
import type { ImageList } from "../../src/api/imagelist.ts";
import type { Pod } from "../../src/api/k8s.ts";
import { PREWARM_ADDED_ANNOTATION, PREWARM_CREATED_ANNOTATION, PULLER_IMAGE_ANNOTATION, PULLER_LABEL } from "../../src/objects/constants.ts";
import { R } from "../../src/kube/resources.ts";
import { NS, newReleaseSim, setObject, simulateRelease, type Tick } from "./prewarm-sim.ts";

const NEW = "docker.io/library/nginx:1.26";
const image = (p: Pod) => p.spec!.containers[0].image;
const name = (p: Pod) => p.metadata!.name!;

/** firstTick returns the first tick at which `pred` holds, or -1. */
const firstTick = (trace: Tick[], pred: (t: Tick) => boolean) => trace.find(pred)?.t ?? -1;

describe("pre-warm in a 4-replica in-place release", () => {
  it("pulls onto the nodes of the pods still to update ahead of their turn, then cleans up", async () => {
    const { sim, seconds } = await simulateRelease({ replicas: 4, pullSeconds: 10, prewarm: 1, trace: true });
    const { trace } = sim;
    const nodeOf = Object.fromEntries(trace[0].pods.map((p) => [name(p), p.spec!.nodeName!]));
    // web-3 goes first (its own pull); the nodes of web-2, web-1 and web-0 get puller pods.
    const pulledOn = new Set(trace.flatMap((t) => t.pullers.map((p) => p.spec!.nodeName!)));
    expect([...pulledOn].sort()).toEqual([nodeOf["web-0"], nodeOf["web-1"], nodeOf["web-2"]].sort());
    for (const pod of ["web-2", "web-1", "web-0"]) {
      const node = nodeOf[pod];
      const pullerAt = firstTick(trace, (t) => t.pullers.some((p) => p.spec!.nodeName === node && p.metadata!.annotations![PULLER_IMAGE_ANNOTATION] === NEW));
      const pulledAt = firstTick(trace, (t) => t.lists.some((l) => l.metadata.name === node && l.status?.images?.[NEW]?.phase === "Pulled"));
      const turnAt = firstTick(trace, (t) => t.pods.some((p) => name(p) === pod && image(p) === "nginx:1.26"));
      expect(pullerAt, pod).toBeGreaterThan(0);
      expect(pullerAt, `${pod}: puller before its turn`).toBeLessThan(turnAt);
      expect(pulledAt, `${pod}: Pulled`).toBeGreaterThan(0);
    }
    // web-2 waited for web-3's own 10 s pull: its node had the image before its turn.
    const node2 = nodeOf["web-2"];
    expect(firstTick(trace, (t) => t.lists.some((l) => l.metadata.name === node2 && l.status?.images?.[NEW]?.phase === "Pulled"))).toBeLessThan(
      firstTick(trace, (t) => t.pods.some((p) => name(p) === "web-2" && image(p) === "nginx:1.26")),
    );
    // Puller pods are gone once done; so are the entries Ordinal added (and its record), and the lists it created, left empty (issue 21).
    const last = trace[trace.length - 1];
    expect(last.pullers).toEqual([]);
    const created = trace.flatMap((t) => t.lists).filter((l) => l.metadata.annotations?.[PREWARM_CREATED_ANNOTATION] === "true");
    expect(new Set(created.map((l) => l.metadata.name)).size).toBe(3);
    await sim.tick();
    expect(await sim.client.list<ImageList>(R.imageLists, NS)).toEqual([]);
    // Each pre-warmed pod restarted once, on its node, without waiting for a pull.
    expect(seconds).toBeLessThan((await simulateRelease({ replicas: 4, pullSeconds: 10 })).seconds);
    // Two whole simulated releases: seconds of CPU on a loaded 2-core machine (the default 5 s timed out there).
  }, 30_000);

  it("without imagePrewarm there are no ImageLists and no puller pods", async () => {
    const { sim } = await simulateRelease({ replicas: 3, pullSeconds: 2, trace: true });
    expect(sim.trace.every((t) => t.pullers.length === 0 && t.lists.length === 0)).toBe(true);
  });
});

describe("a set deleted in the middle of a pre-warmed release", () => {
  it.each([
    ["another set remains in the namespace", true],
    ["it was the last set", false],
  ])("leaves no entries behind: the next full pass releases them (%s)", async (_, other) => {
    const o = { replicas: 3, pullSeconds: 30, prewarm: 1 };
    const sim = newReleaseSim(o);
    const otherSet = setObject({ replicas: 0, pullSeconds: 0 }, "redis:7");
    const labels = { app: "other" };
    if (other)
      await sim.client.create(R.statefulSets, NS, {
        ...otherSet,
        metadata: { name: "other", namespace: NS },
        spec: { ...otherSet.spec, selector: { matchLabels: labels }, template: { ...otherSet.spec.template, metadata: { labels } } },
      });
    await sim.client.create(R.statefulSets, NS, setObject(o, "nginx:1.25"));
    await sim.runUntil(sim.releasedTo("nginx:1.25"), "running");
    await sim.client.patch(R.statefulSets, NS, "web", { spec: { template: setObject(o, "nginx:1.26").spec.template } }, "merge");
    const lists = () => sim.client.list<ImageList>(R.imageLists, NS);
    await sim.runUntil(async () => (await lists()).some((l) => Object.keys(l.spec.images).length > 0), "an entry added");
    await sim.client.create(R.imageLists, NS, { apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", metadata: { name: "mine", namespace: NS }, spec: { images: { "redis:7": {} } } });
    await sim.client.delete(R.statefulSets, NS, "web");
    await sim.tick();
    const after = await lists();
    expect(after.find((l) => l.metadata.name === "mine")?.spec.images).toEqual({ "redis:7": { alwaysPull: false } });
    for (const l of after.filter((x) => x.metadata.name !== "mine")) {
      expect(l.spec.images).toEqual({});
      expect(l.metadata.annotations?.[PREWARM_ADDED_ANNOTATION]).toBeUndefined();
    }
  });
});

describe("the ImageList actuator on a person's ImageList", () => {
  it("pulls what it can, retries a failing image with backoff, and counts an image without a shell as pulled", async () => {
    const sim = newReleaseSim({
      replicas: 1,
      pullSeconds: 3,
      kubelet: { pullFails: (i) => i.includes("private"), noShell: (i) => i.includes("distroless") },
    });
    await sim.kubelet.ensureNodes();
    await seedAppPod(sim, "node-0");
    await sim.client.create(R.imageLists, NS, {
      apiVersion: "apps.ordinal.dev/v1",
      kind: "ImageList",
      metadata: { name: "node-0", namespace: NS },
      spec: { images: { "redis:7": {}, "example.com/private/app:1": {}, "gcr.io/distroless/static:nonroot": { alwaysPull: true } } },
    });
    const list = async () => (await sim.client.get<ImageList>(R.imageLists, NS, "node-0"))!;
    const pullers = async () => (await sim.client.list<Pod>(R.pods, NS, { labelSelector: `${PULLER_LABEL}=true` })).filter((p) => !p.metadata?.deletionTimestamp);
    await sim.tick();
    // At most two puller pods per node at once.
    expect((await pullers()).length).toBe(2);
    expect(Object.values((await list()).status!.images!).map((s) => s.phase).sort()).toEqual(["Pending", "Pulling", "Pulling"]);
    await sim.runUntil(async () => {
      const s = (await list()).status?.images ?? {};
      return s["redis:7"]?.phase === "Pulled" && s["gcr.io/distroless/static:nonroot"]?.phase === "Pulled" && s["example.com/private/app:1"]?.phase === "Failed";
    }, "pulled and failed");
    const s = (await list()).status!.images!;
    expect(s["example.com/private/app:1"]).toMatchObject({ attempts: 1, message: expect.stringMatching(/^ErrImagePull: /), nextAttemptTime: expect.any(String) });
    expect(s["gcr.io/distroless/static:nonroot"]).toMatchObject({ message: expect.stringContaining("StartError"), nextAttemptTime: expect.any(String) });
    expect(sim.kubelet.imagesOn("node-0")).toEqual(expect.arrayContaining(["docker.io/library/redis:7", "gcr.io/distroless/static:nonroot"]));
    // The failing image is tried again after its backoff (10 s), then 20 s.
    await sim.runUntil(async () => (await list()).status?.images?.["example.com/private/app:1"]?.attempts === 3, "third attempt");
    await sim.runUntil(async () => (await pullers()).length === 0, "puller pods deleted");
    expect((await list()).status!.images!["redis:7"].phase).toBe("Pulled");
  });
});

describe("a puller pod the apiserver refuses", () => {
  it("makes the image Failed with the apiserver's message and a backoff, instead of retrying every pass", async () => {
    const sim = newReleaseSim({ replicas: 1, pullSeconds: 1 });
    await sim.kubelet.ensureNodes();
    await seedAppPod(sim, "node-0");
    await sim.client.create(R.imageLists, NS, { apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", metadata: { name: "node-0", namespace: NS }, spec: { images: { "redis:7": {} } } });
    sim.fake.faults.add({ verb: "create", resource: "pods", fault: { status: 403, reason: "Forbidden", message: "exceeded quota: pods" }, times: 1 });
    await sim.tick();
    const status = (await sim.client.get<ImageList>(R.imageLists, NS, "node-0"))!.status!.images!["redis:7"];
    expect(status).toMatchObject({ phase: "Failed", attempts: 1, message: expect.stringContaining("puller pod not created: ") });
    expect(status.message).toContain("exceeded quota");
    expect(Date.parse(status.nextAttemptTime!) - sim.now().getTime()).toBeGreaterThan(5000);
    await sim.tick();
    expect((await sim.client.list<Pod>(R.pods, NS, { labelSelector: `${PULLER_LABEL}=true` })).length).toBe(0);
    await sim.runUntil(async () => (await sim.client.get<ImageList>(R.imageLists, NS, "node-0"))!.status!.images!["redis:7"].phase === "Pulled", "pulled after the backoff");
  });
});

/** seedAppPod binds a pod of the namespace to `node`: only such a node is pre-warmed (issue 19.2). */
async function seedAppPod(sim: ReturnType<typeof newReleaseSim>, node: string): Promise<void> {
  await sim.client.create(R.pods, NS, { apiVersion: "v1", kind: "Pod", metadata: { name: `app-${node}`, namespace: NS }, spec: { nodeName: node, containers: [{ name: "c", image: "app:1" }] } });
}
