import type { Pod } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import { DEADLINE_EXCEEDED_REASON, PROGRESSING_CONDITION } from "../objects/constants.ts";
import { getOrdinal, nameOf } from "../objects/names.ts";
import { wasNeverReady } from "./healing.ts";
import { isInPlaceUpdating, timeMs, wholeSeconds } from "./inplace-state.ts";
import { isHeldByHook } from "./lifecycle.ts";
import { failingContainer, getPodRevision, isRunningAndAvailable, isRunningAndReady, isTerminating, podReadyCondition } from "./pod-state.ts";
import { ordinalRange } from "../objects/ordinal-range.ts";
import { splitReplicas } from "./replicas.ts";
import type { ReplicaCounts } from "./status.ts";
import { isRolloutComplete, type ProgressFacts } from "./rollout-progress.ts";
import { updateStrategyOf } from "./update-strategy.ts";

/**
 * The progress deadline (Deployment's spec.progressDeadlineSeconds, for a StatefulSet): a rollout
 * that goes that long without progress — no pod newly updated and Ready — is reported as
 * Progressing=False, reason ProgressDeadlineExceeded, naming the pod that holds it and why
 * (rollback.ts may then roll it back). All of it is read from the cluster: the clock is the
 * Progressing condition's lastUpdateTime, which moves to `now` when a rollout starts (a new update
 * revision, a resume, a rollout after a completed one) and whenever status.updatedReadyReplicas
 * grows past the stored count or status.replicas moves toward spec.replicas (a scale). A
 * scale-down whose kept replicas are done has no clock (onlyCondemnedLeft). A paused rollout has
 * no clock (resuming starts a fresh one), as a paused Deployment's. Neither has one while a
 * lifecycle hook holds a pod (lifecycle.ts: isHeldByHook): the rollout then waits on another controller (a drain, a registry), which says
 * nothing about the new revision, and a rollback would only undo a release that may be sound; the
 * first pass after the hold starts a fresh clock (the Progressing condition written meanwhile has
 * no lastUpdateTime). Kruise's CloneSet lets its clock run (it only reports; it has no rollback).
 */

/** Progressing reasons of a rollout under way: its clock carries over from one pass to the next. */
const RUNNING_REASONS = new Set(["RollingUpdate", "Scaling", "WaitingForPodDeletion", DEADLINE_EXCEEDED_REASON]);

/**
 * checkProgress returns the deadline's facts for the set at `now`, or undefined when there is no
 * clock: no progressDeadlineSeconds, the rollout is paused or complete, a lifecycle hook holds a
 * pod, the set is being deleted.
 * `observed` are the counts before this pass's writes; `pods` the set's pods (to name the holder).
 */
export function checkProgress(set: StatefulSet, observed: ReplicaCounts, updateRevision: string, pods: readonly Pod[], now: Date): ProgressFacts | undefined {
  const seconds = set.spec.progressDeadlineSeconds;
  if (!seconds || set.metadata.deletionTimestamp != null) return undefined;
  if (updateStrategyOf(set).paused) return undefined;
  if (isRolloutComplete(set, observed) || onlyCondemnedLeft(set, pods, updateRevision)) return undefined;
  const prev = set.status?.conditions?.find((c) => c.type === PROGRESSING_CONDITION);
  const running = prev?.reason !== undefined && RUNNING_REASONS.has(prev.reason) && set.status?.updateRevision === updateRevision;
  const exceeded = () => `no pod newly updated and Ready for ${seconds}s: ${holdingPod(set, pods, updateRevision, now)}`;
  // A hold stops the clock, but does not clear a deadline already exceeded at this revision.
  if (pods.some((p) => isHeldByHook(set, p))) {
    return running && prev?.reason === DEADLINE_EXCEEDED_REASON ? { lastUpdateTime: prev.lastUpdateTime ?? wholeSeconds(now), exceeded: exceeded() } : undefined;
  }
  const since = running ? timeMs(prev?.lastUpdateTime) : NaN;
  // Progress: a pod newly updated and Ready, or (a scale) a pod gone or created toward spec.replicas.
  const stored = set.status?.replicas ?? observed.replicas;
  const towardReplicas = Math.abs(observed.replicas - set.spec.replicas) < Math.abs(stored - set.spec.replicas);
  const progressed = observed.updatedReadyReplicas > (set.status?.updatedReadyReplicas ?? 0) || towardReplicas;
  const lastUpdateTime = Number.isNaN(since) || progressed ? wholeSeconds(now) : (prev?.lastUpdateTime ?? wholeSeconds(now));
  const due = timeMs(lastUpdateTime) + seconds * 1000;
  if (now.getTime() < due) return { lastUpdateTime, requeueAfterMs: due - now.getTime() };
  return { lastUpdateTime, exceeded: exceeded() };
}

