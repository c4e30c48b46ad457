/** The kubelet player: Ready as the kubelet computes it, and in-place image changes restarting one container. */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { ImageListSchema } from "../../src/api/imagelist.ts";
import { newPullerPod, pullOutcome } from "../../src/core/puller-pod.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";

function setup(o: { pullSeconds?: number; unreadyImages?: (i: string) => boolean; pullFails?: (i: string) => boolean; noShell?: (i: string) => boolean } = {}) {
  let clock = Date.parse("2026-11-21T12:00:00.300Z");
  const now = () => new Date(clock);
  const fake = createFakeApiServer({ now });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} });
  const kubelet = new KubeletPlayer(client, { namespace: "default", now, ...o });
  const get = async () => (await client.get<Pod>(R.pods, "default", "p"))!;
  const advance = (s: number) => (clock += s * 1000);
  return { client, kubelet, get, advance };
}

const gatedPod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p" },
  spec: { containers: [{ name: "a", image: "a:1" }, { name: "b", image: "b:1" }], readinessGates: [{ conditionType: "InPlaceUpdateReady" }] },
};
const cond = (p: Pod, type: string) => p.status?.conditions?.find((c) => c.type === type)?.status;
const cs = (p: Pod, name: string) => p.status!.containerStatuses!.find((c) => c.name === name)!;

async function setGate(client: ReturnType<typeof setup>["client"], p: Pod, status: "True" | "False") {
  const conditions = [...(p.status?.conditions ?? []).filter((c) => c.type !== "InPlaceUpdateReady"), { type: "InPlaceUpdateReady", status }];
  await client.patch(R.pods, "default", "p", { status: { conditions } }, "merge", "status");
}

