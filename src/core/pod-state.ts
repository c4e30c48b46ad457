import type { Pod } from "../api/k8s.ts";
import { REVISION_LABEL } from "../objects/constants.ts";

/**
 * Pod predicates after upstream's stateful_set_utils.go. A pod the planner has not created yet
 * has no phase; every pod the apiserver returns has one (it defaults phase to Pending).
 */

/** isCreated is true once the apiserver has the pod (it has a phase). */
export const isCreated = (pod: Pod): boolean => !!pod.status?.phase;
export const isPending = (pod: Pod): boolean => pod.status?.phase === "Pending";
export const isFailed = (pod: Pod): boolean => pod.status?.phase === "Failed";
export const isSucceeded = (pod: Pod): boolean => pod.status?.phase === "Succeeded";
/** isTerminating is true once deletion has begun (deletionTimestamp set). */
export const isTerminating = (pod: Pod): boolean => pod.metadata?.deletionTimestamp != null;

/** podReadyCondition returns the pod's Ready condition, if any. */
export const podReadyCondition = (pod: Pod) => pod.status?.conditions?.find((c) => c.type === "Ready");

/** isRunningAndReady is true when the pod is Running and its Ready condition is True. */
export function isRunningAndReady(pod: Pod): boolean {
  return pod.status?.phase === "Running" && podReadyCondition(pod)?.status === "True";
}

/**
 * isRunningAndAvailable is true when the pod is running and ready and has been ready for more
 * than minReadySeconds at `now` (upstream's podutil.IsPodAvailable: readySince + minReadySeconds
 * must be strictly before now, so a pod Ready for exactly minReadySeconds is not yet available).
 */
export function isRunningAndAvailable(pod: Pod, minReadySeconds: number, now: Date): boolean {
  if (!isRunningAndReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const since = podReadyCondition(pod)?.lastTransitionTime;
  if (!since) return false;
  return new Date(since).getTime() + minReadySeconds * 1000 < now.getTime();
}

/** isHealthy is true when the pod is running, ready and not terminating. */
export const isHealthy = (pod: Pod): boolean => isRunningAndReady(pod) && !isTerminating(pod);

/** getPodRevision returns the pod's controller-revision-hash label ("" when unset). */
export const getPodRevision = (pod: Pod): string => pod.metadata?.labels?.[REVISION_LABEL] ?? "";

/** Container waiting reasons that do not go away by waiting (a bad image, a crash loop, a bad config). */
const FAILING_REASONS = new Set(["ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CrashLoopBackOff", "CreateContainerConfigError", "CreateContainerError", "RunContainerError"]);
const PULL_REASONS = new Set(["ErrImagePull", "ImagePullBackOff", "InvalidImageName"]);

/**
 * failingContainer returns the first container (init containers first) whose waiting reason does
 * not go away by waiting, in a person's words — "container app: image app:9 cannot be pulled
 * (ErrImagePull: …)", "container app is crashing (CrashLoopBackOff: …)", "container app cannot
 * start (CreateContainerConfigError: …)" —; undefined when none is.
 */
export function failingContainer(pod: Pod): string | undefined {
  const images = new Map([...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((c) => [c.name, c.image]));
  for (const cs of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) {
    const waiting = cs.state?.waiting;
    if (!waiting?.reason || !FAILING_REASONS.has(waiting.reason)) continue;
    const why = `(${waiting.reason}${waiting.message ? `: ${waiting.message}` : ""})`;
    if (PULL_REASONS.has(waiting.reason)) return `container ${cs.name}: image ${images.get(cs.name) ?? cs.image} cannot be pulled ${why}`;
    if (waiting.reason === "CrashLoopBackOff") return `container ${cs.name} is crashing ${why}`;
    return `container ${cs.name} cannot start ${why}`;
  }
  return undefined;
}
