import type { StatefulSet } from "../api/statefulset.ts";
import { updateStrategyOf } from "./update-strategy.ts";

/**
 * Where a rollout stands, as the status conditions (conditions.ts) and the progress deadline
 * (progress-deadline.ts) both read it: whether it is complete, and what the deadline says.
 */

/** What the deadline says about a set's rollout this pass. */
export interface ProgressFacts {
  /** When the rollout last made progress (RFC 3339, whole seconds): Progressing's lastUpdateTime. */
  lastUpdateTime: string;
  /** Set once the deadline has passed: what holds the rollout (blocker.ts; for the condition and event). */
  exceeded?: string;
  /** Milliseconds until the deadline falls due, while it has not (the plan's requeueAfter). */
  requeueAfterMs?: number;
}

/**
 * isRolloutComplete is true when every pod the strategy updates by itself is at the update
 * revision and all replicas exist and are Ready (with a partition, the ordinals below it are not
 * the rollout's to update).
 */
export function isRolloutComplete(set: StatefulSet, c: { replicas?: number; readyReplicas?: number; updatedReplicas?: number }): boolean {
  const toUpdate = Math.max(0, set.spec.replicas - updateStrategyOf(set).partition);
  return (c.updatedReplicas ?? 0) >= toUpdate && (c.readyReplicas ?? 0) === set.spec.replicas && (c.replicas ?? 0) === set.spec.replicas;
}
