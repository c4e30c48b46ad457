/**
 * What an ImageList can make Ordinal do (issues 19.2 and 21), through a whole pass on the fake
 * apiserver: a list named after a node that runs no pod of its namespace gets no puller pod, a
 * NodeEligible=False condition and a Warning event; on an eligible node the puller pod carries only
 * the tolerations of the namespace's pods there, and the pull secrets of the list and of the set
 * whose rollout added the entry (its template's and its ServiceAccount's).
 */
import { describe, expect, it } from "vitest";
import { ImageListSchema, type ImageList } from "../../src/api/imagelist.ts";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { silentLogger, type Logger } from "../../src/log/log.ts";
import { PREWARM_ADDED_ANNOTATION, PREWARM_CREATED_ANNOTATION, PULLER_LABEL } from "../../src/objects/constants.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { actuateImageLists } from "../../src/reconciler/prewarm.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { NOW, setManifest } from "../support/fixtures.ts";

const LISTS = "/apis/apps.ordinal.dev/v1/namespaces/team/imagelists";
const IMG = "docker.io/library/nginx:1.26";
const toleration = { key: "dedicated", operator: "Equal", value: "team", effect: "NoSchedule" };

function setup() {
  const fake = createFakeApiServer({ namespaces: ["team", "other"] });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  const pass = (log: Logger = silentLogger) => reconcilePass(client, { now: () => NOW, log });
  const pullers = () => fake.list<Pod>("/api/v1/namespaces/team/pods", { labelSelector: `${PULLER_LABEL}=true` });
  const seedList = (node: string, extra: Record<string, unknown> = {}, annotations?: Record<string, string>) =>
    fake.seed({ apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", metadata: { name: node, namespace: "team", ...(annotations ? { annotations } : {}) }, spec: { images: { [IMG]: {} }, ...extra } });
  const seedPod = (name: string, ns: string, node: string, tolerations: object[] = []) =>
    fake.seed({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: ns }, spec: { nodeName: node, tolerations, containers: [{ name: "c", image: "app:1" }] } });
  return { fake, client, pass, pullers, seedList, seedPod };
}

describe("an ImageList for a node that runs no pod of its namespace", () => {
  it("gets no puller pod: NodeEligible False, the image Failed (retried with the backoff), a Warning event", async () => {
    const { fake, pass, pullers, seedList, seedPod } = setup();
    // Another namespace's pod on the node does not make it eligible.
    seedPod("elsewhere", "other", "control-plane-0", [{ operator: "Exists" }]);
    seedList("control-plane-0");
    await pass();
    expect(pullers()).toEqual([]);
    const status = fake.get<ImageList>(`${LISTS}/control-plane-0`)!.status!;
    expect(status.conditions).toEqual([expect.objectContaining({ type: "NodeEligible", status: "False", reason: "NoPodOfNamespace" })]);
    expect(status.images![IMG]).toMatchObject({ phase: "Failed", message: expect.stringContaining('runs no pod of namespace "team"'), nextAttemptTime: expect.any(String) });
    expect(status).toMatchObject({ desired: 1, pulled: 0, failed: 1 });
    const events = fake.list<{ type: string; reason: string; involvedObject: { kind: string; name: string } }>("/api/v1/namespaces/team/events");
    expect(events).toEqual([expect.objectContaining({ type: "Warning", reason: "NodeNotEligible", involvedObject: expect.objectContaining({ kind: "ImageList", name: "control-plane-0" }) })]);
  });
});

describe("the log of an ImageList for a node that runs no pod of its namespace", () => {
  it("is one warn line: its NodeNotEligible event gets no 'warning event' line of its own", async () => {
    const { pass, seedList, seedPod } = setup();
    seedPod("elsewhere", "other", "control-plane-0");
    seedList("control-plane-0");
    const warns: string[] = [];
    await pass({ info() {}, warn: (msg) => void warns.push(msg), error() {} });
    expect(warns).toEqual(["image list not acted on"]);
  });
});

describe("a puller pod on an eligible node", () => {
  it("tolerates only what the namespace's pods there tolerate and never runs the image's code", async () => {
    const { pass, pullers, seedList, seedPod } = setup();
    seedPod("app", "team", "node-a", [toleration]);
    seedList("node-a");
    await pass();
    const [p] = pullers();
    // The apiserver adds the not-ready/unreachable NoExecute ones to both pods (DefaultTolerationSeconds).
    expect(p.spec!.tolerations).toContainEqual(toleration);
    expect(p.spec!.tolerations!.filter((t) => t.key === undefined || t.key === "")).toEqual([]);
    expect(p.spec!.containers[0].command).toEqual(["/dev/null/ordinal-image-puller"]);
    expect(p.spec!.imagePullSecrets).toBeUndefined();
  });

  it("pulls with the list's secrets and those of the set that added the entry (template and ServiceAccount)", async () => {
    const { fake, client, pullers, seedList, seedPod } = setup();
    fake.seed({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "puller-sa", namespace: "team" }, imagePullSecrets: [{ name: "sa-secret" }] });
    fake.seed(
      setManifest({
        name: "web",
        namespace: "team",
        replicas: 0,
        spec: { template: { metadata: { labels: { app: "web" } }, spec: { serviceAccountName: "puller-sa", imagePullSecrets: [{ name: "tpl-secret" }], containers: [{ name: "c", image: IMG }] } } },
      }),
    );
    seedPod("app", "team", "node-a");
    // The set's rollout is under way (its pass would keep the entry): the actuator alone, as the pass runs it after the sets.
    const list = seedList("node-a", { imagePullSecrets: [{ name: "list-secret" }] }, { [PREWARM_ADDED_ANNOTATION]: JSON.stringify({ [IMG]: ["web"] }) });
    await actuateImageLists(client, [ImageListSchema.parse(list)], { now: () => NOW, log: silentLogger, namespace: "team" });
    const [p] = pullers();
    expect(p.spec!.imagePullSecrets).toEqual([{ name: "list-secret" }, { name: "tpl-secret" }, { name: "sa-secret" }]);
  });
});

