import { describe, expect, it } from "vitest";
import type { Pod, PodTemplateSpec } from "../../src/api/k8s.ts";
import type { Action } from "../../src/core/actions.ts";
import { calculateInPlaceUpdate, type InPlaceUpdateSpec } from "../../src/core/inplace-calculate.ts";
import { readInPlaceState, writeInPlaceState, type InPlaceUpdateState } from "../../src/core/inplace-state.ts";
import { cancelInPlaceUpdate, containerUpdated, finishInPlaceUpdate, startInPlaceUpdate } from "../../src/core/inplace-update.ts";
import { INPLACE_STATE_ANNOTATION } from "../../src/objects/constants.ts";

const tpl = (containers: Record<string, unknown>[], meta: Record<string, unknown> = { labels: { app: "web" } }, extra: Record<string, unknown> = {}): PodTemplateSpec =>
  ({ metadata: meta, spec: { containers, ...extra } }) as unknown as PodTemplateSpec;

describe("calculateInPlaceUpdate", () => {
  const base = tpl([{ name: "app", image: "app:1" }, { name: "side", image: "side:1" }], { labels: { app: "web" } }, { initContainers: [{ name: "init", image: "init:1" }] });
  it.each<[string, PodTemplateSpec, { images?: string[]; labels?: Record<string, string | null>; annotations?: Record<string, string | null>; reason?: string }]>([
    ["identical templates: an empty update", base, { images: [], labels: {}, annotations: {} }],
    ["one image", tpl([{ name: "app", image: "app:2" }, { name: "side", image: "side:1" }], { labels: { app: "web" } }, { initContainers: [{ name: "init", image: "init:1" }] }), { images: ["containers/0/app=app:2"] }],
    [
      "two images and an init container image",
      tpl([{ name: "app", image: "app:2" }, { name: "side", image: "side:2" }], { labels: { app: "web" } }, { initContainers: [{ name: "init", image: "init:2" }] }),
      { images: ["containers/0/app=app:2", "containers/1/side=side:2", "initContainers/0/init=init:2"] },
    ],
    [
      "labels and annotations may change with the image",
      tpl([{ name: "app", image: "app:2" }, { name: "side", image: "side:1" }], { labels: { app: "web", tier: "db" }, annotations: { a: "1" } }, { initContainers: [{ name: "init", image: "init:1" }] }),
      { images: ["containers/0/app=app:2"], labels: { tier: "db" }, annotations: { a: "1" } },
    ],
    ["an env change names its pointer", tpl([{ name: "app", image: "app:2", env: [{ name: "X", value: "1" }] }, { name: "side", image: "side:1" }], { labels: { app: "web" } }, { initContainers: [{ name: "init", image: "init:1" }] }), { reason: "patch cannot use in-place update: /spec/containers/0/env" }],
    ["a removed container", tpl([{ name: "app", image: "app:1" }], { labels: { app: "web" } }, { initContainers: [{ name: "init", image: "init:1" }] }), { reason: "patch cannot use in-place update: /spec/containers/1" }],
    ["a renamed container", tpl([{ name: "app2", image: "app:1" }, { name: "side", image: "side:1" }], { labels: { app: "web" } }, { initContainers: [{ name: "init", image: "init:1" }] }), { reason: "patch cannot use in-place update: /spec/containers/0/name" }],
    [
      "several pointers, sorted",
      tpl([{ name: "app", image: "app:1", args: ["x"] }, { name: "side", image: "side:1" }], { labels: { app: "web" } }, { initContainers: [{ name: "init", image: "init:1" }], nodeSelector: { a: "b" } }),
      { reason: "patch cannot use in-place update: /spec/containers/0/args, /spec/nodeSelector" },
    ],
  ])("%s", (_, to, want) => {
    const got = calculateInPlaceUpdate(base, to);
    if (want.reason) {
      expect(got).toMatchObject({ ok: false, reason: want.reason });
      return;
    }
    expect(got.ok).toBe(true);
    if (!got.ok) return;
    if (want.images) expect(got.spec.images.map((i) => `${i.field}/${i.index}/${i.name}=${i.image}`)).toEqual(want.images);
    if (want.labels) expect(got.spec.labels).toEqual(want.labels);
    if (want.annotations) expect(got.spec.annotations).toEqual(want.annotations);
  });

  it("a label removed from the template is removed from the pod (null)", () => {
    const got = calculateInPlaceUpdate(tpl([{ name: "app", image: "a" }], { labels: { app: "web", old: "x" } }), tpl([{ name: "app", image: "a" }], { labels: { app: "web" } }));
    expect(got).toEqual({ ok: true, spec: { images: [], labels: { old: null }, annotations: {} } });
  });
});

// --- the per-pod state machine ----------------------------------------------------------------

const T0 = new Date("2026-11-21T12:00:00.400Z");
const at = (s: number) => new Date(T0.getTime() + s * 1000);
const spec: InPlaceUpdateSpec = { images: [{ field: "containers", index: 0, name: "app", image: "app:2" }], labels: {}, annotations: {} };

