import type { Pod } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import { INPLACE_READY_CONDITION, LIFECYCLE_STATE_LABEL } from "../objects/constants.ts";
import { getOrdinal, getPodName, nameOf } from "../objects/names.ts";
import { offsetOf, ordinalAt, type OrdinalRange } from "../objects/ordinal-range.ts";
import { recordedRefusal } from "./create-refusal.ts";
import { budgetHoldWords, evictionsWaiting } from "./eviction-wait.ts";
import { podToHeal, wasNeverReady } from "./healing.ts";
import { gateCondition, isInPlaceUpdating, readInPlaceState, timeMs } from "./inplace-state.ts";
import { awaitsOnlyGate } from "./inplace-update.ts";
import { hookHolders, isHeldByHook } from "./lifecycle.ts";
import { failingContainer, getPodRevision, isFailed, isSucceeded, isRunningAndAvailable, isRunningAndReady, isTerminating, podReadyCondition } from "./pod-state.ts";
import { splitReplicas } from "./replicas.ts";
import { isSpecifiedDelete } from "./specified-delete.ts";
import { pendingSwitchovers } from "./switchover.ts";
import { missingOffsets } from "./slots.ts";
import type { SetView } from "./plan-context.ts";
import type { ReplicaSlots } from "./slots.ts";

/**
 * What holds a rollout, named once for everyone who says it: the ProgressDeadlineExceeded event,
 * the Progressing condition's message (conditions.ts) and `ordinal rollout status`
 * (rollout-state.ts). The pod and the cause in the words a person acts on: a create the apiserver
 * refused (its message, remembered in the ReplicaFailure condition: create-refusal.ts), an image
 * that cannot be pulled, a container crashing, Running but not Ready (which condition), a
 * lifecycle hook holding it, a claim waiting. It also says whether the next step is Ordinal's own
 * (`kind: "ordinal"`): the progress deadline never counts time spent waiting for Ordinal.
 */

/**
 * Who the rollout waits on: Ordinal itself (a pod to create, an in-place step to take), the
 * apiserver refusing a create, a pod (the kubelet, the image, the node), another controller (a
 * lifecycle hook), the application asked for a switchover (spec.roles.switchover), a claim,
 * podUpdatePolicy InPlaceOnly, a PodDisruptionBudget refusing a chosen pod's eviction, or a person (OnDelete).
 */
type BlockerKind = "ordinal" | "refused" | "pod" | "hook" | "switchover" | "claim" | "blocked" | "budget" | "person";

export interface Blocker {
  kind: BlockerKind;
  /** The pod it names ("" when none). */
  pod: string;
  /** The pod and the cause: "pod web-2: container app: image app:9 cannot be pulled (ErrImagePull: …)". */
  words: string;
  /**
   * When Ordinal last acted on the pod it names (epoch ms; NaN when unknown): its creation at the
   * update revision, its in-place update, its deletion. The deadline runs from here at the
   * earliest (progress-deadline.ts): a pass that took the step may have died before it wrote the
   * status whose clock it restarted.
   */
  sinceMs?: number;
  /**
   * True when what holds the rollout is the new revision's own doing: a pod at the update
   * revision, a refused create (of a pod at the update revision), an InPlaceOnly refusal of the
   * new template. A rollback can only help then (rollback.ts): a pod of an older revision, a
   * claim or a hook is no sign the release is bad.
   */
  release?: boolean;
  /**
   * True when the cause does not go away by waiting a little (a refused create, a failing
   * container, a pod not scheduled, a hook, a claim, InPlaceOnly, a person): the Progressing
   * message says only these while the rollout runs, so a pod merely starting (Pending, Running
   * not yet Ready) costs no status write of its own.
   */
  lasting?: boolean;
  /** For a refused create: when it was last refused (epoch ms). */
  lastRefusedMs?: number;
}

