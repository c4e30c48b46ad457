import type { Pod } from "../api/k8s.ts";
import type { LifecycleHook, StatefulSet } from "../api/statefulset.ts";
import type { Action } from "./actions.ts";
import { LIFECYCLE_STATE_LABEL } from "../objects/constants.ts";
import { nameOf, resourceVersionOf, uidOf } from "../objects/names.ts";
import { gateCondition, readInPlaceState, wholeSeconds } from "./inplace-state.ts";
import { gateAction } from "./inplace-update.ts";

/**
 * Lifecycle hooks (spec.lifecycle.preDelete, spec.lifecycle.inPlaceUpdate), after OpenKruise's
 * pkg/util/lifecycle and Advanced StatefulSet: before a pod is deleted or updated in place it is
 * moved to state PreparingDelete / PreparingUpdate (label ordinal.dev/lifecycle-state), first
 * marked not ready through the InPlaceUpdateReady gate when the hook says markPodNotReady, and
 * held there while it carries any of the hook's labels (with their values) or finalizers; another
 * controller removes them when it is safe. A pod that carries none of them when its step comes is
 * not held at all (Kruise's IsPodHooked). After an in-place update: Updating → Updated (the hook's
 * labels or finalizers are not all back) → Normal (they are, or there is no inPlaceUpdate hook).
 *
 * Each function is "calculate" (pod + spec → transition) then "apply" (transition → at most one
 * write): every state is read from the pod, so a pass that dies between two writes is finished by
 * the next one, and two writes never race on one resourceVersion.
 */

type LifecycleState = "Normal" | "PreparingDelete" | "PreparingUpdate" | "Updating" | "Updated";

/** Reasons of the InPlaceUpdateReady condition when a hook marks the pod not ready (markPodNotReady). */
const PREPARING_DELETE_REASON = "PreparingDelete";
const PREPARING_UPDATE_REASON = "PreparingUpdate";
/** Reason of the gate put back True when a pod is no longer to be deleted. */
const DELETE_CANCELLED_REASON = "PreparingDeleteCancelled";

/** getLifecycleState returns the pod's lifecycle state label ("" when absent, which reads as Normal). */
const getLifecycleState = (pod: Pod): string => pod.metadata?.labels?.[LIFECYCLE_STATE_LABEL] ?? "";

/** hookHolders returns what of `hook` the pod still carries ("label k=v", "finalizer f"), in the hook's order; [] when nothing. */
export function hookHolders(hook: LifecycleHook | undefined, pod: Pod): string[] {
  if (!hook) return [];
  const labels = pod.metadata?.labels ?? {};
  const finalizers = pod.metadata?.finalizers ?? [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(hook.labelsHandler ?? {})) if (labels[k] === v) out.push(`label ${k}=${v}`);
  for (const f of hook.finalizersHandler ?? []) if (finalizers.includes(f)) out.push(`finalizer ${f}`);
  return out;
}

/** isPodHooked is true when the pod carries any of the hook's labels (with its value) or finalizers (Kruise's IsPodHooked). */
export const isPodHooked = (hook: LifecycleHook | undefined, pod: Pod): boolean => hookHolders(hook, pod).length > 0;

/** isPodAllHooked is true when the pod carries all of the hook's labels and finalizers; false without a hook (Kruise's IsPodAllHooked). */
export function isPodAllHooked(hook: LifecycleHook | undefined, pod: Pod): boolean {
  if (!hook) return false;
  const want = Object.keys(hook.labelsHandler ?? {}).length + (hook.finalizersHandler ?? []).length;
  return hookHolders(hook, pod).length === want;
}

/**
 * isPreparingDelete is true when the pod has begun preparing for deletion: its state is
 * PreparingDelete, or its gate was set False for it (markPodNotReady, the first of the two writes).
 */
export function isPreparingDelete(pod: Pod): boolean {
  const gate = gateCondition(pod);
  return getLifecycleState(pod) === "PreparingDelete" || (gate?.status === "False" && gate.reason === PREPARING_DELETE_REASON);
}

/**
 * isHeldByHook is true when one of the set's hooks holds the pod now: PreparingDelete still
 * carrying any of preDelete's labels or finalizers, or PreparingUpdate any of inPlaceUpdate's —
 * the pod waits on another controller, not on itself.
 */