interface PodOpts {
  rev?: string;
  gate?: { status: "True" | "False"; at?: string; reason?: string };
  state?: InPlaceUpdateState;
  app?: { image: string; imageID: string; startedAt?: string; ready: boolean; waiting?: boolean };
  specImage?: string;
}

function mkPod(o: PodOpts = {}): Pod {
  const app = o.app ?? { image: "app:1", imageID: "id-1", startedAt: "2026-11-21T11:00:00Z", ready: true };
  return {
    metadata: {
      name: "web-2",
      uid: "u2",
      resourceVersion: "7",
      labels: { app: "web", "controller-revision-hash": o.rev ?? "web-1" },
      annotations: o.state ? { [INPLACE_STATE_ANNOTATION]: writeInPlaceState(o.state) } : undefined,
    },
    spec: { containers: [{ name: "app", image: o.specImage ?? app.image }, { name: "side", image: "side:1" }], readinessGates: [{ conditionType: "InPlaceUpdateReady" }] },
    status: {
      phase: "Running",
      conditions: [
        { type: "Ready", status: "True" },
        { type: "InPlaceUpdateReady", status: o.gate?.status ?? "True", reason: o.gate?.reason, lastTransitionTime: (o.gate?.at ?? "2026-11-21T10:00:00Z") as unknown as Date },
      ],
      containerStatuses: [
        {
          name: "app",
          image: app.image,
          imageID: app.imageID,
          ready: app.ready,
          restartCount: 0,
          state: app.waiting ? { waiting: { reason: "ContainerCreating" } } : { running: { startedAt: app.startedAt as unknown as Date } },
        },
        { name: "side", image: "side:1", imageID: "side-id", ready: true, restartCount: 0, state: { running: { startedAt: "2026-11-21T11:00:00Z" as unknown as Date } } },
      ],
    },
  } as Pod;
}

const describeActions = (actions: Action[]) =>
  actions.map((a) => {
    if (a.type === "setPodCondition") {
      const g = a.conditions.find((c) => c.type === "InPlaceUpdateReady")!;
      return `gate ${g.status} ${g.reason} @${g.lastTransitionTime as unknown as string} rv=${a.resourceVersion}`;
    }
    if (a.type === "updatePodInPlace") return `update ${(a.patch.spec.containers ?? []).map((c) => c.image).join(",")} rev=${a.patch.metadata.labels["controller-revision-hash"]} rv=${a.patch.metadata.resourceVersion}`;
    return a.type;
  });

const updating: InPlaceUpdateState = { revision: "web-2", updateTime: "2026-11-21T12:00:00Z", oldImageIDs: { app: "id-1" }, images: { app: "app:2" } };

describe("startInPlaceUpdate", () => {
  it.each<[string, PodOpts, Date, number, string[], number | undefined]>([
    ["1: an idle pod gets its gate set False first (pods/status, resourceVersion precondition)", {}, T0, 2, ["gate False StartInPlaceUpdate @2026-11-21T12:00:00Z rv=7"], 2000],
    ["2: then waits the grace period from the gate's (floored) time, plus one second", { gate: { status: "False", at: "2026-11-21T12:00:00Z", reason: "StartInPlaceUpdate" } }, at(1), 2, [], 1600],
    ["2: still waiting one second before the end", { gate: { status: "False", at: "2026-11-21T12:00:00Z" } }, at(2.5), 2, [], 100],
    ["3: then one pod update with the new image and revision", { gate: { status: "False", at: "2026-11-21T12:00:00Z" } }, at(2.6), 2, ["update app:2,side:1 rev=web-2 rv=7"], undefined],
    ["3: no grace period: the update follows the gate write at once", { gate: { status: "False", at: "2026-11-21T12:00:00Z" } }, T0, 0, ["update app:2,side:1 rev=web-2 rv=7"], undefined],
    [
      "re-target while the kubelet has not yet killed the old container: wait",
      { rev: "web-2", gate: { status: "False", at: "2026-11-21T11:00:00Z" }, state: updating, specImage: "app:2", app: { image: "app:1", imageID: "id-1", startedAt: "2026-11-21T11:00:00Z", ready: true } },
      at(5),
      2,
      [],
      1000,
    ],
    [
      "re-target once the old container is gone (pulling): update at once, gate already False",
      { rev: "web-2", gate: { status: "False", at: "2026-11-21T11:00:00Z" }, state: updating, specImage: "app:2", app: { image: "app:2", imageID: "", ready: false, waiting: true } },
      at(5),
      2,
      ["update app:3,side:1 rev=web-3 rv=7"],
      undefined,
    ],
  ])("%s", (_, o, now, grace, want, requeue) => {
    const target = want.some((w) => w.includes("web-3")) ? "web-3" : "web-2";
    const sp = target === "web-3" ? { ...spec, images: [{ ...spec.images[0], image: "app:3" }] } : spec;
    const step = startInPlaceUpdate(mkPod(o), target, sp, grace, now);
    expect(describeActions(step.actions)).toEqual(want);
    expect(step.requeueAfterMs).toBe(requeue);
  });

  it("records the old imageIDs, the floored update time and the target images in the annotation", () => {
    const step = startInPlaceUpdate(mkPod({ gate: { status: "False", at: "2026-11-21T11:00:00Z" } }), "web-2", { ...spec, labels: { tier: "db" }, annotations: { x: "1" } }, 0, T0);
    const a = step.actions[0];
    expect(a.type).toBe("updatePodInPlace");
    if (a.type !== "updatePodInPlace") return;
    expect(readInPlaceState({ metadata: { annotations: a.patch.metadata.annotations as Record<string, string> } })).toEqual({
      revision: "web-2",
      updateTime: "2026-11-21T12:00:00Z",
      oldImageIDs: { app: "id-1" },
      images: { app: "app:2" },
    });
    expect(a.patch.metadata.labels).toEqual({ tier: "db", "controller-revision-hash": "web-2" });
    expect(a.patch.metadata.annotations).toMatchObject({ x: "1" });
    expect(a.patch.metadata).toMatchObject({ uid: "u2", resourceVersion: "7" });
    // The whole container list, only the changed image differs; no init containers were touched.
    expect(a.patch.spec).toEqual({ containers: [{ name: "app", image: "app:2" }, { name: "side", image: "side:1" }] });
  });

  it("refuses when a changed container is not in the pod", () => {
    const step = startInPlaceUpdate(mkPod(), "web-2", { ...spec, images: [{ field: "containers", index: 0, name: "nope", image: "x" }] }, 0, T0);
    expect(step.actions).toEqual([]);
    expect(step.refused).toMatch(/container "nope"/);
  });
});

