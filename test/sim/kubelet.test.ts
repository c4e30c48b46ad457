/** The kubelet player: Ready as the kubelet computes it, and in-place image changes restarting one container. */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";

function setup(o: { pullSeconds?: number; unreadyImages?: (i: string) => boolean } = {}) {
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
});
