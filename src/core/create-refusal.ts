import type { Condition } from "../api/statefulset.ts";
import { REPLICA_FAILURE_CONDITION } from "../objects/constants.ts";
import { timeMs, wholeSeconds } from "./inplace-state.ts";

/**
 * A refused create remembered in the cluster: the executor turns a pod or claim create the
 * apiserver refused (a quota, a forbidden write, a webhook's deny, a webhook it could not call)
 * into the set's ReplicaFailure condition (reason FailedCreate, Deployment's), written with the
 * status of the same pass. The next pass reads it back to name the real blocker (blocker.ts) and
 * to judge the progress deadline; it is removed once the pod exists or is no longer wanted.
 */

/** What the executor reports of a refused create: the pod it was for, the claim (when a claim's create was refused) and the apiserver's message. */
export interface CreateRefusal {
  pod: string;
  claim?: string;
  message: string;
}

/** A refusal read from the set's status: the pod, the words to show, and when it was last refused (epoch ms; NaN when not said). */
export interface RecordedRefusal {
  pod: string;
  words: string;
  lastMs: number;
}

const FAILED_CREATE_REASON = "FailedCreate";
const WORDS = /^create of (?:claim \S+ for )?pod (\S+) refused: /;

/** refusalWords returns how a refusal is said: "create of pod web-4 refused: <the apiserver's message>" (bounded). */
const refusalWords = (r: CreateRefusal): string => `create of ${r.claim ? `claim ${r.claim} for ` : ""}pod ${r.pod} refused: ${r.message}`.slice(0, 1024);

/** recordedRefusal returns the refusal the set's conditions remember, undefined when none (or one that does not read as ours). */
export function recordedRefusal(conditions: readonly Condition[] | undefined): RecordedRefusal | undefined {
  const c = conditions?.find((x) => x.type === REPLICA_FAILURE_CONDITION);
  const pod = c?.status === "True" ? WORDS.exec(c.message ?? "")?.[1] : undefined;
  if (!c || !pod) return undefined;
  return { pod, words: c.message ?? "", lastMs: timeMs(c.lastUpdateTime ?? c.lastTransitionTime) };
}

/**
 * withRefusal returns the conditions after a pass: with `refusal` the ReplicaFailure condition
 * says it (its lastTransitionTime kept while it stays True: the first refusal; lastUpdateTime
 * `now`: the latest), else without it once a pod it named was created (`created`); unchanged
 * otherwise.
 */
export function withRefusal(conditions: readonly Condition[], refusal: CreateRefusal | undefined, created: readonly string[], now: Date): Condition[] {
  const prev = conditions.find((c) => c.type === REPLICA_FAILURE_CONDITION);
  if (!refusal) {
    const named = recordedRefusal(conditions)?.pod;
    return prev && (named === undefined || created.includes(named)) ? conditions.filter((c) => c !== prev) : [...conditions];
  }
  const ts = wholeSeconds(now);
  const next: Condition = {
    type: REPLICA_FAILURE_CONDITION,
    status: "True",
    lastTransitionTime: prev?.status === "True" && prev.lastTransitionTime ? prev.lastTransitionTime : ts,
    reason: FAILED_CREATE_REASON,
    message: refusalWords(refusal),
    lastUpdateTime: ts,
  };
  return prev ? conditions.map((c) => (c === prev ? next : c)) : [...conditions, next];
}

/** withoutRefusal returns the conditions without a ReplicaFailure whose pod exists or is not a replica any more (`stillMissing` false). */
export function withoutRefusal(conditions: Condition[], stillMissing: (pod: string) => boolean): Condition[] {
  const r = recordedRefusal(conditions);
  const prev = conditions.find((c) => c.type === REPLICA_FAILURE_CONDITION);
  if (!prev || (r && stillMissing(r.pod))) return conditions;
  return conditions.filter((c) => c !== prev);
}