export function isHeldByHook(set: StatefulSet, pod: Pod): boolean {
  const state = getLifecycleState(pod);
  if (state === "PreparingDelete") return isPodHooked(set.spec.lifecycle?.preDelete, pod);
  if (state === "PreparingUpdate") return isPodHooked(set.spec.lifecycle?.inPlaceUpdate, pod);
  return false;
}

/** What a hook says about a pod's step. */
export type LifecycleTransition =
  /** Nothing holds the pod: the step (deletion, in-place update) goes on now. */
  | { kind: "go" }
  /** Set the gate False first (markPodNotReady). */
  | { kind: "markNotReady"; reason: string }
  /** Write the state label (and, leaving Updated, put the hook's labels and finalizers back). */
  | { kind: "enter"; state: LifecycleState; labels?: Record<string, string>; finalizers?: string[] }
  /** The hook holds the pod in `state`: wait until these are removed. */
  | { kind: "hold"; state: LifecycleState; holders: string[] }
  /** Put the gate back True (a deletion no longer wanted). */
  | { kind: "markReady"; reason: string }
  /** Nothing to write. */
  | { kind: "none" };

const wantsNotReady = (hook: LifecycleHook, pod: Pod): boolean => hook.markPodNotReady && gateCondition(pod)?.status !== "False";

/**
 * calculatePreDelete returns the transition before deleting `pod` (Kruise's deletePod): a pod the
 * preDelete hook does not hook and that is not PreparingDelete yet is deleted at once; a hooked pod
 * is marked not ready (markPodNotReady), then moved to PreparingDelete, then held while hooked.
 */
export function calculatePreDelete(set: StatefulSet, pod: Pod): LifecycleTransition {
  const hook = set.spec.lifecycle?.preDelete;
  const preparing = getLifecycleState(pod) === "PreparingDelete";
  if (!hook || (!preparing && !isPodHooked(hook, pod))) return { kind: "go" };
  if (wantsNotReady(hook, pod)) return { kind: "markNotReady", reason: PREPARING_DELETE_REASON };
  if (!preparing) return { kind: "enter", state: "PreparingDelete" };
  const holders = hookHolders(hook, pod);
  return holders.length ? { kind: "hold", state: "PreparingDelete", holders } : { kind: "go" };
}

/**
 * calculatePreInPlaceUpdate returns the transition before updating `pod` in place (Kruise's
 * inPlaceUpdatePod): from Normal, a hooked pod is marked not ready (markPodNotReady), moved to
 * PreparingUpdate and held while hooked; from Updated (a second update before the hook came back)
 * the hook's labels and finalizers are put back with PreparingUpdate, after the gate went False
 * with markPodNotReady as from Normal; an update under way
 * (Updating) goes on.
 */
export function calculatePreInPlaceUpdate(set: StatefulSet, pod: Pod): LifecycleTransition {
  const hook = set.spec.lifecycle?.inPlaceUpdate;
  if (!hook) return { kind: "go" };
  const state = getLifecycleState(pod);
  if (state === "Updating") return { kind: "go" };
  if (state === "Updated") {
    // markPodNotReady holds here too: out of traffic before the hook is handed the pod again.
    if (wantsNotReady(hook, pod)) return { kind: "markNotReady", reason: PREPARING_UPDATE_REASON };
    const finalizers = pod.metadata?.finalizers ?? [];
    const missing = (hook.finalizersHandler ?? []).filter((f) => !finalizers.includes(f));
    return { kind: "enter", state: "PreparingUpdate", labels: { ...hook.labelsHandler }, ...(missing.length ? { finalizers: [...finalizers, ...missing] } : {}) };
  }
  const preparing = state === "PreparingUpdate";
  if (!preparing && !isPodHooked(hook, pod)) return { kind: "go" };
  if (wantsNotReady(hook, pod)) return { kind: "markNotReady", reason: PREPARING_UPDATE_REASON };
  if (!preparing) return { kind: "enter", state: "PreparingUpdate" };
  const holders = hookHolders(hook, pod);
  return holders.length ? { kind: "hold", state: "PreparingUpdate", holders } : { kind: "go" };
}

