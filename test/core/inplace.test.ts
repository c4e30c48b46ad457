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
  /** The side container's status (default: side:1, imageID side-id, running since 11:00, ready). */
  side?: { image: string; imageID: string; startedAt?: string; ready: boolean; waiting?: boolean };
  /** Last edits of the built pod, for shapes the options above do not cover. */
  edit?: (p: Pod) => void;
}

const containerStatus = (name: string, c: NonNullable<PodOpts["app"]>) => ({
  name,
  image: c.image,
  imageID: c.imageID,
  ready: c.ready,
  restartCount: 0,
  state: c.waiting ? { waiting: { reason: "ContainerCreating" } } : { running: { startedAt: c.startedAt as unknown as Date } },
});

function mkPod(o: PodOpts = {}): Pod {
  const app = o.app ?? { image: "app:1", imageID: "id-1", startedAt: "2026-11-21T11:00:00Z", ready: true };
  const side = o.side ?? { image: "side:1", imageID: "side-id", startedAt: "2026-11-21T11:00:00Z", ready: true };
  const pod = {
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
      containerStatuses: [containerStatus("app", app), containerStatus("side", side)],
    },
  } as Pod;
  o.edit?.(pod);
  return pod;
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
    ["3: then one pod update with the new image and revision", { gate: { status: "False", at: "2026-11-21T12:00:00Z" } }, at(2.6), 2, ["update app:2 rev=web-2 rv=7"], undefined],
    ["3: no grace period: the update follows the gate write at once", { gate: { status: "False", at: "2026-11-21T12:00:00Z" } }, T0, 0, ["update app:2 rev=web-2 rv=7"], undefined],
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
      ["update app:3 rev=web-3 rv=7"],
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
    // A strategic merge patch: only the changed container, by name (the others stay as stored); no init containers were touched.
    expect(a.patch.spec).toEqual({ containers: [{ name: "app", image: "app:2" }] });
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
    ["old image back, restarted after the update: wait", { rev: "web-2", gate: gateFalse, state: updating, app: { image: "app:1", imageID: "id-1", startedAt: "2026-11-21T12:00:05Z", ready: true } }, []],
    ["old imageID, the new image's name, restarted after the update (a retag to the same digest): done", { rev: "web-2", gate: gateFalse, state: updating, app: { image: "app:2", imageID: "id-1", startedAt: "2026-11-21T12:00:05Z", ready: true } }, ["gate True InPlaceUpdateDone @2026-11-21T12:00:10Z rv=7"]],
    ["a retag reported fully qualified (docker.io/library/app:2): done", { rev: "web-2", gate: gateFalse, state: updating, app: { image: "docker.io/library/app:2", imageID: "id-1", startedAt: "2026-11-21T12:00:05Z", ready: true } }, ["gate True InPlaceUpdateDone @2026-11-21T12:00:10Z rv=7"]],
    ["a retag not yet restarted (old container, new name reported): wait", { rev: "web-2", gate: gateFalse, state: updating, app: { image: "app:2", imageID: "id-1", startedAt: "2026-11-21T11:00:00Z", ready: true } }, []],
    ["a retag restarted, not ready: wait", { rev: "web-2", gate: gateFalse, state: updating, app: { image: "app:2", imageID: "id-1", startedAt: "2026-11-21T12:00:05Z", ready: false } }, []],
    ["old imageID, another image's name: wait", { rev: "web-2", gate: gateFalse, state: updating, app: { image: "app:3", imageID: "id-1", startedAt: "2026-11-21T12:00:05Z", ready: true } }, []],
    ["restarted within the same second as the update: done", { rev: "web-2", gate: gateFalse, state: updating, app: { image: "app:2", imageID: "id-2", startedAt: "2026-11-21T12:00:00Z", ready: true } }, ["gate True InPlaceUpdateDone @2026-11-21T12:00:10Z rv=7"]],
    ["done: gate True first", { rev: "web-2", gate: gateFalse, state: updating, app: { image: "app:2", imageID: "id-2", startedAt: "2026-11-21T12:00:04Z", ready: true } }, ["gate True InPlaceUpdateDone @2026-11-21T12:00:10Z rv=7"]],
    ["a new imageID, the image reported by another name (a runtime's own): done", { rev: "web-2", gate: gateFalse, state: updating, app: { image: "registry.example/app@sha256:2", imageID: "id-2", startedAt: "2026-11-21T12:00:04Z", ready: true } }, ["gate True InPlaceUpdateDone @2026-11-21T12:00:10Z rv=7"]],
    ["gate True already (crash after step 5a): remove the annotation", { rev: "web-2", state: updating, app: { image: "app:2", imageID: "id-2", startedAt: "2026-11-21T12:00:04Z", ready: true } }, ["clearInPlaceState"]],
    ["a state for another revision is cleared (gate first)", { rev: "web-9", gate: gateFalse, state: updating }, ["gate True InPlaceUpdateCancelled @2026-11-21T12:00:10Z rv=7"]],
    ["no state: nothing", { rev: "web-2" }, []],
  ])("%s", (_, o, want) => {
    expect(describeActions(finishInPlaceUpdate(mkPod(o), at(10)).actions)).toEqual(want);
  });

  it("containerUpdated is false for a container the pod does not report", () => {
    expect(containerUpdated(mkPod(), "ghost", updating)).toBe(false);
  });

  it("containerUpdated compares names it cannot parse as written (same imageID, restarted, ready)", () => {
    const app = { image: "Not/A:Ref!", imageID: "id-1", startedAt: "2026-11-21T12:00:05Z", ready: true };
    expect(containerUpdated(mkPod({ rev: "web-2", app }), "app", { ...updating, images: { app: "Not/A:Ref!" } })).toBe(true);
    expect(containerUpdated(mkPod({ rev: "web-2", app }), "app", { ...updating, images: { app: "Not/A:Ref?" } })).toBe(false);
    expect(containerUpdated(mkPod({ rev: "web-2", app: { ...app, image: "" } }), "app", { ...updating, images: { app: "" } })).toBe(false);
    expect(containerUpdated(mkPod({ rev: "web-2", app }), "app", { ...updating, images: {} })).toBe(false);
  });
});

