import type { PriorityStrategy, StatefulSet } from "../api/statefulset.ts";

/**
 * The one place that reads spec.updateStrategy: every phase, the status conditions and
 * `ordinal rollout status` take these values instead of walking the optional fields themselves.
 */

/** The update strategy of a set, every default applied. */
export interface UpdateStrategy {
  type: "RollingUpdate" | "OnDelete";
  /** Replicas whose offset is below this keep the current revision (0 for OnDelete). */
  partition: number;
  /** RollingUpdate with paused: no pod moves to a new revision (creation and scaling go on). */
  paused: boolean;
  /** True when a rolling update may move pods now: RollingUpdate and not paused. */
  rolling: boolean;
  /** maxUnavailable as a pod count (scaledMaxUnavailable). */
  maxUnavailable: number;
  podUpdatePolicy: "ReCreate" | "InPlaceIfPossible" | "InPlaceOnly";
  /** inPlaceUpdateStrategy.gracePeriodSeconds (0 when unset). */
  gracePeriodSeconds: number;
  /** rollbackOnFailure: a rollout past spec.progressDeadlineSeconds is rolled back (RollingUpdate only). */
  rollbackOnFailure: boolean;
  /** unorderedUpdate.priorityStrategy: which pods a rollout moves first (update-order.ts); undefined: none. */
  priority?: PriorityStrategy;
  /** imagePrewarm.parallelism, undefined when the set does not pre-warm (or is OnDelete). */
  prewarmParallelism?: number;
}

/**
 * scaledMaxUnavailable returns an int-or-percent maxUnavailable as a pod count: an int as is, a
 * percentage of `replicas` rounded up (GetScaledValueFromIntOrPercent with roundUp), and never
 * below 1 (upstream: a rollout must be able to make progress). Default 1.
 */
function scaledMaxUnavailable(mu: number | string | undefined, replicas: number): number {
  let n = 1;
  if (typeof mu === "number") n = mu;
  else if (typeof mu === "string") {
    const m = /^(\d+)%$/.exec(mu);
    // Not a percentage: the whole string as a number (Atoi), else the default.
    n = m ? Math.ceil((Number(m[1]) * replicas) / 100) : Number(mu) || 1;
  }
  return Math.max(1, n);
}

/** updateStrategyOf returns the set's update strategy with every default applied. */
export function updateStrategyOf(set: StatefulSet): UpdateStrategy {
  const { type, rollingUpdate: ru } = set.spec.updateStrategy;
  const rollingType = type === "RollingUpdate";
  const paused = rollingType && !!ru?.paused;
  const s: UpdateStrategy = {
    type,
    partition: rollingType ? (ru?.partition ?? 0) : 0,
    paused,
    rolling: rollingType && !paused,
    maxUnavailable: scaledMaxUnavailable(ru?.maxUnavailable, set.spec.replicas),
    podUpdatePolicy: ru?.podUpdatePolicy ?? "ReCreate",
    gracePeriodSeconds: ru?.inPlaceUpdateStrategy?.gracePeriodSeconds ?? 0,
    rollbackOnFailure: rollingType && ru?.rollbackOnFailure === true,
  };
  const priority = ru?.unorderedUpdate?.priorityStrategy;
  if (rollingType && priority) s.priority = priority;
  if (rollingType && ru?.imagePrewarm) s.prewarmParallelism = ru.imagePrewarm.parallelism;
  return s;
}

/**
 * scaleMaxUnavailableOf returns spec.scaleStrategy.maxUnavailable as a pod count (rounded up, at
 * least 1), or undefined when the set does not limit its scale-up (unset, or OrderedReady, which
 * creates one pod at a time anyway).
 */
export function scaleMaxUnavailableOf(set: StatefulSet): number | undefined {
  const mu = set.spec.scaleStrategy?.maxUnavailable;
  if (mu === undefined || set.spec.podManagementPolicy !== "Parallel") return undefined;
  return scaledMaxUnavailable(mu, set.spec.replicas);
}