/**
 * onlyCondemnedLeft is true when the set's own replicas (its ordinals: ordinals.start,
 * reserveOrdinals) make a complete rollout and what remains is pods beyond them going away: a
 * scale-down waits on the kubelet's grace periods, which no controller speeds up (a Deployment's
 * terminating pods do not count against its deadline either).
 */
function onlyCondemnedLeft(set: StatefulSet, pods: readonly Pod[], updateRevision: string): boolean {
  const { replicas } = splitReplicas(ordinalRange(set.spec), pods);
  const kept = [...replicas.pods.values()].filter((p) => !isTerminating(p));
  if (kept.length === pods.length) return false;
  return isRolloutComplete(set, {
    replicas: kept.length,
    readyReplicas: kept.filter(isRunningAndReady).length,
    updatedReplicas: kept.filter((p) => getPodRevision(p) === updateRevision).length,
  });
}

/**
 * holdingPod returns which pod holds the rollout and why: the lowest ordinal that is not available
 * among the pods at the update revision, else among the others; "every pod is available" when
 * none is unavailable (then the rollout waits on a pod to be created or deleted).
 */
export function holdingPod(set: StatefulSet, pods: readonly Pod[], updateRevision: string, now: Date): string {
  const unavailable = pods.filter((p) => !isRunningAndAvailable(p, set.spec.minReadySeconds, now) || isTerminating(p) || isInPlaceUpdating(p));
  const byOrdinal = (a: Pod, b: Pod) => getOrdinal(nameOf(a)) - getOrdinal(nameOf(b));
  const updated = unavailable.filter((p) => getPodRevision(p) === updateRevision).sort(byOrdinal);
  const pod = updated[0] ?? unavailable.sort(byOrdinal)[0];
  return pod ? `pod ${nameOf(pod)} ${whyUnavailable(pod, set.spec.minReadySeconds)}`.slice(0, 1024) : "every pod is available";
}

/**
 * whyUnavailable returns, in words, why a pod is not available: terminating, a failing container
 * (ErrImagePull, CrashLoopBackOff…), an in-place update not finished, not scheduled, never Ready
 * since it started, not Ready, or Ready for less than minReadySeconds.
 */
export function whyUnavailable(pod: Pod, minReadySeconds: number): string {
  if (isTerminating(pod)) return "is terminating";
  const failing = failingContainer(pod);
  if (failing) return failing;
  if (isInPlaceUpdating(pod)) return "has an in-place update that has not finished";
  const scheduled = pod.status?.conditions?.find((c) => c.type === "PodScheduled");
  if (scheduled?.status === "False") return `is not scheduled${scheduled.message ? `: ${scheduled.message}` : ""}`;
  if (!isRunningAndReady(pod)) {
    const phase = pod.status?.phase ?? "not created";
    const ready = podReadyCondition(pod);
    const detail = ready?.message ? `: ${ready.message}` : "";
    return wasNeverReady(pod) ? `was never Ready (${phase})${detail}` : `is not Ready (${phase})${detail}`;
  }
  return `has been Ready for less than minReadySeconds (${minReadySeconds}s)`;
}