describe("cancelInPlaceUpdate", () => {
  it("puts a gated pod with no image change made back into traffic, and leaves others", () => {
    expect(describeActions(cancelInPlaceUpdate(mkPod({ gate: { status: "False" } }), "paused", T0).actions)).toEqual(["gate True InPlaceUpdateCancelled @2026-11-21T12:00:00Z rv=7"]);
    expect(cancelInPlaceUpdate(mkPod(), "paused", T0).actions).toEqual([]);
    expect(cancelInPlaceUpdate(mkPod({ gate: { status: "False" }, rev: "web-2", state: updating }), "paused", T0).actions).toEqual([]);
  });
});

// --- which container, which pod shape: the writes in full ----------------------------------------

const bothUpdating: InPlaceUpdateState = { revision: "web-2", updateTime: "2026-11-21T12:00:00Z", oldImageIDs: { app: "id-1", side: "side-id" }, images: { app: "app:2", side: "side:2" } };
const newApp = { image: "app:2", imageID: "id-2", startedAt: "2026-11-21T12:00:04Z", ready: true };
const newSide = { image: "side:2", imageID: "side-id-2", startedAt: "2026-11-21T12:00:04Z", ready: true };
const withoutGate = (p: Pod) => void p.status!.conditions!.splice(1, 1);
const setGate = (conditions: unknown[]) => ({ type: "setPodCondition", name: "web-2", uid: "u2", resourceVersion: "7", conditions });
const gateAt = (at: string) => (status: string, reason: string, message: string) => ({ type: "InPlaceUpdateReady", status, reason, message, lastTransitionTime: at });

