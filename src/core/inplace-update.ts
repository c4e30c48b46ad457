import type { ContainerStatus, Pod, PodCondition } from "../api/k8s.ts";
import type { Action, InPlacePodPatch } from "./actions.ts";
import { INPLACE_READY_CONDITION, INPLACE_STATE_ANNOTATION, REVISION_LABEL } from "../objects/constants.ts";
import { nameOf, resourceVersionOf, uidOf } from "../objects/names.ts";
import type { InPlaceUpdateSpec } from "./inplace-calculate.ts";
import { normalizeImageReference } from "../validation/image-ref.ts";
import {
  CANCEL_REASON,
  DONE_REASON,
  START_REASON,
  gateCondition,
  readInPlaceState,
  timeMs,
  wholeSeconds,
  writeInPlaceState,
  type InPlaceUpdateState,
} from "./inplace-state.ts";
import { getPodRevision } from "./pod-state.ts";

/**
 * The apply half of an in-place update: a per-pod state machine whose every state is read from
 * the pod (the state annotation and the InPlaceUpdateReady condition), so each step is one
 * idempotent write and a pass that dies between two writes is finished by the next one:
 *
 *   1. gate False (reason StartInPlaceUpdate) through pods/status: endpoints drop the pod;
 *   2. wait gracePeriodSeconds from that condition's lastTransitionTime (the step says how long);
 *   3. one pod update (a strategic merge patch: containers merged by name), resourceVersion as precondition: images, controller-revision-hash,
 *      template label/annotation changes and the state annotation;
 *   4. wait until every changed container runs the new image (see containerUpdated);
 *   5. gate True (reason InPlaceUpdateDone), then remove the annotation.
 */

/** The next writes of a pod's in-place update, or how long to wait before the next look. */
export interface InPlaceStep {
  actions: Action[];
  /** Milliseconds until the update can go on by itself (grace period, kubelet catching up). */
  requeueAfterMs?: number;
}

/** How long to look again while the kubelet has not yet acted on an earlier update. */
const KUBELET_RETRY_MS = 1000;

/**
 * containerUpdated is true when the pod's container `name` runs what the update asked for: its
 * imageID differs from the one recorded before the update (startedAt alone lies when the old
 * image comes back) or, as Kruise accepts, the imageID is the same but the container reports the
 * image the update set (a retag to the same digest: the same content under the new name; without
 * this such a pod would stay gated forever); it is running and started at or after the update
 * (imageID alone lies when a local image restarts before the status is reported), and it is ready.
 * Times are compared at whole seconds, as the apiserver stores them: the update time is floored
 * when recorded and a container restarted by it starts after it, so its floored startedAt is >=
 * the recorded time. Equal seconds therefore count as "after" (a strict > would wait forever for a
 * container that restarted within the same second); the imageID check rules out the old container,
 * or, when the imageID is the same, its containerID recorded before the update.
 */
export function containerUpdated(pod: Pod, name: string, state: InPlaceUpdateState): boolean {
  const s = pod.status?.containerStatuses?.find((c) => c.name === name);
  if (!s || !s.imageID) return false;
  if (s.imageID === state.oldImageIDs[name]) {
    if (!sameImage(s.image, state.images[name])) return false;
    // Same content under the new name: the old container may report it too (a runtime names a
    // container by any tag of its image), and a restart within the update's second looks "after"
    // it. Its ID, when recorded, tells whether the kubelet has replaced it.
    if (isRecordedContainer(s, state, name)) return false;
  }
  // A missing or unparsable time is NaN, and NaN compares false: not updated.
  const started = timeMs(s.state?.running?.startedAt);
  return Math.floor(started / 1000) * 1000 >= timeMs(state.updateTime) && s.ready === true;
}

/**
 * sameImage is true when a container status's `image` names the image `want` (both normalized as
 * a runtime pulls them: `app:2` and `docker.io/library/app:2` are one image); false when either
 * is missing.
 */
function sameImage(reported: string | undefined, want: string | undefined): boolean {
  if (!reported || !want) return false;
  const a = normalizeImageReference(reported);
  const b = normalizeImageReference(want);
  return a.ok && b.ok ? a.ref === b.ref : reported === want;
}