/**
 * calculateSettle returns the transition of a pod no step is acting on (Kruise's refreshPodState):
 * Updating → Updated (or Normal when the inPlaceUpdate hook is all back) once its in-place update
 * is done; Updated → Normal once the hook is all back, or without an inPlaceUpdate hook. With
 * `deleteWanted` false, a pod preparing for a deletion no longer wanted (scaled back up, the
 * rollout paused or reverted) gets its gate back True, then Normal.
 */
export function calculateSettle(set: StatefulSet, pod: Pod, deleteWanted: boolean): LifecycleTransition {
  const state = getLifecycleState(pod);
  const hook = set.spec.lifecycle?.inPlaceUpdate;
  if (!deleteWanted && isPreparingDelete(pod)) {
    const gate = gateCondition(pod);
    if (gate?.status === "False" && gate.reason === PREPARING_DELETE_REASON) return { kind: "markReady", reason: DELETE_CANCELLED_REASON };
    return { kind: "enter", state: "Normal" };
  }
  if (state === "Updating" && !readInPlaceState(pod) && gateCondition(pod)?.status !== "False") {
    return { kind: "enter", state: set.spec.lifecycle && !isPodAllHooked(hook, pod) ? "Updated" : "Normal" };
  }
  if (state === "Updated" && (!hook || isPodAllHooked(hook, pod))) return { kind: "enter", state: "Normal" };
  return { kind: "none" };
}

/** The writes of a transition and whether the step may go on. */
export interface LifecycleStep {
  /** True when the step (deletion, in-place update) may be done now. */
  go: boolean;
  /** At most one write. */
  actions: Action[];
  /** "pod web-2 PreparingDelete: label example.io/drain=true" while a hook holds the pod. */
  held?: string;
}

/** applyTransition returns the write of a transition of `pod` at `now`. */
export function applyTransition(pod: Pod, t: LifecycleTransition, now: Date): LifecycleStep {
  switch (t.kind) {
    case "go":
      return { go: true, actions: [] };
    case "none":
      return { go: false, actions: [] };
    case "markNotReady":
      return { go: false, actions: [gateAction(pod, "False", t.reason, `lifecycle hook: ${t.reason}`, now)] };
    case "markReady":
      return { go: false, actions: [gateAction(pod, "True", t.reason, "the pod is no longer to be deleted", now)] };
    case "enter": {
      const a: Action = { type: "setLifecycleState", name: nameOf(pod), uid: uidOf(pod), resourceVersion: resourceVersionOf(pod), state: t.state, time: wholeSeconds(now) };
      if (t.labels && Object.keys(t.labels).length) a.labels = t.labels;
      if (t.finalizers) a.finalizers = t.finalizers;
      return { go: false, actions: [a] };
    }
    case "hold":
      return { go: false, actions: [], held: `pod ${nameOf(pod)} ${t.state}: ${t.holders.join(", ")}` };
  }
}

/** preDeleteStep is calculatePreDelete then applyTransition: whether `pod` may be deleted now, else the write or the hold. */
export const preDeleteStep = (set: StatefulSet, pod: Pod, now: Date): LifecycleStep => applyTransition(pod, calculatePreDelete(set, pod), now);

/** preInPlaceUpdateStep is calculatePreInPlaceUpdate then applyTransition. */
export const preInPlaceUpdateStep = (set: StatefulSet, pod: Pod, now: Date): LifecycleStep => applyTransition(pod, calculatePreInPlaceUpdate(set, pod), now);

/** settleStep is calculateSettle then applyTransition (its `go` is always false: it is no step of its own). */
export const settleStep = (set: StatefulSet, pod: Pod, deleteWanted: boolean, now: Date): LifecycleStep =>
  applyTransition(pod, calculateSettle(set, pod, deleteWanted), now);

/** inPlaceStateLabel returns the state label an in-place update's patch writes (Updating), or none when the set has no lifecycle and the pod no state. */
export function inPlaceStateLabel(set: StatefulSet, pod: Pod): Record<string, string> {
  return set.spec.lifecycle || getLifecycleState(pod) ? { [LIFECYCLE_STATE_LABEL]: "Updating" } : {};
}