describe("empty ImageLists (issue 21)", () => {
  it("one Ordinal created is deleted once it lists nothing; a person's empty one stays, and so does one a person added to", async () => {
    const { fake, client, seedList } = setup();
    const created = { [PREWARM_CREATED_ANNOTATION]: "true" };
    seedList("node-a", {}, created);
    seedList("node-b", {}, undefined);
    seedList("node-c", {}, created);
    for (const node of ["node-a", "node-b"]) {
      const l = fake.get<ImageList>(`${LISTS}/${node}`)!;
      fake.put({ ...l, spec: { images: {} } });
    }
    const lists = fake.list<ImageList>(LISTS).map((l) => ImageListSchema.parse(l));
    const r = await actuateImageLists(client, lists, { now: () => NOW, log: silentLogger, namespace: "team" });
    expect(r.actions).toContain("deleteImageList node-a");
    expect(fake.list<ImageList>(LISTS).map((l) => l.metadata.name).sort()).toEqual(["node-b", "node-c"]);
  });

  it("is not deleted when a person added an image since it was read (the delete's resourceVersion precondition)", async () => {
    const { fake, client, seedList } = setup();
    seedList("node-a", {}, { [PREWARM_CREATED_ANNOTATION]: "true" });
    const l = fake.get<ImageList>(`${LISTS}/node-a`)!;
    fake.put({ ...l, spec: { images: {} } });
    const seen = ImageListSchema.parse(fake.get<ImageList>(`${LISTS}/node-a`));
    const now = fake.get<ImageList>(`${LISTS}/node-a`)!;
    fake.put({ ...now, spec: { images: { [IMG]: {} } } });
    await actuateImageLists(client, [seen], { now: () => NOW, log: silentLogger, namespace: "team" });
    expect(fake.get<ImageList>(`${LISTS}/node-a`)?.spec.images).toHaveProperty([IMG]);
  });
});
