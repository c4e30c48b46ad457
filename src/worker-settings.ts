/**
 * The Worker's reconciler settings (vars in wrangler.toml or .dev.vars), parsed as strictly as
 * flags: a value that is not a whole number in range is an error naming the variable, never a
 * silent NaN or default.
 */

export interface WorkerReconcileSettings {
  /** RECONCILE_SHARDS: Durable Objects the namespaces are hashed onto (one writer each). */
  shards: number;
  /** RECONCILE_INTERVAL_MS: between a shard's full (safety) passes. */
  intervalMs: number;
  /** MAX_SUBREQUESTS: apiserver requests one invocation (a wake's drain, an alarm) may make. */
  maxSubrequests: number;
  /** RECONCILE_BUDGET_MS: wall-clock budget of one invocation. */
  budgetMs: number;
}

/** wholeNumber returns the variable's value as an integer in [min, max], `fallback` when unset, or throws naming it. */
function wholeNumber(vars: Record<string, string | undefined>, name: string, min: number, max: number, fallback: number): number {
  const raw = vars[name]?.trim();
  if (!raw) return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= min && n <= max)) throw new Error(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(vars[name])}`);
  return n;
}

/** workerReconcileSettingsFrom returns the reconciler settings in `vars`, or throws naming a refused variable. */
export function workerReconcileSettingsFrom(vars: Record<string, string | undefined>): WorkerReconcileSettings {
  return {
    shards: wholeNumber(vars, "RECONCILE_SHARDS", 1, 256, 1),
    intervalMs: wholeNumber(vars, "RECONCILE_INTERVAL_MS", 100, 3_600_000, 10_000),
    maxSubrequests: wholeNumber(vars, "MAX_SUBREQUESTS", 30, 10_000_000, 900),
    budgetMs: wholeNumber(vars, "RECONCILE_BUDGET_MS", 1_000, 3_600_000, 45_000),
  };
}