/**
 * isRecordedContainer is true when the status still shows the container whose ID was recorded
 * before the update (the kubelet has not replaced it); false when none was recorded.
 */
function isRecordedContainer(s: ContainerStatus | undefined, state: InPlaceUpdateState, name: string): boolean {
  const oldID = state.oldContainerIDs?.[name];
  return oldID !== undefined && s?.containerID === oldID;
}

/** isInPlaceUpdateDone is true when every container the update changed is updated (containerUpdated). */
function isInPlaceUpdateDone(pod: Pod, state: InPlaceUpdateState): boolean {
  return Object.keys(state.oldImageIDs).every((name) => containerUpdated(pod, name, state));
}

/**
 * awaitsOnlyGate is true when the pod's in-place update is done on the node (every changed
 * container runs the new image and is ready) and only Ordinal's own step is missing: the gate
 * True, after which the pod is Ready. The progress deadline counts such a pod as updated and Ready.
 */
export function awaitsOnlyGate(pod: Pod): boolean {
  const state = readInPlaceState(pod);
  return !!state && state.revision !== "" && state.revision === getPodRevision(pod) && isInPlaceUpdateDone(pod, state);
}

/** gateAction returns the pods/status write that sets the InPlaceUpdateReady condition (merged by type: the pod's other conditions are left alone). */
export function gateAction(pod: Pod, status: "True" | "False", reason: string, message: string, now: Date): Action {
  const cond: PodCondition = { type: INPLACE_READY_CONDITION, status, reason, message, lastTransitionTime: wholeSeconds(now) as unknown as Date };
  return {
    type: "setPodCondition",
    name: nameOf(pod),
    uid: uidOf(pod),
    resourceVersion: resourceVersionOf(pod),
    conditions: [cond],
  };
}

/**
 * startInPlaceUpdate returns the next step of moving `pod` in place to `revision` with `spec`
 * (from calculateInPlaceUpdate): the gate write, a wait for the grace period, or the pod update
 * (with `stateLabel`, the lifecycle state Updating, in the same patch).
 * `refused` is set when this pod cannot take the update in place although the templates allow
 * it (a changed container is missing from the pod). A pod whose earlier in-place update the
 * kubelet has not acted on yet waits: changing its images again before the old container is
 * gone could leave nothing to restart, and the update would never be seen to finish.
 */
export function startInPlaceUpdate(
  pod: Pod,
  revision: string,
  spec: InPlaceUpdateSpec,
  gracePeriodSeconds: number,
  now: Date,
  stateLabel: Record<string, string> = {},
): InPlaceStep & { refused?: string } {
  const prev = readInPlaceState(pod);
  if (prev && prev.revision === getPodRevision(pod) && !earlierUpdateSettled(pod, prev, spec)) return { actions: [], requeueAfterMs: KUBELET_RETRY_MS };
  for (const c of spec.images) {
    if (!(pod.spec?.[c.field] ?? []).some((x) => x.name === c.name))
      return { actions: [], refused: `container ${JSON.stringify(c.name)} of the template is not in pod ${nameOf(pod)}` };
  }
  const gate = gateCondition(pod);
  if (gate?.status !== "False") {
    const action = gateAction(pod, "False", START_REASON, `in-place update to revision ${revision}`, now);
    return { actions: [action], requeueAfterMs: gracePeriodSeconds * 1000 || undefined };
  }
  // lastTransitionTime is floored to the second: one more second keeps the pod out of traffic
  // for at least gracePeriodSeconds.
  const since = timeMs(gate.lastTransitionTime);
  const end = Number.isNaN(since) || gracePeriodSeconds <= 0 ? 0 : since + (gracePeriodSeconds + 1) * 1000;
  if (now.getTime() < end) return { actions: [], requeueAfterMs: end - now.getTime() };
  return { actions: [{ type: "updatePodInPlace", name: nameOf(pod), revision, patch: newInPlacePatch(pod, revision, spec, now, stateLabel) }] };
}

/**
 * newInPlacePatch returns the strategic merge patch of the in-place update: the changed containers'
 * names and new images, template label/annotation changes, the revision label and
 * the state annotation recording the running imageIDs. It carries the observed resourceVersion,
 * so the update fails with a conflict if the pod changed since it was read.
 */
