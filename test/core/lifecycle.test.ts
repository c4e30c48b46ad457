/** Lifecycle hooks (src/core/lifecycle.ts): Kruise's preDelete / inPlaceUpdate state machine, calculate then apply. */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import {
  applyTransition,
  calculatePreDelete,
  calculatePreInPlaceUpdate,
  calculateSettle,
  hookHolders,
  inPlaceStateLabel,
  isPodAllHooked,
  isPodHooked,
  isPreparingDelete,
  type LifecycleTransition,
} from "../../src/core/lifecycle.ts";
import { INPLACE_STATE_ANNOTATION, LIFECYCLE_STATE_LABEL } from "../../src/objects/constants.ts";
import { NOW, makeSet, pod } from "./fixtures.ts";

const HOOK = { labelsHandler: { "example.io/drain": "true" }, finalizersHandler: ["example.io/keep"], markPodNotReady: false };
const withHooks = (preDelete?: object, inPlaceUpdate?: object): StatefulSet =>
  makeSet({ lifecycle: { ...(preDelete ? { preDelete } : {}), ...(inPlaceUpdate ? { inPlaceUpdate } : {}) } });

/** podWith returns web-0 with these labels added, finalizers, lifecycle state and InPlaceUpdateReady gate. */
function podWith(o: { labels?: Record<string, string>; finalizers?: string[]; state?: string; gate?: [string, string]; inPlaceState?: boolean } = {}): Pod {
  const p = pod(makeSet(), 0, "web-1", "ready");
  Object.assign(p.metadata!.labels!, o.labels ?? {});
  if (o.state) p.metadata!.labels![LIFECYCLE_STATE_LABEL] = o.state;
  if (o.finalizers) p.metadata!.finalizers = o.finalizers;
  if (o.gate) p.status!.conditions = [{ type: "Ready", status: "True" }, { type: "InPlaceUpdateReady", status: o.gate[0], reason: o.gate[1] }];
  if (o.inPlaceState) p.metadata!.annotations = { [INPLACE_STATE_ANNOTATION]: "{}" };
  return p;
}
const drained = { "example.io/drain": "false" };
const hooked = { "example.io/drain": "true" };

describe("hookHolders / isPodHooked / isPodAllHooked", () => {
  it.each<[string, Pod, string[], boolean]>([
    ["nothing of the hook", podWith(), [], false],
    ["the label with another value", podWith({ labels: drained }), [], false],
    ["the label", podWith({ labels: hooked }), ["label example.io/drain=true"], false],
    ["the finalizer", podWith({ finalizers: ["example.io/keep"] }), ["finalizer example.io/keep"], false],
    ["both", podWith({ labels: hooked, finalizers: ["a.io/x", "example.io/keep"] }), ["label example.io/drain=true", "finalizer example.io/keep"], true],
  ])("%s", (_, p, holders, all) => {
    expect(hookHolders(HOOK, p)).toEqual(holders);
    expect(isPodHooked(HOOK, p)).toBe(holders.length > 0);
    expect(isPodAllHooked(HOOK, p)).toBe(all);
  });
  it("no hook hooks nothing, and is never all hooked (Kruise's IsPodAllHooked(nil))", () => {
    expect(isPodHooked(undefined, podWith({ labels: hooked }))).toBe(false);
    expect(isPodAllHooked(undefined, podWith({ labels: hooked }))).toBe(false);
  });
});

describe("calculatePreDelete", () => {
  const marked = { ...HOOK, markPodNotReady: true };
  it.each<[string, StatefulSet, Pod, LifecycleTransition]>([
    ["no lifecycle: delete", makeSet(), podWith({ labels: hooked }), { kind: "go" }],
    ["a pod the hook does not hook is deleted at once", withHooks(HOOK), podWith({ labels: drained }), { kind: "go" }],
    ["a hooked pod enters PreparingDelete", withHooks(HOOK), podWith({ labels: hooked }), { kind: "enter", state: "PreparingDelete" }],
    ["markPodNotReady: the gate goes False first", withHooks(marked), podWith({ labels: hooked }), { kind: "markNotReady", reason: "PreparingDelete" }],
    ["markPodNotReady, gate already False: enter", withHooks(marked), podWith({ labels: hooked, gate: ["False", "PreparingDelete"] }), { kind: "enter", state: "PreparingDelete" }],
    ["PreparingDelete and still hooked: hold", withHooks(HOOK), podWith({ labels: hooked, state: "PreparingDelete" }), { kind: "hold", state: "PreparingDelete", holders: ["label example.io/drain=true"] }],
    ["PreparingDelete held by the finalizer", withHooks(HOOK), podWith({ finalizers: ["example.io/keep"], state: "PreparingDelete" }), { kind: "hold", state: "PreparingDelete", holders: ["finalizer example.io/keep"] }],
    ["PreparingDelete, released: delete", withHooks(HOOK), podWith({ labels: drained, state: "PreparingDelete" }), { kind: "go" }],
    ["an Updated pod hooked for deletion enters PreparingDelete", withHooks(HOOK, HOOK), podWith({ labels: hooked, state: "Updated" }), { kind: "enter", state: "PreparingDelete" }],
  ])("%s", (_, set, p, want) => {
    expect(calculatePreDelete(set, p)).toEqual(want);
  });
});