describe("finishInPlaceUpdate and containerUpdated", () => {
  const gateFalse = { status: "False" as const, at: "2026-11-21T12:00:00Z" };
  it.each<[string, PodOpts, string[]]>([
    ["kubelet not acted yet (old imageID): wait", { rev: "web-2", gate: gateFalse, state: updating, specImage: "app:2" }, []],
    ["pulling (waiting, no imageID): wait", { rev: "web-2", gate: gateFalse, state: updating, app: { image: "app:2", imageID: "", ready: false, waiting: true } }, []],
    ["new imageID but not ready: wait", { rev: "web-2", gate: gateFalse, state: updating, app: { image: "app:2", imageID: "id-2", startedAt: "2026-11-21T12:00:03Z", ready: false } }, []],
    ["new imageID, ready, but started before the update (a stale report): wait", { rev: "web-2", gate: gateFalse, state: updating, app: { image: "app:2", imageID: "id-2", startedAt: "2026-11-21T11:59:59Z", ready: true } }, []],
    ["old imageID back, restarted after the update: wait", { rev: "web-2", gate: gateFalse, state: updating, app: { image: "app:2", imageID: "id-1", startedAt: "2026-11-21T12:00:05Z", ready: true } }, []],
    ["restarted within the same second as the update: done", { rev: "web-2", gate: gateFalse, state: updating, app: { image: "app:2", imageID: "id-2", startedAt: "2026-11-21T12:00:00Z", ready: true } }, ["gate True InPlaceUpdateDone @2026-11-21T12:00:10Z rv=7"]],
    ["done: gate True first", { rev: "web-2", gate: gateFalse, state: updating, app: { image: "app:2", imageID: "id-2", startedAt: "2026-11-21T12:00:04Z", ready: true } }, ["gate True InPlaceUpdateDone @2026-11-21T12:00:10Z rv=7"]],
    ["gate True already (crash after step 5a): remove the annotation", { rev: "web-2", state: updating, app: { image: "app:2", imageID: "id-2", startedAt: "2026-11-21T12:00:04Z", ready: true } }, ["clearInPlaceState"]],
    ["a state for another revision is cleared (gate first)", { rev: "web-9", gate: gateFalse, state: updating }, ["gate True InPlaceUpdateCancelled @2026-11-21T12:00:10Z rv=7"]],
    ["no state: nothing", { rev: "web-2" }, []],
  ])("%s", (_, o, want) => {
    expect(describeActions(finishInPlaceUpdate(mkPod(o), at(10)).actions)).toEqual(want);
  });

  it("containerUpdated is false for a container the pod does not report", () => {
    expect(containerUpdated(mkPod(), "ghost", updating)).toBe(false);
  });
});

describe("cancelInPlaceUpdate", () => {
  it("puts a gated pod with no image change made back into traffic, and leaves others", () => {
    expect(describeActions(cancelInPlaceUpdate(mkPod({ gate: { status: "False" } }), "paused", T0).actions)).toEqual(["gate True InPlaceUpdateCancelled @2026-11-21T12:00:00Z rv=7"]);
    expect(cancelInPlaceUpdate(mkPod(), "paused", T0).actions).toEqual([]);
    expect(cancelInPlaceUpdate(mkPod({ gate: { status: "False" }, rev: "web-2", state: updating }), "paused", T0).actions).toEqual([]);
  });
});