describe("containerUpdated", () => {
  it.each<[string, PodOpts, string, InPlaceUpdateState, boolean]>([
    ["the updated container", { app: newApp }, "app", bothUpdating, true],
    ["another changed container of the same pod, not yet updated", { app: newApp }, "side", bothUpdating, false],
    ["the second container once updated", { app: newApp, side: newSide }, "side", bothUpdating, true],
    ["new imageID, restarting (waiting)", { app: { ...newApp, waiting: true } }, "app", bothUpdating, false],
    ["new imageID, no state reported", { app: newApp, edit: (p) => delete p.status!.containerStatuses![0].state }, "app", bothUpdating, false],
    ["no container statuses yet", { edit: (p) => delete p.status!.containerStatuses }, "app", bothUpdating, false],
    ["no status", { edit: (p) => delete p.status }, "app", bothUpdating, false],
    ["an unreadable update time", { app: newApp }, "app", { ...bothUpdating, updateTime: "" }, false],
  ])("%s", (_, o, name, state, want) => {
    expect(containerUpdated(mkPod(o), name, state)).toBe(want);
  });
});

describe("finishInPlaceUpdate: the writes in full", () => {
  const gateFalse = { status: "False" as const, at: "2026-11-21T12:00:00Z", reason: "StartInPlaceUpdate" };
  const gate = gateAt("2026-11-21T12:00:10Z");
  const done = gate("True", "InPlaceUpdateDone", "in-place update to revision web-2 done");
  it.each<[string, PodOpts, unknown[]]>([
    ["both changed containers updated: gate True (merged by type: the other conditions are left alone)", { rev: "web-2", gate: gateFalse, state: bothUpdating, app: newApp, side: newSide }, [setGate([done])]],
    ["one of two changed containers updated: wait", { rev: "web-2", gate: gateFalse, state: bothUpdating, app: newApp }, []],
    ["a state for another revision: cancelled", { rev: "web-9", gate: gateFalse, state: bothUpdating }, [setGate([gate("True", "InPlaceUpdateCancelled", "in-place update state does not match the pod's revision")])]],
    ["updated, no gate condition at all: the gate is added True", { rev: "web-2", state: updating, app: newApp, edit: withoutGate }, [setGate([done])]],
    ["updated, gate True: the annotation is removed", { rev: "web-2", state: updating, app: newApp }, [{ type: "clearInPlaceState", name: "web-2", uid: "u2" }]],
  ])("%s", (_, o, want) => {
    expect(finishInPlaceUpdate(mkPod(o), at(10)).actions).toEqual(want);
  });
});