describe("calculatePreInPlaceUpdate", () => {
  const marked = { ...HOOK, markPodNotReady: true };
  it.each<[string, StatefulSet, Pod, LifecycleTransition]>([
    ["no inPlaceUpdate hook: go", withHooks(HOOK), podWith({ labels: hooked }), { kind: "go" }],
    ["not hooked: go", withHooks(undefined, HOOK), podWith(), { kind: "go" }],
    ["hooked, Normal: enter PreparingUpdate", withHooks(undefined, HOOK), podWith({ labels: hooked, state: "Normal" }), { kind: "enter", state: "PreparingUpdate" }],
    ["hooked, no state yet: enter PreparingUpdate", withHooks(undefined, HOOK), podWith({ labels: hooked }), { kind: "enter", state: "PreparingUpdate" }],
    ["markPodNotReady: the gate goes False first", withHooks(undefined, marked), podWith({ labels: hooked }), { kind: "markNotReady", reason: "PreparingUpdate" }],
    ["PreparingUpdate, hooked: hold", withHooks(undefined, HOOK), podWith({ labels: hooked, state: "PreparingUpdate" }), { kind: "hold", state: "PreparingUpdate", holders: ["label example.io/drain=true"] }],
    ["PreparingUpdate, markPodNotReady, gate True again: False first", withHooks(undefined, marked), podWith({ state: "PreparingUpdate", gate: ["True", "x"] }), { kind: "markNotReady", reason: "PreparingUpdate" }],
    ["PreparingUpdate, released: go", withHooks(undefined, HOOK), podWith({ labels: drained, state: "PreparingUpdate" }), { kind: "go" }],
    ["Updating: the update under way goes on", withHooks(undefined, HOOK), podWith({ labels: hooked, state: "Updating" }), { kind: "go" }],
    [
      "Updated (the hook not back yet): the hook's labels and finalizers are put back with PreparingUpdate",
      withHooks(undefined, HOOK),
      podWith({ labels: drained, finalizers: ["a.io/x"], state: "Updated" }),
      { kind: "enter", state: "PreparingUpdate", labels: { "example.io/drain": "true" }, finalizers: ["a.io/x", "example.io/keep"] },
    ],
    // Found by the lifecycle random runs with a progress deadline (seed 31: a rollback updated Updated pods again).
    ["Updated, markPodNotReady, gate True: the gate goes False first (as Kruise's UpdatePodLifecycleWithHandler)", withHooks(undefined, marked), podWith({ labels: drained, state: "Updated", gate: ["True", "InPlaceUpdateDone"] }), { kind: "markNotReady", reason: "PreparingUpdate" }],
    [
      "Updated, markPodNotReady, gate already False: the hook put back with PreparingUpdate",
      withHooks(undefined, marked),
      podWith({ labels: drained, state: "Updated", gate: ["False", "PreparingUpdate"] }),
      { kind: "enter", state: "PreparingUpdate", labels: { "example.io/drain": "true" }, finalizers: ["example.io/keep"] },
    ],
  ])("%s", (_, set, p, want) => {
    expect(calculatePreInPlaceUpdate(set, p)).toEqual(want);
  });
});

