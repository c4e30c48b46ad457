import { describe, expect, it } from "vitest";
import type { ImageList, ImagePullStatus } from "../../src/api/imagelist.ts";
import type { Pod } from "../../src/api/k8s.ts";
import { PULLER_IMAGE_ANNOTATION, PULLER_LABEL } from "../../src/objects/constants.ts";
import { planImagePulls, pullBackoffSeconds, PULLERS_PER_NODE } from "../../src/core/image-pulls.ts";
import { newPullerPod, pullerPodName, pullOutcome } from "../../src/core/puller-pod.ts";

const NOW = new Date("2026-11-21T12:00:00Z");
const NGINX = "docker.io/library/nginx:1.26";

const list = (images: Record<string, { alwaysPull: boolean }>, status?: Record<string, ImagePullStatus>, name = "node-a"): ImageList => ({
  apiVersion: "apps.ordinal.dev/v1",
  kind: "ImageList",
  metadata: { name, namespace: "ns", uid: "list-uid", generation: 1 },
  spec: { images },
  ...(status ? { status: { images: status } } : {}),
});

const NO_EXTRAS = { tolerations: [], imagePullSecrets: [] };

/** puller returns the puller pod of `image` with a container state (or pod phase / age) as the kubelet reports it. */
function puller(image: string, st: { waiting?: string; running?: boolean; terminated?: string; phase?: string; reason?: string; ageSeconds?: number; deleting?: boolean; noStatus?: boolean } = {}): Pod {
  const p = newPullerPod(list({}), image, false, NO_EXTRAS);
  p.metadata!.uid = `uid-${image}`;
  p.metadata!.creationTimestamp = new Date(NOW.getTime() - (st.ageSeconds ?? 5) * 1000).toISOString() as unknown as Date;
  if (st.deleting) p.metadata!.deletionTimestamp = NOW.toISOString() as unknown as Date;
  if (st.noStatus) return p;
  const state = st.running ? { running: {} } : st.terminated ? { terminated: { exitCode: 0, reason: st.terminated } } : st.waiting ? { waiting: { reason: st.waiting, message: "m" } } : undefined;
  p.status = { phase: st.phase ?? "Pending", ...(st.reason ? { reason: st.reason } : {}), ...(state ? { containerStatuses: [{ name: "pull", image, imageID: "", ready: false, restartCount: 0, state }] } : {}) } as Pod["status"];
  return p;
}

describe("newPullerPod", () => {
  it("is bound to the node, never restarts, never runs the image's code, tiny, owned by the list, labelled", () => {
    const p = newPullerPod({ ...list({}), metadata: { name: "node-a", namespace: "ns", uid: "u1" } }, NGINX, true, NO_EXTRAS);
    expect(p.metadata).toMatchObject({
      name: pullerPodName("node-a", NGINX),
      namespace: "ns",
      labels: { [PULLER_LABEL]: "true", "app.kubernetes.io/managed-by": "ordinal" },
      annotations: { [PULLER_IMAGE_ANNOTATION]: NGINX },
      ownerReferences: [{ apiVersion: "apps.ordinal.dev/v1", kind: "ImageList", name: "node-a", uid: "u1", controller: true }],
    });
    expect(p.spec).toMatchObject({ nodeName: "node-a", restartPolicy: "Never", activeDeadlineSeconds: 600, automountServiceAccountToken: false });
    expect(p.spec!.containers[0]).toMatchObject({ image: NGINX, imagePullPolicy: "Always", command: ["/dev/null/ordinal-image-puller"], resources: { requests: { cpu: "1m", memory: "4Mi" } } });
    expect(p.spec!.containers[0].args).toBeUndefined();
    expect(newPullerPod(list({}), NGINX, false, NO_EXTRAS).spec!.containers[0].imagePullPolicy).toBe("IfNotPresent");
  });

  it("tolerates nothing and names no pull secret unless given (issue 19.2: never `operator: Exists` by itself)", () => {
    const p = newPullerPod(list({}), NGINX, false, NO_EXTRAS);
    expect(p.spec!.tolerations).toBeUndefined();
    expect(p.spec!.imagePullSecrets).toBeUndefined();
    const t = { key: "dedicated", operator: "Equal", value: "db", effect: "NoSchedule" };
    const q = newPullerPod(list({}), NGINX, false, { tolerations: [t], imagePullSecrets: ["reg-a", "reg-b"] });
    expect(q.spec!.tolerations).toEqual([t]);
    expect(q.spec!.imagePullSecrets).toEqual([{ name: "reg-a" }, { name: "reg-b" }]);
  });

  it("names fit a pod name for any node name, one per image", () => {
    const long = "n".repeat(253);
    expect(pullerPodName(long, NGINX).length).toBeLessThanOrEqual(253);
    expect(pullerPodName("a", NGINX)).not.toBe(pullerPodName("a", "docker.io/library/nginx:1.27"));
    expect(pullerPodName("a", NGINX)).toMatch(/^a-pull-[0-9a-f]{8}$/);
  });
});