function newInPlacePatch(pod: Pod, revision: string, spec: InPlaceUpdateSpec, now: Date, stateLabel: Record<string, string>): InPlacePodPatch {
  const state: InPlaceUpdateState = { revision, updateTime: wholeSeconds(now), oldImageIDs: {}, images: {} };
  const lists: InPlacePodPatch["spec"] = {};
  for (const field of ["initContainers", "containers"] as const) {
    // In the pod's order: a strategic merge keeps the stored order of the containers it names.
    const changed = (pod.spec?.[field] ?? []).flatMap((x) => spec.images.filter((c) => c.field === field && c.name === x.name).map((c) => ({ name: c.name, image: c.image })));
    if (changed.length) lists[field] = changed;
  }
  for (const c of spec.images) {
    state.images[c.name] = c.image;
    if (c.field !== "containers") continue;
    const status = pod.status?.containerStatuses?.find((s) => s.name === c.name);
    state.oldImageIDs[c.name] = status?.imageID ?? "";
    if (status?.containerID) (state.oldContainerIDs ??= {})[c.name] = status.containerID;
  }
  return {
    metadata: {
      uid: uidOf(pod),
      resourceVersion: resourceVersionOf(pod),
      labels: { ...spec.labels, ...stateLabel, [REVISION_LABEL]: revision },
      annotations: { ...spec.annotations, [INPLACE_STATE_ANNOTATION]: writeInPlaceState(state) },
    },
    spec: lists,
  };
}

/**
 * earlierUpdateSettled is true when the kubelet has acted on the pod's unfinished earlier update
 * as far as a new one needs: every container it changed that the new update changes again no
 * longer runs the container from before it, and every other one it changed is updated.
 */
function earlierUpdateSettled(pod: Pod, prev: InPlaceUpdateState, spec: InPlaceUpdateSpec): boolean {
  const again = new Set(spec.images.map((c) => c.name));
  const since = timeMs(prev.updateTime);
  return Object.keys(prev.oldImageIDs).every((name) => {
    if (!again.has(name)) return containerUpdated(pod, name, prev);
    const s = pod.status?.containerStatuses?.find((c) => c.name === name);
    const started = timeMs(s?.state?.running?.startedAt);
    // Not reported, or not running (NaN compares false): the old container is gone. One that
    // started within the update's second is the old one only if it still has the ID recorded then.
    const startedBefore = Math.floor(started / 1000) * 1000 < since;
    const sameContainer = isRecordedContainer(s, prev, name) && !Number.isNaN(started);
    const oldStillRunning = s?.imageID === prev.oldImageIDs[name] && (startedBefore || sameContainer);
    return !oldStillRunning;
  });
}

/**
 * finishInPlaceUpdate returns the next step of a pod that carries the state annotation: nothing
 * while the kubelet has not finished (the kubelet's status write brings the next look), then the
 * gate True (reason InPlaceUpdateDone), then the annotation's removal. A state that does not
 * belong to the pod's revision (written by hand, or unreadable) is cleared the same way.
 */
export function finishInPlaceUpdate(pod: Pod, now: Date): InPlaceStep {
  const state = readInPlaceState(pod);
  if (!state) return { actions: [] };
  const stale = state.revision !== getPodRevision(pod);
  if (!stale && !isInPlaceUpdateDone(pod, state)) return { actions: [] };
  if (gateCondition(pod)?.status !== "True") {
    const reason = stale ? CANCEL_REASON : DONE_REASON;
    const message = stale ? "in-place update state does not match the pod's revision" : `in-place update to revision ${state.revision} done`;
    return { actions: [gateAction(pod, "True", reason, message, now)] };
  }
  return { actions: [{ type: "clearInPlaceState", name: nameOf(pod), uid: uidOf(pod) }] };
}

/**
 * cancelInPlaceUpdate returns the gate write that puts a pod back into traffic when its gate is
 * False but no update of its images was made and none is wanted now (paused, partition raised,
 * template reverted, policy changed); nothing otherwise.
 */
export function cancelInPlaceUpdate(pod: Pod, why: string, now: Date): InPlaceStep {
  if (readInPlaceState(pod) || gateCondition(pod)?.status !== "False") return { actions: [] };
  return { actions: [gateAction(pod, "True", CANCEL_REASON, why, now)] };
}