describe("calculateSettle", () => {
  it.each<[string, StatefulSet, Pod, boolean, LifecycleTransition]>([
    ["Updating, update done, hook not all back: Updated", withHooks(undefined, HOOK), podWith({ labels: drained, state: "Updating" }), true, { kind: "enter", state: "Updated" }],
    ["Updating, update done, hook all back: Normal", withHooks(undefined, HOOK), podWith({ labels: hooked, finalizers: ["example.io/keep"], state: "Updating" }), true, { kind: "enter", state: "Normal" }],
    // Issue 34: Normal only when ALL of the hook is back; one of its two holders back is Updated.
    ["Updating, update done, only the hook's label back (not its finalizer): Updated, never Normal", withHooks(undefined, HOOK), podWith({ labels: hooked, state: "Updating" }), true, { kind: "enter", state: "Updated" }],
    ["Updating, update done, only the hook's finalizer back (not its label): Updated, never Normal", withHooks(undefined, HOOK), podWith({ labels: drained, finalizers: ["example.io/keep"], state: "Updating" }), true, { kind: "enter", state: "Updated" }],
    ["Updating, update still under way (state annotation)", withHooks(undefined, HOOK), podWith({ state: "Updating", inPlaceState: true }), true, { kind: "none" }],
    ["Updating, gate still False", withHooks(undefined, HOOK), podWith({ state: "Updating", gate: ["False", "StartInPlaceUpdate"] }), true, { kind: "none" }],
    ["Updating with a lifecycle but no inPlaceUpdate hook: Updated (as Kruise)", withHooks(HOOK), podWith({ state: "Updating" }), true, { kind: "enter", state: "Updated" }],
    ["Updating with no lifecycle at all: Normal", makeSet(), podWith({ state: "Updating" }), true, { kind: "enter", state: "Normal" }],
    ["Updated, hook all back: Normal", withHooks(undefined, HOOK), podWith({ labels: hooked, finalizers: ["example.io/keep"], state: "Updated" }), true, { kind: "enter", state: "Normal" }],
    ["Updated, hook partly back: stays", withHooks(undefined, HOOK), podWith({ labels: hooked, state: "Updated" }), true, { kind: "none" }],
    ["Updated, no inPlaceUpdate hook: Normal", withHooks(HOOK), podWith({ state: "Updated" }), true, { kind: "enter", state: "Normal" }],
    ["PreparingDelete no longer wanted: Normal", withHooks(HOOK), podWith({ labels: hooked, state: "PreparingDelete" }), false, { kind: "enter", state: "Normal" }],
    ["PreparingDelete gate no longer wanted: gate True first", withHooks(HOOK), podWith({ state: "PreparingDelete", gate: ["False", "PreparingDelete"] }), false, { kind: "markReady", reason: "PreparingDeleteCancelled" }],
    ["PreparingDelete still wanted: nothing here", withHooks(HOOK), podWith({ state: "PreparingDelete" }), true, { kind: "none" }],
    ["Normal: nothing", withHooks(HOOK, HOOK), podWith({ state: "Normal" }), false, { kind: "none" }],
  ])("%s", (_, set, p, deleteWanted, want) => {
    expect(calculateSettle(set, p, deleteWanted)).toEqual(want);
  });
});

describe("applyTransition", () => {
  const p = podWith({ labels: hooked });
  it("go: the step goes on, nothing written", () => {
    expect(applyTransition(p, { kind: "go" }, NOW)).toEqual({ go: true, actions: [] });
  });
  it("enter: one pod patch with the pod's uid and resourceVersion, the state and the time", () => {
    expect(applyTransition(p, { kind: "enter", state: "PreparingDelete" }, NOW)).toEqual({
      go: false,
      actions: [{ type: "setLifecycleState", name: "web-0", uid: p.metadata!.uid, resourceVersion: "1", state: "PreparingDelete", time: "2026-11-21T12:00:00Z" }],
    });
  });
  it("enter leaving Updated carries the hook's labels and the whole finalizer list", () => {
    const step = applyTransition(p, { kind: "enter", state: "PreparingUpdate", labels: { a: "b" }, finalizers: ["x.io/y"] }, NOW);
    expect(step.actions[0]).toMatchObject({ type: "setLifecycleState", labels: { a: "b" }, finalizers: ["x.io/y"] });
  });
  it("markNotReady: the InPlaceUpdateReady gate False with the state as its reason (merged by type: the other conditions are left alone)", () => {
    const step = applyTransition(p, { kind: "markNotReady", reason: "PreparingDelete" }, NOW);
    expect(step.go).toBe(false);
    const a = step.actions[0];
    expect(a.type === "setPodCondition" && a.conditions.map((c) => `${c.type}=${c.status}${c.reason ? `/${c.reason}` : ""}`)).toEqual(["InPlaceUpdateReady=False/PreparingDelete"]);
  });
  it("hold: nothing written, says which pod, state and holders", () => {
    expect(applyTransition(p, { kind: "hold", state: "PreparingDelete", holders: ["label a=b", "finalizer c"] }, NOW)).toEqual({
      go: false,
      actions: [],
      held: "pod web-0 PreparingDelete: label a=b, finalizer c",
    });
  });
});

describe("isPreparingDelete / inPlaceStateLabel", () => {
  it("a pod is preparing for deletion by its state or by a gate set False for it", () => {
    expect(isPreparingDelete(podWith({ state: "PreparingDelete" }))).toBe(true);
    expect(isPreparingDelete(podWith({ gate: ["False", "PreparingDelete"] }))).toBe(true);
    expect(isPreparingDelete(podWith({ gate: ["False", "StartInPlaceUpdate"] }))).toBe(false);
    expect(isPreparingDelete(podWith({ state: "PreparingUpdate" }))).toBe(false);
  });
  it("an in-place update writes Updating when the set has a lifecycle or the pod a state, else nothing", () => {
    expect(inPlaceStateLabel(withHooks(HOOK), podWith())).toEqual({ [LIFECYCLE_STATE_LABEL]: "Updating" });
    expect(inPlaceStateLabel(makeSet(), podWith({ state: "Normal" }))).toEqual({ [LIFECYCLE_STATE_LABEL]: "Updating" });
    expect(inPlaceStateLabel(makeSet(), podWith())).toEqual({});
  });
});
