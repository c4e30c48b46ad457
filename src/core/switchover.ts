import type { Pod } from "../api/k8s.ts";
import type { StatefulSet } from "../api/statefulset.ts";
import type { Action } from "./actions.ts";
import { SWITCHOVER_REQUEST_ANNOTATION } from "../objects/constants.ts";
import { nameOf, resourceVersionOf, uidOf } from "../objects/names.ts";
import { timeMs, wholeSeconds } from "./inplace-state.ts";
import { isFailed, isSucceeded } from "./pod-state.ts";
import { roleOf } from "./roles.ts";

/**
 * The switchover before the leader (spec.roles.switchover): before Ordinal updates (in place or by
 * recreation) or deletes (scale-down, a reserved ordinal, a chosen deletion) a pod that holds one of
 * switchover.roles, it writes the annotation ordinal.dev/switchover-requested (the request's time,
 * RFC 3339) on the pod, and waits until the pod's role label no longer holds such a role — the
 * application's answer (Patroni: a switchover moves spilo-role=master to another pod). Then it
 * removes the annotation and goes on with the pod on the next pass. A request not answered within
 * timeoutSeconds stops the rollout (condition SwitchoverTimedOut, a Warning event, the blocker names
 * it); the pod is still never touched, and the rollout goes on once its role moves.
 *
 * All state is in the cluster: the request's time is the annotation, the answer is the label, so a
 * pass that dies anywhere is finished by the next one, and the timeout is judged only after the
 * label is read (a late pass never times out a switchover that was answered). One write per pod
 * per pass, as the lifecycle hooks do (the annotation's write moves the pod's resourceVersion).
 */

/** What the switchover says about touching a pod now. */
export interface SwitchoverStep {
  /** True when nothing is to be handed away: the update or deletion goes on now. */
  go: boolean;
  /** At most one write: the request, or its removal once answered. */
  actions: Action[];
  /** While a request waits: "pod web-2 holds role master: switchover requested at … (…)". */
  held?: string;
  /** Look again after this many milliseconds (when the request times out). */
  requeueAfterMs?: number;
}

/** A switchover requested and not answered yet: on which pod, for which role, since when, and whether it timed out. */
export interface PendingSwitchover {
  pod: string;
  role: string;
  requestedAt: string;
  timedOut: boolean;
  /** The pod and the wait in words, for the blocker, the condition and `rollout status`. */
  words: string;
}

/** switchoverRole returns the switchover role the pod holds now, undefined when it holds none (or the set asks for no switchover). */
function switchoverRole(set: StatefulSet, pod: Pod): string | undefined {
  const roles = set.spec.roles;
  if (!roles?.switchover) return undefined;
  const role = roleOf(pod, roles);
  return role !== undefined && roles.switchover.roles.includes(role) ? role : undefined;
}

/** requestOf returns the pod's switchover request annotation (its time), undefined when it has none. */
const requestOf = (pod: Pod): string | undefined => pod.metadata?.annotations?.[SWITCHOVER_REQUEST_ANNOTATION];

/** requestAction writes (`at`) or removes (null) the pod's request, with the event the executor records once done. */
function requestAction(pod: Pod, at: string | null, reason: string, message: string): Action {
  return { type: "setSwitchoverRequest", name: nameOf(pod), uid: uidOf(pod), resourceVersion: resourceVersionOf(pod), at, reason, message };
}

/**
 * pendingSwitchover returns the pod's unanswered request at `now`: the pod holds a switchover role
 * and carries a request; undefined otherwise. A request whose time does not parse counts from now.
 */
export function pendingSwitchover(set: StatefulSet, pod: Pod, now: Date): PendingSwitchover | undefined {
  const role = switchoverRole(set, pod);
  const at = requestOf(pod);
  if (role === undefined || at === undefined) return undefined;
  const timeout = set.spec.roles?.switchover?.timeoutSeconds ?? 0;
  const since = timeMs(at);
  const waited = Number.isNaN(since) ? 0 : Math.max(0, now.getTime() - since);
  const timedOut = waited >= timeout * 1000;
  const words = timedOut
    ? `pod ${nameOf(pod)} holds role ${role}: switchover requested at ${at} (annotation ${SWITCHOVER_REQUEST_ANNOTATION}) was not answered within ${timeout}s; Ordinal does not touch the pod until its label ${set.spec.roles?.labelKey} holds another role`
    : `pod ${nameOf(pod)} holds role ${role}: switchover requested at ${at}, waiting for its label ${set.spec.roles?.labelKey} to move (timeout ${timeout}s)`;
  return { pod: nameOf(pod), role, requestedAt: at, timedOut, words };
}

/** pendingSwitchovers returns the unanswered requests among `pods`, in their order. */
export function pendingSwitchovers(set: StatefulSet, pods: Iterable<Pod>, now: Date): PendingSwitchover[] {
  if (!set.spec.roles?.switchover) return [];
  const out: PendingSwitchover[] = [];
  for (const pod of pods) {
    const p = pendingSwitchover(set, pod, now);
    if (p) out.push(p);
  }
  return out;
}