describe("pullOutcome", () => {
  it.each([
    ["no status yet", {}, "pulling"],
    ["ContainerCreating", { waiting: "ContainerCreating" }, "pulling"],
    ["running", { running: true, phase: "Running" }, "present"],
    ["terminated Completed", { terminated: "Completed", phase: "Succeeded" }, "present"],
    ["terminated StartError (no shell)", { terminated: "StartError", phase: "Failed" }, "present"],
    ["CreateContainerError", { waiting: "CreateContainerError" }, "present"],
    ["RunContainerError", { waiting: "RunContainerError" }, "present"],
    ["StartError waiting", { waiting: "StartError" }, "present"],
    ["ErrImagePull", { waiting: "ErrImagePull" }, "failed"],
    ["ImagePullBackOff", { waiting: "ImagePullBackOff" }, "failed"],
    ["InvalidImageName", { waiting: "InvalidImageName" }, "failed"],
    ["Failed by the deadline while pulling", { waiting: "ContainerCreating", phase: "Failed", reason: "DeadlineExceeded" }, "failed"],
    ["no kubelet news for 11 minutes", { noStatus: true, ageSeconds: 661 }, "failed"],
    ["no kubelet news for 10 minutes", { noStatus: true, ageSeconds: 600 }, "pulling"],
  ])("%s → %s", (_, st, want) => {
    expect(pullOutcome(puller(NGINX, st), NOW).state).toBe(want);
  });
});