/** Facts of this pass the pods alone do not show (the planner's phases); the CLI reads them from the set's conditions instead. */
export interface BlockerFacts {
  /** InPlaceOnly refusals ("pod web-2: patch cannot use in-place update: …"). */
  blocked?: readonly string[];
  /** Claims that should grow and cannot, or cannot yet (not Bound). */
  claimRefusals?: readonly string[];
  claimWaits?: readonly string[];
  /** The set's replicas by offset, as the plan split them once (replicas.ts: splitReplicas); split here when absent. */
  replicas?: ReplicaSlots;
  /** The current revision as the plan resolved it (revisions.ts); status.currentRevision when absent. */
  currentRevision?: string;
  /** The pod healing replaces (healing.ts: podToHeal), as the plan found it (undefined: none); looked for here only when the key is absent. */
  heal?: Pod | undefined;
}

/**
 * rolloutBlocker returns what holds the set's rollout: a refused create of a missing replica
 * first; then a pod a hook holds; then a switchover requested and not answered (switchover.ts); then the unavailable pods (at the update revision first, lowest
 * ordinal first) whose next step is not Ordinal's (a pod healing replaces, healing.ts: podToHeal, is
 * Ordinal's); then InPlaceOnly and the claims; then a chosen
 * pod whose eviction a PodDisruptionBudget refused at the last pass (eviction-wait.ts); under OnDelete
 * a pod waiting to be deleted; else Ordinal's own next step (a pod whose in-place update only
 * lacks its gate or its image patch, a replica not created yet, or nothing unavailable at all).
 */
export function rolloutBlocker(view: SetView, pods: readonly Pod[], updateRevision: string, now: Date, facts: BlockerFacts = {}): Blocker {
  const { set, range } = view;
  const replicas = facts.replicas ?? splitReplicas(range, pods).replicas;
  const missing = missingOffsets(replicas, 1).map((i) => getPodName(set, ordinalAt(range, i)));
  const refusal = recordedRefusal(set.status?.conditions);
  if (refusal && isMissingReplica(set, range, pods, refusal.pod))
    return { kind: "refused", pod: refusal.pod, words: refusal.words, release: true, lasting: true, lastRefusedMs: refusal.lastMs };
  const held = pods.find((p) => isHeldByHook(set, p));
  if (held) return { kind: "hook", pod: nameOf(held), words: `pod ${nameOf(held)} ${heldWords(set, held)}`, lasting: true };
  // A switchover asked and not answered: the application's to move, never the release's fault (no rollback for it).
  const handover = pendingSwitchovers(set, pods, now)[0];
  if (handover) return { kind: "switchover", pod: handover.pod, words: handover.words, lasting: true };
  const byOrdinal = (a: Pod, b: Pod) => getOrdinal(nameOf(a)) - getOrdinal(nameOf(b));
  const unavailable = pods.filter((p) => !isRunningAndAvailable(p, set.spec.minReadySeconds, now) || isTerminating(p) || isInPlaceUpdating(p)).sort(byOrdinal);
  const candidates = [...unavailable.filter((p) => getPodRevision(p) === updateRevision), ...unavailable.filter((p) => getPodRevision(p) !== updateRevision)];
  const currentName = facts.currentRevision ?? set.status?.currentRevision ?? updateRevision;
  const heal = "heal" in facts ? facts.heal : podToHeal({ ...view, revisions: { currentName, updateName: updateRevision } }, replicas, pods, now);
  const step = (p: Pod) => (p === heal ? healWords(p, currentName) : ordinalsStep(p, set));
  const external = candidates.find((p) => !step(p));
  if (external) return { kind: "pod", pod: nameOf(external), words: `pod ${nameOf(external)} ${whyUnavailable(external, set.spec.minReadySeconds)}`.slice(0, 1024), sinceMs: actedOn(external, updateRevision), release: getPodRevision(external) === updateRevision, lasting: isLasting(external) };
  const first = (kind: BlockerKind, list: readonly string[] | undefined): Blocker | undefined =>
    list?.length ? { kind, pod: "", words: list.join("; ").slice(0, 1024), release: kind === "blocked", lasting: true } : undefined;
  const other = first("blocked", facts.blocked) ?? first("claim", facts.claimRefusals) ?? first("claim", facts.claimWaits);
  if (other) return other;
  // A chosen pod a PodDisruptionBudget holds: the budget's to allow (Ordinal asks each pass), never the release's fault.
  const budget = heldByBudget(set, pods);
  if (budget) return budget;
  if (view.strategy.type === "OnDelete") {
    const old = [...replicas.pods.values()].find((p) => getPodRevision(p) !== updateRevision);
    if (old) return { kind: "person", pod: nameOf(old), words: `pod ${nameOf(old)} waits to be deleted: OnDelete updates a pod when it is deleted`, lasting: true };
  }
  const mine = candidates[0];
  if (mine) return { kind: "ordinal", pod: nameOf(mine), words: `pod ${nameOf(mine)} ${step(mine)}`};
  if (missing[0]) return { kind: "ordinal", pod: missing[0], words: `pod ${missing[0]} is not created yet: Ordinal creates it next`};
  return { kind: "ordinal", pod: "", words: "no pod is unavailable: the next step is Ordinal's"};
}

