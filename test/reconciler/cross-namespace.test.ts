/**
 * Issue 19.3: a pod in one namespace never reaches a set (or an ImageList) of another. A tenant
 * who may only write in its own namespace creates a pod labelled `ordinal.dev/statefulset` whose
 * controller reference names the victim set's UID (visible on the victim's pods and events).
 * Before the fix the pass indexed pods by that UID alone: the victim planned to release the pod,
 * the release 404'd in the victim's namespace every pass and the victim set froze (a scale from 1
 * to 2 never happened). Upstream matches controller references by namespace, group, kind and UID.
 */
import { describe, expect, it } from "vitest";
import type { ImageList } from "../../src/api/imagelist.ts";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger } from "../../src/log/log.ts";
import { PULLER_IMAGE_ANNOTATION, PULLER_LABEL, SET_NAME_LABEL } from "../../src/objects/constants.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { NOW, setManifest } from "../support/fixtures.ts";

const SETS = "/apis/apps.ordinal.dev/v1/namespaces";

/**
 * setup returns a fake cluster with the garbage collector off: the real one deletes a pod whose
 * owner lives in another namespace, but the attacker re-creates it faster than a pass comes.
 */
function setup() {
  const fake = createFakeApiServer({ namespaces: ["victim", "attacker"], autoGc: false });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  const pass = () => reconcilePass(client, { now: () => NOW, log: silentLogger });
  const pods = (ns: string) => fake.list<Pod>(`/api/v1/namespaces/${ns}/pods`).map((p) => p.metadata?.name ?? "").sort();
  return { fake, pass, pods };
}

/** forgedPod returns a pod in the attacker's namespace whose controller reference names `owner`. */
const forgedPod = (name: string, labels: Record<string, string>, owner: { apiVersion: string; kind: string; name: string; uid: string }) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "attacker", labels, ownerReferences: [{ ...owner, controller: true }] },
  spec: { containers: [{ name: "c", image: "busybox" }] },
});

describe("a pod in another namespace naming a set's UID as its controller", () => {
  it("is ignored: the victim set still scales, and the forged pod is never written", async () => {
    const { fake, pass, pods } = setup();
    fake.seed(setManifest({ name: "web", namespace: "victim", replicas: 1, policy: "Parallel" }));
    await pass();
    expect(pods("victim")).toEqual(["web-0"]);
    const victim = fake.get<{ metadata: { uid: string } }>(`${SETS}/victim/statefulsets/web`)!;
    const owner = { apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet", name: "web", uid: victim.metadata.uid };
    // Labelled for the pass's list, not matching the victim's selector: before the fix the victim planned its release.
    fake.seed(forgedPod("web-5", { [SET_NAME_LABEL]: "web" }, owner));
    const forged = fake.get<Pod>("/api/v1/namespaces/attacker/pods/web-5")!;
    const set = fake.get<{ spec: Record<string, unknown> }>(`${SETS}/victim/statefulsets/web`)!;
    fake.put({ ...set, spec: { ...set.spec, replicas: 2 } });
    fake.log.clear();
    const r = await pass();
    expect(r.sets.find((s) => s.set === "victim/web")?.error).toBeUndefined();
    expect(pods("victim")).toEqual(["web-0", "web-1"]);
    expect(fake.log.entries.filter((e) => e.verb !== "list" && e.verb !== "get" && e.resource === "pods" && e.name === "web-5")).toEqual([]);
    expect(fake.get<Pod>("/api/v1/namespaces/attacker/pods/web-5")?.metadata?.resourceVersion).toBe(forged.metadata?.resourceVersion);
  });

  it("of the same UID but another kind in the set's namespace is not the set's", async () => {
    const { fake, pass, pods } = setup();
    fake.seed(setManifest({ name: "web", namespace: "victim", replicas: 1, policy: "Parallel" }));
    await pass();
    const victim = fake.get<{ metadata: { uid: string } }>(`${SETS}/victim/statefulsets/web`)!;
    // An apps/v1 StatefulSet reference with the same UID (a forged or a foreign controller): not Ordinal's set.
    fake.seed({ ...forgedPod("web-5", { [SET_NAME_LABEL]: "web" }, { apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: victim.metadata.uid }), metadata: { name: "web-5", namespace: "victim", labels: { [SET_NAME_LABEL]: "web" }, ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: victim.metadata.uid, controller: true }] } });
    fake.log.clear();
    const r = await pass();
    expect(r.sets.find((s) => s.set === "victim/web")?.error).toBeUndefined();
    expect(pods("victim")).toEqual(["web-0", "web-5"]);
    expect(fake.log.entries.filter((e) => e.verb !== "list" && e.verb !== "get" && e.name === "web-5")).toEqual([]);
  });

  it("of an ImageList: a puller pod in another namespace is neither counted nor deleted", async () => {
    const { fake, pass } = setup();
    fake.seed({ apiVersion: "v1", kind: "Node", metadata: { name: "node-a" } });
    fake.seed({ apiVersion: "v1", kind: "Pod", metadata: { name: "app", namespace: "victim" }, spec: { nodeName: "node-a", containers: [{ name: "c", image: "busybox" }] } });
    fake.seed({ apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", metadata: { name: "node-a", namespace: "victim" }, spec: { images: { "nginx:1.25": {} } } });
    const list = fake.get<ImageList>(`${SETS}/victim/imagelists/node-a`)!;
    // A "puller pod" for the victim's image, owned (by UID) by the victim's ImageList, that says the image is present.
    fake.seed(
      forgedPod("node-a-pull-forged", { [PULLER_LABEL]: "true" }, { apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", name: "node-a", uid: list.metadata.uid ?? "" }),
    );
    const forged = fake.get<Pod>("/api/v1/namespaces/attacker/pods/node-a-pull-forged")!;
    fake.put({ ...forged, metadata: { ...forged.metadata, annotations: { [PULLER_IMAGE_ANNOTATION]: "docker.io/library/nginx:1.25" } }, status: { phase: "Running", containerStatuses: [{ name: "c", state: { running: {} } }] } });
    fake.log.clear();
    await pass();
    expect(fake.get<Pod>("/api/v1/namespaces/attacker/pods/node-a-pull-forged")).toBeDefined();
    expect(fake.log.entries.filter((e) => e.verb === "delete")).toEqual([]);
    expect(fake.get<ImageList>(`${SETS}/victim/imagelists/node-a`)?.status?.images?.["nginx:1.25"]?.phase).toBe("Pulling");
  });
});