describe("planImagePulls", () => {
  const plan = (l: ImageList, pods: Pod[] = [], budget = { left: 20 }) => {
    const p = planImagePulls(l, pods, NOW, budget);
    return { ...p, created: p.create.map((c) => c.image), deleted: p.delete.map((d) => d.name) };
  };
  const at = (s: number) => new Date(NOW.getTime() + s * 1000).toISOString().replace(/\.\d+Z$/, "Z");

  it("a new image: a puller pod, Pulling, attempt 1", () => {
    const p = plan(list({ "nginx:1.26": { alwaysPull: false } }));
    expect(p.created).toEqual([NGINX]);
    expect(p.images["nginx:1.26"]).toMatchObject({ phase: "Pulling", attempts: 1 });
    expect(p.statusChanged && p.inFlight).toBe(true);
  });

  it("two spellings of one image share one puller pod and one state", () => {
    const p = plan(list({ "nginx:1.26": { alwaysPull: false }, [NGINX]: { alwaysPull: true } }));
    expect(p.created).toEqual([NGINX]);
    expect(p.create[0].alwaysPull).toBe(true);
    expect(p.images["nginx:1.26"]).toEqual(p.images[NGINX]);
  });

  it("still pulling: nothing to do but wait", () => {
    const l = list({ [NGINX]: { alwaysPull: false } }, { [NGINX]: { phase: "Pulling", attempts: 1, message: "puller pod running" } });
    const p = plan(l, [puller(NGINX, { waiting: "ContainerCreating" })]);
    expect([p.created, p.deleted, p.statusChanged, p.inFlight]).toEqual([[], [], false, true]);
  });

  it("present: Pulled now, the pod deleted; no re-pull unless alwaysPull (then in 24 h)", () => {
    const l = list({ [NGINX]: { alwaysPull: false } }, { [NGINX]: { phase: "Pulling", attempts: 1 } });
    const p = plan(l, [puller(NGINX, { terminated: "Completed", phase: "Succeeded" })]);
    expect(p.deleted).toEqual([pullerPodName("node-a", NGINX)]);
    expect(p.images[NGINX]).toEqual({ phase: "Pulled", attempts: 1, lastPullTime: at(0), message: "pulled (container Completed)" });
    const always = plan(list({ [NGINX]: { alwaysPull: true } }, { [NGINX]: { phase: "Pulling", attempts: 1 } }), [puller(NGINX, { terminated: "StartError", phase: "Failed" })]);
    expect(always.images[NGINX]).toMatchObject({ phase: "Pulled", nextAttemptTime: at(24 * 3600) });
  });

  it("failed: Failed with the kubelet's reason, the pod deleted, a retry after the backoff", () => {
    const l = list({ [NGINX]: { alwaysPull: false } }, { [NGINX]: { phase: "Pulling", attempts: 3 } });
    const p = plan(l, [puller(NGINX, { waiting: "ErrImagePull" })]);
    expect(p.deleted).toHaveLength(1);
    expect(p.images[NGINX]).toEqual({ phase: "Failed", attempts: 3, message: "ErrImagePull: m", nextAttemptTime: at(40) });
  });

  it.each([
    [1, 10],
    [2, 20],
    [3, 40],
    [6, 300],
    [60, 300],
  ])("backoff after %i failures: %i s", (n, s) => expect(pullBackoffSeconds(n)).toBe(s));

  it("a Failed image waits for nextAttemptTime, then tries again (attempt + 1)", () => {
    const failed = (next: number) => list({ [NGINX]: { alwaysPull: false } }, { [NGINX]: { phase: "Failed", attempts: 2, nextAttemptTime: at(next) } });
    const early = plan(failed(15));
    expect([early.created, early.statusChanged, early.nextDueMs]).toEqual([[], false, 15000]);
    const due = plan(failed(0));
    expect(due.created).toEqual([NGINX]);
    expect(due.images[NGINX]).toMatchObject({ phase: "Pulling", attempts: 3 });
    expect(due.images[NGINX].nextAttemptTime).toBeUndefined();
  });

  it("Pulled stays Pulled; alwaysPull pulls again once 24 h have passed (attempts from 1)", () => {
    const pulled = (always: boolean, next?: number) =>
      list({ [NGINX]: { alwaysPull: always } }, { [NGINX]: { phase: "Pulled", attempts: 2, lastPullTime: at(-100), ...(next !== undefined ? { nextAttemptTime: at(next) } : {}) } });
    expect(plan(pulled(false)).created).toEqual([]);
    expect(plan(pulled(true, 50)).created).toEqual([]);
    const again = plan(pulled(true, 0));
    expect(again.created).toEqual([NGINX]);
    expect(again.images[NGINX]).toMatchObject({ phase: "Pulling", attempts: 1, lastPullTime: at(-100) });
    // alwaysPull turned off: the planned re-pull is dropped.
    expect(plan(pulled(false, 50)).images[NGINX].nextAttemptTime).toBeUndefined();
  });

  it(`at most ${PULLERS_PER_NODE} unfinished puller pods per node; the rest wait Pending`, () => {
    const images = Object.fromEntries(["a:1", "b:1", "c:1", "d:1"].map((i) => [i, { alwaysPull: false }]));
    const p = plan(list(images));
    expect(p.created).toEqual(["docker.io/library/a:1", "docker.io/library/b:1"]);
    expect(p.images["c:1"]).toMatchObject({ phase: "Pending", attempts: 0 });
    const running = plan(list(images, { "a:1": { phase: "Pulling", attempts: 1 } }), [puller("docker.io/library/a:1")]);
    expect(running.created).toEqual(["docker.io/library/b:1"]);
  });

  it("the pass budget is shared across lists", () => {
    const budget = { left: 3 };
    const images = Object.fromEntries(["a:1", "b:1"].map((i) => [i, { alwaysPull: false }]));
    expect(plan(list(images, undefined, "n1"), [], budget).created).toHaveLength(2);
    expect(plan(list(images, undefined, "n2"), [], budget).created).toHaveLength(1);
    expect(plan(list(images, undefined, "n3"), [], budget).created).toHaveLength(0);
    expect(budget.left).toBe(0);
  });

  it("an invalid reference is Failed without a pod; pods of images no longer listed are deleted; terminating pods are waited for", () => {
    const p = plan(list({ "Bad Ref": { alwaysPull: false }, [NGINX]: { alwaysPull: false } }, { [NGINX]: { phase: "Pulling", attempts: 1 }, "gone:1": { phase: "Pulled", attempts: 1 } }), [
      puller("docker.io/library/gone:1"),
      puller(NGINX, { deleting: true }),
    ]);
    expect(p.images["Bad Ref"]).toMatchObject({ phase: "Failed", message: expect.stringMatching(/^invalid image reference: invalid reference format/) });
    expect(p.created).toEqual([]);
    expect(p.deleted).toEqual([pullerPodName("node-a", "docker.io/library/gone:1")]);
    expect(Object.keys(p.images).sort()).toEqual(["Bad Ref", NGINX]);
    expect(p.inFlight).toBe(true);
  });
});