/**
 * heldByBudget returns the first chosen pod (lowest ordinal) whose eviction a PodDisruptionBudget
 * refused at the last pass, as the Progressing message remembers it, while the pod is still there,
 * chosen and not terminating; undefined when none. Not `lasting`: the executor appends the budget's
 * words to the Progressing message itself each pass the eviction is refused.
 */
function heldByBudget(set: StatefulSet, pods: readonly Pod[]): Blocker | undefined {
  const waiting = evictionsWaiting(set.status?.conditions);
  if (waiting.size === 0) return undefined;
  const held = pods.filter((p) => waiting.has(nameOf(p)) && isSpecifiedDelete(p) && !isTerminating(p)).sort((a, b) => getOrdinal(nameOf(a)) - getOrdinal(nameOf(b)))[0];
  if (!held) return undefined;
  return { kind: "budget", pod: nameOf(held), words: budgetHoldWords(waiting.get(nameOf(held)) ?? "").slice(0, 1024) };
}

/** isMissingReplica is true when `pod` names one of the set's replicas and no such pod exists (a refused create of a pod no longer wanted blocks nothing). */
export function isMissingReplica(set: StatefulSet, range: OrdinalRange, pods: readonly Pod[], pod: string): boolean {
  const ordinal = getOrdinal(pod);
  return getPodName(set, ordinal) === pod && offsetOf(range, ordinal) !== undefined && !pods.some((p) => nameOf(p) === pod);
}

/**
 * ordinalsStep returns, in words, the pod's next step when it is Ordinal's own — a failed pod to
 * replace; an in-place update done on the node but for its gate; the gate False and the images
 * not changed yet —, undefined when the pod waits on something else.
 */
function ordinalsStep(pod: Pod, set: StatefulSet): string | undefined {
  if (isTerminating(pod)) return undefined;
  if (isFailed(pod) || isSucceeded(pod)) return `has ${isFailed(pod) ? "failed" : "exited"}: Ordinal replaces it next`;
  if (awaitsOnlyGate(pod)) return `runs its new images and is ready: Ordinal has yet to set its ${INPLACE_READY_CONDITION} gate True`;
  const gate = gateCondition(pod);
  if (gate?.status === "False" && gate.reason === "StartInPlaceUpdate" && !readInPlaceState(pod) && !isHeldByHook(set, pod))
    return "is out of traffic for its in-place update: Ordinal has yet to change its images";
  return undefined;
}

/** healWords says why healing replaces the pod (healing.ts), as its next step. */
function healWords(pod: Pod, currentRevision: string): string {
  const rev = getPodRevision(pod);
  const why = rev === currentRevision ? `the current revision ${rev}, which no pod was ever Ready at` : `its abandoned revision ${rev}`;
  return `was never Ready at ${why}: Ordinal replaces it next`;
}