describe("startInPlaceUpdate: pod shapes and which container", () => {
  const start = gateAt("2026-11-21T12:00:00Z")("False", "StartInPlaceUpdate", "in-place update to revision web-2");
  it.each<[string, PodOpts, unknown[]]>([
    ["the gate write in full: only the gate (merged by type)", {}, [setGate([start])]],
    ["a pod without the gate condition gets it", { edit: withoutGate }, [setGate([start])]],
    ["a pod with no conditions yet", { edit: (p) => delete p.status!.conditions }, [setGate([start])]],
    ["a pod with no status yet", { edit: (p) => delete p.status }, [setGate([start])]],
    ["a state left by another revision does not hold the update back", { state: { ...updating, revision: "web-9" } }, [setGate([start])]],
  ])("%s", (_, o, want) => {
    expect(startInPlaceUpdate(mkPod(o), "web-2", spec, 2, T0)).toEqual({ actions: want, requeueAfterMs: 2000 });
  });

  it.each<[string, PodOpts, InPlaceUpdateSpec["images"]]>([
    ["an init container the pod does not have", {}, [{ field: "initContainers", index: 0, name: "init", image: "init:2" }]],
    ["a pod without a spec", { edit: (p) => delete p.spec }, spec.images],
  ])("refuses %s", (_, o, images) => {
    expect(startInPlaceUpdate(mkPod(o), "web-2", { ...spec, images }, 0, T0)).toEqual({ actions: [], refused: `container "${images[0].name}" of the template is not in pod web-2` });
  });

  const patchOf = (o: PodOpts, images: InPlaceUpdateSpec["images"]) => {
    const a = startInPlaceUpdate(mkPod({ gate: { status: "False", at: "2026-11-21T11:00:00Z" }, ...o }), "web-2", { ...spec, images }, 0, T0).actions[0];
    if (a?.type !== "updatePodInPlace") throw new Error(`expected the pod update, got ${a?.type}`);
    return { spec: a.patch.spec, state: readInPlaceState({ metadata: { annotations: a.patch.metadata.annotations as Record<string, string> } }) };
  };
  const stateOf = (oldImageIDs: Record<string, string>, images: Record<string, string>) => ({ revision: "web-2", updateTime: "2026-11-21T12:00:00Z", oldImageIDs, images });

  it("changes only the named container's image and records only its imageID", () => {
    expect(patchOf({}, [{ field: "containers", index: 1, name: "side", image: "side:2" }])).toEqual({
      spec: { containers: [{ name: "side", image: "side:2" }] },
      state: stateOf({ side: "side-id" }, { side: "side:2" }),
    });
  });

  it("changes an init container's image without recording an imageID: an init container does not restart, nothing to wait for", () => {
    const withInit = (p: Pod) => void (p.spec!.initContainers = [{ name: "init", image: "init:1" }]);
    expect(patchOf({ edit: withInit }, [{ field: "initContainers", index: 0, name: "init", image: "init:2" }])).toEqual({
      spec: { initContainers: [{ name: "init", image: "init:2" }] },
      state: stateOf({}, { init: "init:2" }),
    });
  });

  it.each<[string, (p: Pod) => void]>([
    ["no container statuses", (p) => delete p.status!.containerStatuses],
    ["only another container's status", (p) => void p.status!.containerStatuses!.shift()],
  ])("records an empty imageID for a container the kubelet has not reported: %s", (_, edit) => {
    expect(patchOf({ edit }, spec.images)).toEqual({
      spec: { containers: [{ name: "app", image: "app:2" }] },
      state: stateOf({ app: "" }, { app: "app:2" }),
    });
  });
});

describe("startInPlaceUpdate over an unfinished earlier update of the pod's revision", () => {
  const app3 = { field: "containers" as const, index: 0, name: "app", image: "app:3" };
  const side3 = { field: "containers" as const, index: 1, name: "side", image: "side:3" };
  const appGone = { image: "app:2", imageID: "", ready: false, waiting: true };
  const oldApp = (startedAt: string, imageID = "id-1") => ({ image: "app:1", imageID, startedAt, ready: true });
  const recorded: InPlaceUpdateState = { ...updating, oldContainerIDs: { app: "containerd://c1" } };
  const withID = (id: string) => (p: Pod) => void (p.status!.containerStatuses![0].containerID = id);
  it.each<[string, PodOpts, InPlaceUpdateSpec["images"], string]>([
    ["app changed again and gone, side updated: go on", { app: appGone, side: newSide }, [app3], "updatePodInPlace"],
    ["app changed again and gone, side still old: wait", { app: appGone }, [app3], "wait 1000"],
    ["app changed again and gone, side new but not ready: wait", { app: appGone, side: { ...newSide, ready: false } }, [app3], "wait 1000"],
    ["side changed again and still old, app updated: wait", { app: newApp }, [side3], "wait 1000"],
    ["changed again, not reported: go on", { state: updating, edit: (p) => delete p.status!.containerStatuses }, [app3], "updatePodInPlace"],
    ["changed again, no status at all: go on (the gate first)", { state: updating, edit: (p) => delete p.status }, [app3], "setPodCondition"],
    ["changed again, reported without a state: go on", { state: updating, edit: (p) => delete p.status!.containerStatuses![0].state }, [app3], "updatePodInPlace"],
    ["changed again, old imageID started a second before the update: wait", { state: updating, app: oldApp("2026-11-21T11:59:59Z") }, [app3], "wait 1000"],
    ["changed again, old imageID restarted in the update's second: go on", { state: updating, app: oldApp("2026-11-21T12:00:00Z") }, [app3], "updatePodInPlace"],
    ["changed again, old imageID restarted after the update: go on", { state: updating, app: oldApp("2026-11-21T12:00:05Z") }, [app3], "updatePodInPlace"],
    ["changed again, the recorded container restarted in the update's second: wait", { state: recorded, app: oldApp("2026-11-21T12:00:00Z"), edit: withID("containerd://c1") }, [app3], "wait 1000"],
    ["changed again, another container in the update's second: go on", { state: recorded, app: oldApp("2026-11-21T12:00:00Z"), edit: withID("containerd://c2") }, [app3], "updatePodInPlace"],
    ["changed again, recorded but not reported: go on", { state: recorded, edit: (p) => delete p.status!.containerStatuses }, [app3], "updatePodInPlace"],
    ["changed again, the recorded container no longer running: go on", { state: recorded, app: { ...appGone, image: "app:1", imageID: "id-1" }, edit: withID("containerd://c1") }, [app3], "updatePodInPlace"],
    ["changed again, a new imageID with an earlier start (a stale report): go on", { state: updating, app: oldApp("2026-11-21T11:59:59Z", "id-2") }, [app3], "updatePodInPlace"],
  ])("%s", (_, o, images, want) => {
    const pod = mkPod({ rev: "web-2", gate: { status: "False", at: "2026-11-21T11:00:00Z" }, state: bothUpdating, specImage: "app:2", ...o });
    const step = startInPlaceUpdate(pod, "web-3", { ...spec, images }, 2, at(5));
    expect(step.actions.length ? step.actions.map((a) => a.type).join() : `wait ${step.requeueAfterMs}`).toBe(want);
  });
});

