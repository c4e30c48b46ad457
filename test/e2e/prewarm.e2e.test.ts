/**
 * Image pre-warm against the real kube-apiserver: the reconciler (its least-privilege identity)
 * drives a 4-replica in-place release with imagePrewarm while the test plays the kubelet (puller
 * pods included, with real-time pull delays); the apiserver accepts every ImageList, puller pod
 * and status write. Then, with the webhooks served by `ordinal serve`, bad image references are
 * refused before any pod exists.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImageList } from "../../src/api/imagelist.ts";
import type { Pod } from "../../src/api/k8s.ts";
import { PREWARM_ADDED_ANNOTATION, PULLER_IMAGE_ANNOTATION, PULLER_LABEL } from "../../src/objects/constants.ts";
import { isRunningAndReady } from "../../src/core/pod-state.ts";
import { R } from "../../src/kube/resources.ts";
import { setManifest } from "../support/fixtures.ts";
import { startRegisteredServer, unregisterWebhooks, type Running } from "./servers.ts";
import { admin, kubectl, kubectlResult, kubeletFor, newNamespace, reconcileInProcess, setupCluster, sleep } from "./support.ts";

const NEW = "docker.io/library/nginx:1.26";
const NODES = ["prewarm-node-0", "prewarm-node-1", "prewarm-node-2", "prewarm-node-3"];

const webSet = (ns: string, image: string) =>
  setManifest({
    namespace: ns,
    replicas: 4,
    image,
    container: "nginx",
    spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible", imagePrewarm: { parallelism: 1 } } } },
  });

interface Snapshot {
  pods: Pod[];
  pullers: Pod[];
  lists: ImageList[];
}

const image = (p: Pod) => p.spec!.containers[0].image;
const name = (p: Pod) => p.metadata!.name!;

beforeAll(setupCluster);

describe("pre-warm during a 4-replica in-place release", () => {
  let ns: string;
  const seen: Snapshot[] = [];
  const snapshot = async (): Promise<Snapshot> => {
    const all = await admin.list<Pod>(R.pods, ns);
    return {
      pods: all.filter((p) => !p.metadata?.labels?.[PULLER_LABEL]).sort((a, b) => name(a).localeCompare(name(b))),
      pullers: all.filter((p) => p.metadata?.labels?.[PULLER_LABEL]),
      lists: await admin.list<ImageList>(R.imageLists, ns),
    };
  };
  const released = (img: string) => (s: Snapshot) =>
    s.pods.length === 4 && s.pods.every((p) => image(p) === img && isRunningAndReady(p) && p.status?.containerStatuses?.[0]?.image === img && !p.metadata?.deletionTimestamp);

  /** drive alternates a reconcile invocation and a kubelet step until `done` (and the puller pods are gone), recording snapshots. */
  async function drive(kubelet: ReturnType<typeof kubeletFor>, done: (s: Snapshot) => boolean, maxSteps = 160): Promise<void> {
    for (let i = 0; i < maxSteps; i++) {
      await reconcileInProcess(ns);
      seen.push(await snapshot());
      await kubelet.step();
      const s = await snapshot();
      seen.push(s);
      if (done(s) && s.pullers.length === 0) {
        await reconcileInProcess(ns);
        return;
      }
      await sleep(250);
    }
    const s = await snapshot();
    throw new Error(`not done: ${s.pods.map((p) => `${name(p)}:${image(p)}:${isRunningAndReady(p)}`).join(", ")}; pullers ${s.pullers.map(name).join(", ")}`);
  }

  let nodeOf: Record<string, string>;
  beforeAll(async () => {
    ns = await newNamespace("prewarm");
    const kubelet = kubeletFor(ns, { nodes: NODES, pullSeconds: 2 });
    await admin.create(R.statefulSets, ns, webSet(ns, "nginx:1.25"));
    await drive(kubelet, released("nginx:1.25"));
    nodeOf = Object.fromEntries((await snapshot()).pods.map((p) => [name(p), p.spec!.nodeName!]));
    seen.length = 0;
    await admin.patch(R.statefulSets, ns, "web", { spec: { template: webSet(ns, "nginx:1.26").spec.template } }, "merge");
    await drive(kubelet, released("nginx:1.26"));
    // The last in-place update finishes (gate True, state cleared) in a pass; the next one removes Ordinal's entries.
    for (let i = 0; i < 5; i++) {
      const lists = await admin.list<ImageList>(R.imageLists, ns);
      if (lists.every((l) => !l.metadata.annotations?.[PREWARM_ADDED_ANNOTATION])) break;
      await reconcileInProcess(ns);
    }
  });

  it("puller pods ran on the nodes of web-2, web-1 and web-0, each before that pod's turn", () => {
    expect(new Set(Object.values(nodeOf)).size).toBe(4);
    const pulledOn = new Set(seen.flatMap((s) => s.pullers.map((p) => p.spec!.nodeName!)));
    expect([...pulledOn].sort()).toEqual([nodeOf["web-0"], nodeOf["web-1"], nodeOf["web-2"]].sort());
    for (const pod of ["web-2", "web-1", "web-0"]) {
      const pullerAt = seen.findIndex((s) => s.pullers.some((p) => p.spec!.nodeName === nodeOf[pod] && p.metadata!.annotations![PULLER_IMAGE_ANNOTATION] === NEW));
      const turnAt = seen.findIndex((s) => s.pods.some((p) => name(p) === pod && image(p) === "nginx:1.26"));
      expect(pullerAt, pod).toBeGreaterThanOrEqual(0);
      expect(pullerAt, `${pod}: puller pod before its turn`).toBeLessThan(turnAt);
    }
  });

  it("the puller pods were the kind promised: bound, Never restarted, deadline, no code from the image, only the set's pods' tolerations, owned by the ImageList", () => {
    const pullers = seen.flatMap((s) => s.pullers);
    const p = pullers[0];
    expect(p.spec).toMatchObject({ restartPolicy: "Never", activeDeadlineSeconds: 600 });
    expect(p.spec!.containers[0]).toMatchObject({ image: NEW, command: ["/dev/null/ordinal-image-puller"] });
    expect(p.metadata!.ownerReferences).toEqual([expect.objectContaining({ kind: "ImageList", name: p.spec!.nodeName, controller: true })]);
    const podTolerations = seen[0].pods[0].spec!.tolerations ?? [];
    for (const q of pullers) {
      expect(q.spec!.tolerations ?? []).not.toContainEqual(expect.objectContaining({ operator: "Exists", key: undefined }));
      for (const t of q.spec!.tolerations ?? []) expect(podTolerations).toContainEqual(t);
    }
  });

  it("each ImageList status showed the image Pulled", () => {
    for (const pod of ["web-2", "web-1", "web-0"]) {
      const pulled = seen.flatMap((s) => s.lists).find((l) => l.metadata.name === nodeOf[pod] && l.status?.images?.[NEW]?.phase === "Pulled");
      expect(pulled?.status?.images?.[NEW], pod).toMatchObject({ phase: "Pulled", attempts: 1, lastPullTime: expect.any(String) });
    }
  });

  it("once done: puller pods deleted, and the ImageLists Ordinal created, left empty, deleted", async () => {
    expect(await admin.list<Pod>(R.pods, ns, { labelSelector: `${PULLER_LABEL}=true` })).toEqual([]);
    const created = new Set(seen.flatMap((s) => s.lists).map((l) => l.metadata.name));
    expect([...created].sort()).toEqual([nodeOf["web-0"], nodeOf["web-1"], nodeOf["web-2"]].sort());
    expect(await admin.list<ImageList>(R.imageLists, ns)).toEqual([]);
  });

  it("kubectl get imagelists shows IMAGES, PULLED and FAILED", async () => {
    await admin.create(R.imageLists, ns, { apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", metadata: { name: nodeOf["web-0"], namespace: ns }, spec: { images: { [NEW]: {} } } });
    await reconcileInProcess(ns);
    const out = kubectl(["-n", ns, "get", "imagelists"]);
    expect(out.split("\n")[0]).toMatch(/^NAME\s+IMAGES\s+PULLED\s+FAILED\s+AGE/);
    expect(out.split("\n")[1]).toMatch(new RegExp(`^${nodeOf["web-0"]}\\s+1\\s+0\\s+0\\s`));
    await admin.delete(R.imageLists, ns, nodeOf["web-0"]);
  });

  it("an ImageList for a node that runs none of the namespace's pods gets no puller pod: NodeEligible False and a Warning event", async () => {
    await admin.create(R.imageLists, ns, { apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", metadata: { name: "prewarm-node-elsewhere", namespace: ns }, spec: { images: { [NEW]: {} } } });
    await reconcileInProcess(ns);
    // (The previous test's puller pod may still be there: the garbage collector removes it with its list.)
    const pullers = await admin.list<Pod>(R.pods, ns, { labelSelector: `${PULLER_LABEL}=true` });
    expect(pullers.filter((p) => p.spec?.nodeName === "prewarm-node-elsewhere")).toEqual([]);
    const l = (await admin.get<ImageList>(R.imageLists, ns, "prewarm-node-elsewhere"))!;
    expect(l.status?.conditions).toEqual([expect.objectContaining({ type: "NodeEligible", status: "False", reason: "NoPodOfNamespace" })]);
    const events = await admin.list<{ reason: string; type: string; involvedObject: { name: string } }>(R.events, ns);
    expect(events.some((e) => e.reason === "NodeNotEligible" && e.type === "Warning" && e.involvedObject.name === "prewarm-node-elsewhere")).toBe(true);
    await admin.delete(R.imageLists, ns, "prewarm-node-elsewhere");
  });

  it("kubectl explain describes the knob", () => {
    expect(kubectl(["explain", "osts.spec.updateStrategy.rollingUpdate.imagePrewarm", "--api-version=apps.ordinal.dev/v1"])).toMatch(/parallelism/);
    expect(kubectl(["explain", "oil.status.images", "--api-version=apps.ordinal.dev/v1"])).toMatch(/pull state/i);
  });

  it("the CRD refuses parallelism 0 by itself", () => {
    const r = kubectlResult(["-n", ns, "patch", "osts", "web", "--type", "merge", "-p", '{"spec":{"updateStrategy":{"rollingUpdate":{"imagePrewarm":{"parallelism":0}}}}}']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("spec.updateStrategy.rollingUpdate.imagePrewarm.parallelism");
  });
});

describe("bad image references are refused before any pod is created (webhooks of `ordinal serve`)", () => {
  let server: Running;
  let ns: string;
  beforeAll(async () => {
    ns = await newNamespace("prewarm-bad");
    server = await startRegisteredServer();
  });
  afterAll(async () => {
    await server?.stop();
    unregisterWebhooks();
  });

  it("an ImageList with a bad reference is denied with the reference's error; no puller pod appears", async () => {
    const r = kubectlResult(
      ["apply", "-f", "-"],
      `{"apiVersion":"apps.ordinal.dev/v1","kind":"ImageList","metadata":{"name":"${NODES[0]}","namespace":"${ns}"},"spec":{"images":{"nginx:1.26":{},"Nginx:Latest":{}}}}`,
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("spec.images[Nginx:Latest]");
    expect(r.stderr).toContain("must be lowercase");
    expect(await admin.get(R.imageLists, ns, NODES[0])).toBeUndefined();
    await sleep(1500); // a pass of the server's loop
    expect(await admin.list<Pod>(R.pods, ns)).toEqual([]);
  });

  it("a set whose template image does not parse is denied; no pod is created", async () => {
    const r = kubectlResult(["apply", "-f", "-"], JSON.stringify(webSet(ns, "nginx@sha256:abc")));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("spec.template.spec.containers[0].image");
    expect(await admin.get(R.statefulSets, ns, "web")).toBeUndefined();
    await sleep(1500);
    expect(await admin.list<Pod>(R.pods, ns)).toEqual([]);
  });
});
