/**
 * The reconciler stack, built in one place for every runtime that reconciles: `ordinal serve`
 * (src/node/reconciler.ts, on its reconcile thread or not), the Worker's shard object
 * (src/worker/build-shard-runner.ts) and `ordinal reconcile` (src/cli/reconcile.ts). Each gets the
 * same pieces around its own loop (Node's scheduler, the Worker's shard runner, the CLI's
 * invocation: src/schedule): the apiserver client its passes use, every request counted in the
 * metrics and every write logged; registration repair before the full passes (of shard 0); and the
 * counters of every pass (Node serves them at GET /metrics, the Worker and the CLI log them as
 * `reconcile invocation done`).
 */
import type { KubeClient } from "./kube/client.ts";
import type { Logger } from "./log/log.ts";
import { instrumentClient } from "./metrics/instrument.ts";
import { Metrics, recordRun } from "./metrics/metrics.ts";
import type { PassResult } from "./reconciler/pass.ts";
import { registrationRepair, type OrdinalSettings } from "./runtime-config.ts";

export interface ReconcilerStack {
  /** What the passes read and write through: counted in `metrics`, writes logged. */
  client: KubeClient;
  metrics: Metrics;
  /** Registration repair (webhook configurations, caBundle), before each full pass of shard 0; errors are logged. */
  beforeFullPass?: () => Promise<void>;
  /** record counts an invocation (a Node pass, a Worker drain, a CLI run) with its passes and wall seconds. */
  record(passes: PassResult[], seconds: number, acquired?: boolean): void;
  /**
   * logInvocation records an invocation and logs it with the counters so far (`reconcile invocation
   * done`: the Worker's and the CLI's metrics): at info, or at debug within `invocationInfoEveryMs`
   * of the last info line.
   */
  logInvocation(passes: PassResult[], seconds: number, fields?: Record<string, unknown>): void;
}

export interface StackOptions {
  /** The runtime's settings: registration repair follows them (none: no repair, `ordinal reconcile`). */
  settings?: OrdinalSettings;
  log: Logger;
  /** The registry to count in (`ordinal serve` shares its own with the webhooks); default a new one. */
  metrics?: Metrics;
  /** The client is counted already (`ordinal serve` counts its webhooks' reads with the same client): do not wrap it again. */
  instrumented?: boolean;
  /**
   * An invocation's line is info at most once this often (ms), debug in between: the Worker, whose
   * every wake's drain is an invocation (its RECONCILE_INTERVAL_MS: the counters at info once per full
   * pass, each drain at LOG_LEVEL=debug). Default: every line at info (`ordinal reconcile`: one a run).
   */
  invocationInfoEveryMs?: number;
  /** The clock of invocationInfoEveryMs (epoch ms; default Date.now). */
  now?: () => number;
}

/** buildReconciler returns the stack of a runtime's reconciler over the apiserver `client`. */
export function buildReconciler(client: KubeClient, o: StackOptions): ReconcilerStack {
  const metrics = o.metrics ?? new Metrics();
  const counted = o.instrumented ? client : instrumentClient(client, metrics, o.log);
  const record = (passes: PassResult[], seconds: number, acquired = true) => recordRun(metrics, { acquired, passes }, seconds);
  const now = o.now ?? Date.now;
  let lastInfoAt: number | undefined;
  /** levelNow returns the level of an invocation's line now, noting an info line. */
  const levelNow = (): "info" | "debug" => {
    const at = now();
    if (o.invocationInfoEveryMs !== undefined && lastInfoAt !== undefined && at - lastInfoAt < o.invocationInfoEveryMs) return "debug";
    lastInfoAt = at;
    return "info";
  };
  return {
    client: counted,
    metrics,
    beforeFullPass: o.settings && registrationRepair(counted, o.settings, { log: o.log }),
    record,
    logInvocation(passes, seconds, fields = {}) {
      record(passes, seconds);
      const actions = passes.reduce((n, p) => n + p.actionCount, 0);
      const line = levelNow() === "info" ? o.log.info : o.log.debug;
      line?.call(o.log, "reconcile invocation done", { ...fields, passes: passes.length, actions, seconds: Math.round(seconds * 1000) / 1000, metrics: metrics.snapshot() });
    },
  };
}
