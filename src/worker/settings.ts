/**
 * The Worker's reconciler settings (vars in wrangler.toml or .dev.vars), parsed as strictly as
 * flags by src/settings.ts: a refused value is an error naming the variable.
 */
import { setting } from "../settings.ts";

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

/** workerReconcileSettingsFrom returns the reconciler settings in `vars`, or throws a SettingError naming a refused variable. */
export function workerReconcileSettingsFrom(vars: Record<string, string | undefined>): WorkerReconcileSettings {
  return {
    shards: setting(vars, "RECONCILE_SHARDS"),
    intervalMs: setting(vars, "RECONCILE_INTERVAL_MS"),
    maxSubrequests: setting(vars, "MAX_SUBREQUESTS"),
    budgetMs: setting(vars, "RECONCILE_BUDGET_MS"),
  };
}