/** actedOn returns when Ordinal last acted on the pod (epoch ms): its in-place update, its deletion, or its creation at the update revision; NaN otherwise. */
function actedOn(pod: Pod, updateRevision: string): number {
  const state = readInPlaceState(pod);
  if (state?.updateTime) return timeMs(state.updateTime);
  const deleted = timeMs(pod.metadata?.deletionTimestamp);
  if (!Number.isNaN(deleted)) return deleted - (pod.metadata?.deletionGracePeriodSeconds ?? 0) * 1000;
  return getPodRevision(pod) === updateRevision ? timeMs(pod.metadata?.creationTimestamp) : NaN;
}

/** isLasting is true when what keeps the pod unavailable does not go away by waiting a little: a failing container, not scheduled. */
const isLasting = (pod: Pod): boolean => !isTerminating(pod) && (failingContainer(pod) !== undefined || pod.status?.conditions?.some((c) => c.type === "PodScheduled" && c.status === "False") === true);

/** heldWords returns what a hook holds the pod with ("is held in PreparingDelete by a lifecycle hook until another controller removes label k=v"). */
function heldWords(set: StatefulSet, pod: Pod): string {
  const state = pod.metadata?.labels?.[LIFECYCLE_STATE_LABEL] ?? "";
  const hook = state === "PreparingDelete" ? set.spec.lifecycle?.preDelete : set.spec.lifecycle?.inPlaceUpdate;
  return `is held in ${state} by a lifecycle hook until another controller removes ${hookHolders(hook, pod).join(", ")}`;
}

/**
 * whyUnavailable returns, in words, why a pod is not available: terminating, a failing container
 * (an image that cannot be pulled, a crash loop…), an in-place update not finished, not
 * scheduled, never Ready since it started or not Ready (naming the readiness gates and containers
 * that are not), or Ready for less than minReadySeconds.
 */
export function whyUnavailable(pod: Pod, minReadySeconds: number): string {
  if (isTerminating(pod)) return "is terminating";
  const failing = failingContainer(pod);
  if (failing) return failing;
  if (isInPlaceUpdating(pod)) return "has an in-place update that has not finished (the kubelet has not restarted its containers with the new images)";
  const scheduled = pod.status?.conditions?.find((c) => c.type === "PodScheduled");
  if (scheduled?.status === "False") return `is not scheduled${scheduled.message ? `: ${scheduled.message}` : ""}`;
  if (!isRunningAndReady(pod)) {
    const phase = pod.status?.phase ?? "not created";
    const detail = notReadyWords(pod);
    return wasNeverReady(pod) ? `was never Ready (${phase})${detail}` : `is not Ready (${phase})${detail}`;
  }
  return `has been Ready for less than minReadySeconds (${minReadySeconds}s)`;
}

/** notReadyWords returns which condition keeps a pod from Ready: its readiness gates not True, its containers not ready, else the Ready condition's message ("" when nothing says). */
function notReadyWords(pod: Pod): string {
  const conditions = pod.status?.conditions ?? [];
  const gates = (pod.spec?.readinessGates ?? []).flatMap((g) => {
    const c = conditions.find((x) => x.type === g.conditionType);
    if (c?.status === "True") return [];
    return [`readiness gate ${g.conditionType} is ${c?.status ?? "not reported"}${c?.reason ? ` (${c.reason}${c.message ? `: ${c.message}` : ""})` : ""}`];
  });
  const containers = (pod.status?.containerStatuses ?? []).filter((c) => !c.ready).map((c) => `container ${c.name} is ${c.state?.running ? "running but not ready (its readiness probe does not pass)" : "not ready"}`);
  const parts = [...gates, ...containers];
  if (parts.length) return `: ${parts.join("; ")}`;
  const message = podReadyCondition(pod)?.message;
  return message ? `: ${message}` : "";
}