describe("KubeletPlayer", () => {
  it("reports Ready only when every container is ready AND every readiness gate is True", async () => {
    const { client, kubelet, get } = setup();
    await client.create(R.pods, "default", gatedPod);
    await kubelet.step(); // bind
    await kubelet.step(); // start
    let p = await get();
    expect(p.status?.phase).toBe("Running");
    expect(cond(p, "ContainersReady")).toBe("True");
    expect(cond(p, "Ready")).toBe("False"); // no gate condition yet
    await setGate(client, p, "True");
    await kubelet.step();
    p = await get();
    expect(cond(p, "Ready")).toBe("True");
    await setGate(client, p, "False");
    await kubelet.step();
    p = await get();
    expect(cond(p, "Ready")).toBe("False");
    expect(cond(p, "InPlaceUpdateReady")).toBe("False"); // kept, not the kubelet's
  });

  it("an image change restarts only that container after the pull delay; UID, node and IP stay", async () => {
    const { client, kubelet, get, advance } = setup({ pullSeconds: 3 });
    await client.create(R.pods, "default", gatedPod);
    await kubelet.step();
    await kubelet.step();
    await setGate(client, await get(), "True");
    await kubelet.step();
    const before = await get();
    expect(cond(before, "Ready")).toBe("True");
    advance(10);
    const updated = structuredClone(before);
    updated.spec!.containers[0].image = "a:2";
    delete updated.status;
    await client.update(R.pods, "default", updated);
    await kubelet.step(); // kill a: waiting, pulling
    let p = await get();
    expect(cs(p, "a")).toMatchObject({ image: "a:2", imageID: "", ready: false, restartCount: 0 });
    expect(cs(p, "a").state?.waiting).toBeDefined();
    expect(cs(p, "b")).toEqual(cs(before, "b"));
    expect(cond(p, "Ready")).toBe("False");
    advance(1);
    await kubelet.step(); // still pulling
    expect(cs(await get(), "a").state?.waiting).toBeDefined();
    advance(3);
    await kubelet.step();
    p = await get();
    expect(cs(p, "a")).toMatchObject({ image: "a:2", imageID: "sim://a:2", ready: true, restartCount: 1 });
    expect(String(cs(p, "a").state?.running?.startedAt)).toBe("2026-11-21T12:00:14Z");
    expect(cs(p, "b")).toEqual(cs(before, "b"));
    expect(cond(p, "Ready")).toBe("True");
    expect(p.metadata!.uid).toBe(before.metadata!.uid);
    expect(p.spec!.nodeName).toBe(before.spec!.nodeName);
    expect(p.status!.podIP).toBe(before.status!.podIP);
  });

  it("a container of an unready image runs but never becomes ready", async () => {
    const { client, kubelet, get } = setup({ unreadyImages: (i) => i.endsWith(":broken") });
    await client.create(R.pods, "default", { ...gatedPod, spec: { ...gatedPod.spec, containers: [{ name: "a", image: "a:broken" }] } });
    await kubelet.step();
    await kubelet.step();
    await setGate(client, await get(), "True");
    for (let i = 0; i < 3; i++) await kubelet.step();
    const p = await get();
    expect(cs(p, "a").state?.running).toBeDefined();
    expect(cond(p, "Ready")).toBe("False");
  });

  describe("puller pods (pre-warm)", () => {
    const NODE = "sim-node-a";
    const list = { apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", metadata: { name: NODE, namespace: "default" }, spec: { images: {} } };
    // The fake's garbage collector deletes pods whose owner does not exist: the ImageList is created first.
    let stored = ImageListSchema.parse(list);
    const withList = async <T extends ReturnType<typeof setup>>(t: T): Promise<T> => {
      stored = ImageListSchema.parse(await t.client.create(R.imageLists, "default", list));
      return t;
    };
    const pullerFor = (image: string, policy = false) => newPullerPod(stored, image, policy, { tolerations: [], imagePullSecrets: [] });
    const renamed = (p: Pod, name: string): Pod => ({ ...p, metadata: { ...p.metadata, name } });
    const state = async (client: ReturnType<typeof setup>["client"], image: string) => {
      const p = (await client.get<Pod>(R.pods, "default", pullerFor(image).metadata!.name!))!;
      return { phase: p.status?.phase, state: p.status?.containerStatuses?.[0]?.state, outcome: pullOutcome(p, new Date("2026-11-21T12:00:30Z")).state };
    };

    it("a slow pull: ContainerCreating for pullSeconds, then the command that cannot exist fails to start (StartError, present); a second pull is immediate", async () => {
      const { client, kubelet, advance } = await withList(setup({ pullSeconds: 5 }));
      await client.create(R.pods, "default", pullerFor("nginx:1.26"));
      await kubelet.step();
      expect(await state(client, "nginx:1.26")).toMatchObject({ phase: "Pending", state: { waiting: { reason: "ContainerCreating" } }, outcome: "pulling" });
      advance(3);
      await kubelet.step();
      expect((await state(client, "nginx:1.26")).outcome).toBe("pulling");
      advance(2);
      await kubelet.step();
      expect(await state(client, "nginx:1.26")).toMatchObject({
        phase: "Failed",
        state: { terminated: { reason: "StartError", exitCode: 128, message: 'exec: "/dev/null/ordinal-image-puller": stat /dev/null/ordinal-image-puller: not a directory' } },
        outcome: "present",
      });
      expect(kubelet.imagesOn(NODE)).toEqual(["docker.io/library/nginx:1.26"]);
      await client.create(R.pods, "default", renamed(pullerFor("docker.io/library/nginx:1.26"), "again"));
      await kubelet.step();
      expect((await client.get<Pod>(R.pods, "default", "again"))!.status?.phase).toBe("Failed");
    });

    it("imagePullPolicy Always pulls again even when the node has the image", async () => {
      const { client, kubelet, advance } = await withList(setup({ pullSeconds: 5 }));
      await client.create(R.pods, "default", pullerFor("nginx:1.26"));
      advance(1);
      await kubelet.step();
      advance(5);
      await kubelet.step();
      await client.create(R.pods, "default", renamed(pullerFor("nginx:1.26", true), "always"));
      await kubelet.step();
      expect((await client.get<Pod>(R.pods, "default", "always"))!.status?.phase).toBe("Pending");
    });

    it("a failing pull: ErrImagePull, then ImagePullBackOff; never present", async () => {
      const { client, kubelet } = await withList(setup({ pullFails: (i) => i.includes("private") }));
      await client.create(R.pods, "default", pullerFor("example.com/private/app:1"));
      await kubelet.step();
      expect(await state(client, "example.com/private/app:1")).toMatchObject({ state: { waiting: { reason: "ErrImagePull" } }, outcome: "failed" });
      await kubelet.step();
      expect(await state(client, "example.com/private/app:1")).toMatchObject({ state: { waiting: { reason: "ImagePullBackOff" } }, outcome: "failed" });
      expect(kubelet.imagesOn(NODE)).toEqual([]);
    });

    it("an image without a shell: pulled, the container fails to start (StartError), which counts as present", async () => {
      const { client, kubelet } = await withList(setup({ noShell: (i) => i.includes("distroless") }));
      await client.create(R.pods, "default", pullerFor("gcr.io/distroless/static:nonroot"));
      await kubelet.step();
      expect(await state(client, "gcr.io/distroless/static:nonroot")).toMatchObject({ phase: "Failed", state: { terminated: { reason: "StartError" } }, outcome: "present" });
      expect(kubelet.imagesOn(NODE)).toEqual(["gcr.io/distroless/static:nonroot"]);
    });

    it("an in-place image change to an image the node has takes no pull time; to one it lacks, pullSeconds", async () => {
      const { client, kubelet, get, advance } = await withList(setup({ pullSeconds: 30 }));
      await client.create(R.pods, "default", { ...gatedPod, spec: { ...gatedPod.spec, nodeName: NODE } });
      await client.create(R.pods, "default", pullerFor("a:2"));
      await kubelet.step(); // p starts; the puller starts pulling a:2
      await setGate(client, await get(), "True");
      advance(30);
      await kubelet.step(); // the pull is done
      expect(kubelet.imagesOn(NODE)).toEqual(["docker.io/library/a:1", "docker.io/library/a:2", "docker.io/library/b:1"]);
      const change = async (a: string, b: string) => {
        const ops = [
          { op: "replace", path: "/spec/containers/0/image", value: a },
          { op: "replace", path: "/spec/containers/1/image", value: b },
        ];
        await client.patch(R.pods, "default", "p", ops, "json");
        await kubelet.step(); // container killed for the change
        await kubelet.step(); // started again if the image is there
      };
      await change("a:2", "b:1");
      expect(cs(await get(), "a")).toMatchObject({ image: "a:2", restartCount: 1, state: { running: expect.anything() } });
      await change("a:2", "b:2");
      expect(cs(await get(), "b").state?.waiting).toBeDefined();
      advance(30);
      await kubelet.step();
      expect(cs(await get(), "b")).toMatchObject({ image: "b:2", state: { running: expect.anything() } });
    });
  });
});