/**
 * switchoverStep returns what to do before updating or deleting `pod` at `now`: go, when it holds
 * no switchover role and carries no request, or has failed or exited (it serves nothing and can
 * answer nothing: its label is only what its last run wrote); remove the request, once the role has moved (the
 * answer: the pod is touched on the next pass); write the request, when it holds a switchover role
 * and none was asked; else wait (held), timed out or not.
 */
export function switchoverStep(set: StatefulSet, pod: Pod, now: Date): SwitchoverStep {
  const role = switchoverRole(set, pod);
  const at = requestOf(pod);
  const id = `StatefulSet ${set.metadata.namespace}/${set.metadata.name}`;
  if (isFailed(pod) || isSucceeded(pod)) return { go: true, actions: [] };
  if (role === undefined) {
    if (at === undefined) return { go: true, actions: [] };
    const moved = roleOf(pod, set.spec.roles!) ?? "no role";
    return { go: false, actions: [requestAction(pod, null, "SwitchoverDone", `${id}: pod ${nameOf(pod)} handed its role away (now ${moved}; requested at ${at}): it is updated next`)] };
  }
  const pending = pendingSwitchover(set, pod, now);
  if (!pending || Number.isNaN(timeMs(at))) {
    const time = wholeSeconds(now);
    const words = `pod ${nameOf(pod)} holds role ${role}: switchover requested at ${time}, waiting for its label ${set.spec.roles!.labelKey} to move (timeout ${set.spec.roles!.switchover!.timeoutSeconds}s)`;
    return { go: false, actions: [requestAction(pod, time, "SwitchoverRequested", `${id} asks pod ${nameOf(pod)} to hand role ${role} away before it is updated or deleted (annotation ${SWITCHOVER_REQUEST_ANNOTATION})`)], held: words };
  }
  const step: SwitchoverStep = { go: false, actions: [], held: pending.words };
  if (!pending.timedOut) step.requeueAfterMs = Math.max(1000, timeMs(at) + set.spec.roles!.switchover!.timeoutSeconds * 1000 - now.getTime());
  return step;
}

/** Why staleRequests withdraws a request on a pod the rollout still has to update: the rollout is paused. */
export const PAUSED_WITHDRAWAL = "the rollout is paused (spec.updateStrategy.rollingUpdate.paused): nothing updates the pod until it resumes, and Ordinal asks again then";
/** Why staleRequests withdraws a request on a pod nothing will touch: the rollout reverted to its revision, or updates no pod by itself (OnDelete). */
export const UNWANTED_WITHDRAWAL = "the pod is no longer to be updated or deleted";

/**
 * staleRequests returns the removals of requests no longer needed on pods no phase touched this
 * pass (`touched`, by name): the pod's role moved (answered: it may wait for its turn, and the
 * request must not stay), or `withdraw` gives a reason Ordinal will not touch the pod now (the
 * rollout is paused, reverted to its revision…) — a request left there would move leadership for
 * nothing, or time out while the person who paused the rollout waits.
 */
export function staleRequests(set: StatefulSet, pods: Iterable<Pod>, touched: ReadonlySet<string>, withdraw: (pod: Pod) => string | undefined): Action[] {
  const out: Action[] = [];
  const id = `StatefulSet ${set.metadata.namespace}/${set.metadata.name}`;
  for (const pod of pods) {
    const at = requestOf(pod);
    if (at === undefined || touched.has(nameOf(pod))) continue;
    if (switchoverRole(set, pod) === undefined) {
      const moved = set.spec.roles ? (roleOf(pod, set.spec.roles) ?? "no role") : "no roles declared";
      out.push(requestAction(pod, null, "SwitchoverDone", `${id}: pod ${nameOf(pod)} handed its role away (now ${moved}; requested at ${at})`));
      continue;
    }
    const why = withdraw(pod);
    if (why !== undefined) out.push(requestAction(pod, null, "SwitchoverWithdrawn", `${id} withdraws its switchover request on pod ${nameOf(pod)}: ${why}`));
  }
  return out;
}

/** Actions that write a pod named by `name`. */
const POD_WRITES = new Set<Action["type"]>(["deletePod", "repairPodLabels", "setPodCondition", "updatePodInPlace", "setLifecycleState", "clearInPlaceState", "setSwitchoverRequest", "adoptPod", "releasePod"]);

/** podsWritten returns the names of the pods `actions` write (staleRequests leaves them alone: one write per pod per pass). */
export function podsWritten(actions: readonly Action[]): Set<string> {
  const out = new Set<string>();
  for (const a of actions) if (POD_WRITES.has(a.type) && "name" in a) out.add(a.name);
  return out;
}