describe("cancelInPlaceUpdate without a gate condition", () => {
  it("leaves a pod that has no InPlaceUpdateReady condition alone", () => {
    expect(cancelInPlaceUpdate(mkPod({ edit: withoutGate }), "paused", T0).actions).toEqual([]);
  });
});

describe("a retag: the old container is not taken for the restarted one", () => {
  // app:1 → app:2, one image (same digest, id-1). The old container started within the second of
  // the update (a crash restart just before the patch), and the runtime names it by the image's
  // other tag (containerd reports the image's first repo tag; the pre-warm pulled app:2 onto the
  // node). Same imageID, the new name, started "at" the update's (floored) second, ready: only the
  // container's ID tells that the kubelet has not restarted it yet.
  const gate = { status: "False" as const, at: "2026-11-21T11:00:00Z" };
  const oldApp = { image: "app:1", imageID: "id-1", startedAt: "2026-11-21T12:00:00Z", ready: true };
  const withID = (id: string) => (p: Pod) => void (p.status!.containerStatuses![0].containerID = id);
  const updated = () => {
    const a = startInPlaceUpdate(mkPod({ gate, app: oldApp, edit: withID("containerd://c1") }), "web-2", spec, 0, T0).actions[0];
    if (a.type !== "updatePodInPlace") throw new Error(a.type);
    return readInPlaceState({ metadata: { annotations: a.patch.metadata.annotations as Record<string, string> } })!;
  };
  it("the old container, now reported as app:2: wait", () => {
    const pod = mkPod({ rev: "web-2", gate, state: updated(), specImage: "app:2", app: { ...oldApp, image: "app:2" }, edit: withID("containerd://c1") });
    expect(finishInPlaceUpdate(pod, at(10)).actions).toEqual([]);
  });
  it("the container the kubelet started for app:2 (a new ID) in the same second: done", () => {
    const pod = mkPod({ rev: "web-2", gate, state: updated(), specImage: "app:2", app: { ...oldApp, image: "app:2" }, edit: withID("containerd://c2") });
    expect(describeActions(finishInPlaceUpdate(pod, at(10)).actions)).toEqual(["gate True InPlaceUpdateDone @2026-11-21T12:00:10Z rv=7"]);
  });
});
