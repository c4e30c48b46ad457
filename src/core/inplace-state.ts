import type { Pod, PodCondition } from "../api/k8s.ts";
import { INPLACE_READY_CONDITION, INPLACE_STATE_ANNOTATION } from "../objects/constants.ts";
import { isObject } from "../validation/json.ts";

/**
 * What an in-place update keeps on the pod, after Kruise's InPlaceUpdateState: one JSON
 * annotation (`ordinal.dev/inplace-update-state`) written in the same request that changes the
 * images, plus the `InPlaceUpdateReady` condition (the pod's readiness gate). Nothing is kept in
 * memory, so any pass can resume an update another one began.
 */

export interface InPlaceUpdateState {
  /** The revision the pod was updated to (its controller-revision-hash after the update). */
  revision: string;
  /** When the images were changed, RFC 3339 at whole seconds (floored, as the apiserver stores times). */
  updateTime: string;
  /** imageID of each changed container (spec.containers) before the update ("" when none was reported). */
  oldImageIDs: Record<string, string>;
  /** The image each changed container or init container was set to. */
  images: Record<string, string>;
  /**
   * containerID of each changed container (spec.containers) before the update, when one was
   * reported. Absent in states written before it was recorded.
   */
  oldContainerIDs?: Record<string, string>;
}

/** Reasons of the InPlaceUpdateReady condition Ordinal writes. */
export const START_REASON = "StartInPlaceUpdate";
export const DONE_REASON = "InPlaceUpdateDone";
export const CANCEL_REASON = "InPlaceUpdateCancelled";

const isStringMap = (v: unknown): v is Record<string, string> => isObject(v) && Object.values(v).every((x) => typeof x === "string");

/**
 * readInPlaceState returns the pod's in-place update state, or undefined when the annotation is
 * absent. A value that does not parse as a state reads as `{ revision: "" … }`: present (so the
 * planner clears it) but matching no revision.
 */
export function readInPlaceState(pod: Pod): InPlaceUpdateState | undefined {
  const raw = pod.metadata?.annotations?.[INPLACE_STATE_ANNOTATION];
  if (raw === undefined) return undefined;
  let s: unknown;
  try {
    s = JSON.parse(raw);
  } catch {
    // Not JSON: s stays undefined and reads as broken below.
  }
  if (
    !isObject(s) ||
    typeof s.revision !== "string" ||
    typeof s.updateTime !== "string" ||
    !isStringMap(s.oldImageIDs) ||
    !isStringMap(s.images) ||
    (s.oldContainerIDs !== undefined && !isStringMap(s.oldContainerIDs))
  ) {
    return { revision: "", updateTime: "", oldImageIDs: {}, images: {} };
  }
  const state: InPlaceUpdateState = { revision: s.revision, updateTime: s.updateTime, oldImageIDs: s.oldImageIDs, images: s.images };
  if (s.oldContainerIDs !== undefined) state.oldContainerIDs = s.oldContainerIDs;
  return state;
}

/** writeInPlaceState returns the annotation value for a state (keys in a fixed order). */
export function writeInPlaceState(s: InPlaceUpdateState): string {
  return JSON.stringify({ revision: s.revision, updateTime: s.updateTime, oldImageIDs: s.oldImageIDs, images: s.images, oldContainerIDs: s.oldContainerIDs });
}

/** gateCondition returns the pod's InPlaceUpdateReady condition, if any. */
export const gateCondition = (pod: Pod): PodCondition | undefined => pod.status?.conditions?.find((c) => c.type === INPLACE_READY_CONDITION);

/** isGateFalse is true when the pod's InPlaceUpdateReady condition is False (an update holds it out of traffic). */
export const isGateFalse = (pod: Pod): boolean => gateCondition(pod)?.status === "False";

/**
 * isInPlaceUpdating is true while an in-place update holds the pod: its gate is False or the
 * state annotation is present. Such a pod counts as unavailable (once) and is not yet updated.
 */
export const isInPlaceUpdating = (pod: Pod): boolean => isGateFalse(pod) || readInPlaceState(pod) !== undefined;

/** wholeSeconds returns the RFC 3339 text of `d` floored to the second, as metav1.Time stores it. */
export const wholeSeconds = (d: Date): string => `${d.toISOString().slice(0, 19)}Z`;

/** timeMs returns the epoch milliseconds of an apiserver time (string or Date), NaN when absent or bad. */
export const timeMs = (v: unknown): number => (v instanceof Date ? v.getTime() : typeof v === "string" ? Date.parse(v) : NaN);