describe("planImagePulls: order, slots and the reported state", () => {
  const plan = (l: ImageList, pods: Pod[] = [], budget = { left: 20 }) => {
    const p = planImagePulls(l, pods, NOW, budget);
    return { ...p, created: p.create.map((c) => c.image), deleted: p.delete.map((d) => d.name) };
  };
  const at = (s: number) => new Date(NOW.getTime() + s * 1000).toISOString().replace(/\.\d+Z$/, "Z");
  const pull = { alwaysPull: false };
  const lib = (i: string) => `docker.io/library/${i}`;

  it("images are taken in sorted order, whatever the order of the list's keys", () => {
    expect(plan(list({ "d:1": pull, "c:1": pull, "b:1": pull, "a:1": pull })).created).toEqual([lib("a:1"), lib("b:1")]);
  });

  it("a null option (the CRD refuses it) reads as alwaysPull false", () => {
    const p = plan(list({ "a:1": null as never }));
    expect(p.create.map((c) => c.alwaysPull)).toEqual([false]);
  });

  it("the first pull of a new image is attempt 1; a Pulling image whose pod was lost gets attempt 2", () => {
    const p = plan(list({ "a:1": pull, "b:1": pull }, { "b:1": { phase: "Pulling", attempts: 1, message: "puller pod running" } }));
    expect(p.created).toEqual([lib("a:1"), lib("b:1")]);
    expect(p.images).toEqual({
      "a:1": { phase: "Pulling", attempts: 1, message: "puller pod created" },
      "b:1": { phase: "Pulling", attempts: 2, message: "puller pod created (attempt 2)" },
    });
  });

  it("no slot: new and lost pulls wait Pending, a due retry stays Failed; still in flight", () => {
    const failed: ImagePullStatus = { phase: "Failed", attempts: 2, message: "ErrImagePull: m", nextAttemptTime: at(-1) };
    const p = plan(list({ "a:1": pull, "b:1": pull, "c:1": pull }, { "b:1": { phase: "Pulling", attempts: 1 }, "c:1": failed }), [], { left: 0 });
    const waiting = `waiting for a puller slot (at most ${PULLERS_PER_NODE} puller pods per node at once)`;
    expect(p.images).toEqual({ "a:1": { phase: "Pending", attempts: 0, message: waiting }, "b:1": { phase: "Pending", attempts: 1, message: waiting }, "c:1": failed });
    expect([p.created, p.inFlight]).toEqual([[], true]);
  });

  it("finished and terminating puller pods hold no slot", () => {
    const l = list({ "a:1": pull, "b:1": pull, "c:1": pull, "d:1": pull }, { "a:1": { phase: "Pulling", attempts: 1 }, "b:1": { phase: "Pulling", attempts: 1 } });
    const p = plan(l, [puller(lib("a:1"), { terminated: "Completed", phase: "Succeeded" }), puller(lib("b:1"), { deleting: true })]);
    expect(p.created).toEqual([lib("c:1"), lib("d:1")]);
    expect(p.deleted).toEqual([pullerPodName("node-a", lib("a:1"))]);
  });

  it("a terminating puller pod is waited for, whatever it reports: not deleted again, the state kept", () => {
    const prev: ImagePullStatus = { phase: "Pulling", attempts: 1, message: "puller pod running" };
    const p = plan(list({ [NGINX]: pull }, { [NGINX]: prev }), [puller(NGINX, { deleting: true, terminated: "Completed", phase: "Succeeded" })]);
    expect([p.created, p.deleted, p.images, p.statusChanged, p.inFlight]).toEqual([[], [], { [NGINX]: prev }, false, true]);
  });

  it("a finished pull is still in flight until its pod is gone", () => {
    const p = plan(list({ [NGINX]: pull }, { [NGINX]: { phase: "Pulling", attempts: 1 } }), [puller(NGINX, { running: true, phase: "Running" })]);
    expect([p.deleted, p.inFlight]).toEqual([[pullerPodName("node-a", NGINX)], true]);
  });

  it("a pod without the image annotation is deleted; a terminating pod of an image no longer listed is not deleted again", () => {
    const bare = puller(lib("x:1"));
    delete bare.metadata!.annotations;
    const p = plan(list({}), [bare, puller(lib("gone:1"), { deleting: true })]);
    expect(p.deleted).toEqual([bare.metadata!.name]);
  });

  it("all pulled, nothing due: nothing in flight, nothing to wake up for (a re-pull planned before alwaysPull was turned off is dropped)", () => {
    const pulled: ImagePullStatus = { phase: "Pulled", attempts: 1, lastPullTime: at(-100), message: "pulled (container Completed)" };
    const p = plan(list({ "a:1": pull, "b:1": pull }, { "a:1": pulled, "b:1": { ...pulled, nextAttemptTime: at(50) } }));
    expect(p.images).toEqual({ "a:1": pulled, "b:1": pulled });
    expect([p.created, p.deleted, p.statusChanged, p.inFlight, p.nextDueMs]).toEqual([[], [], true, false, undefined]);
  });

  it("wakes up for the earliest retry or re-pull", () => {
    const failed = (next: number): ImagePullStatus => ({ phase: "Failed", attempts: 1, nextAttemptTime: at(next) });
    const repull: ImagePullStatus = { phase: "Pulled", attempts: 1, nextAttemptTime: at(20) };
    const p = plan(list({ "a:1": pull, "b:1": pull, "c:1": { alwaysPull: true } }, { "a:1": failed(30), "b:1": failed(15), "c:1": repull }));
    expect([p.created, p.inFlight, p.nextDueMs]).toEqual([[], false, 15000]);
  });
});
