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
  /** logInvocation records an invocation and logs it with the counters so far (`reconcile invocation done`: the Worker's and the CLI's metrics). */
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
}

/** buildReconciler returns the stack of a runtime's reconciler over the apiserver `client`. */
export function buildReconciler(client: KubeClient, o: StackOptions): ReconcilerStack {
  const metrics = o.metrics ?? new Metrics();
  const counted = o.instrumented ? client : instrumentClient(client, metrics, o.log);
  const record = (passes: PassResult[], seconds: number, acquired = true) => recordRun(metrics, { acquired, passes }, seconds);
  return {
    client: counted,
    metrics,
    beforeFullPass: o.settings && registrationRepair(counted, o.settings, { log: o.log }),
    record,
    logInvocation(passes, seconds, fields = {}) {
      record(passes, seconds);
      const actions = passes.reduce((n, p) => n + p.actionCount, 0);
      o.log.info("reconcile invocation done", { ...fields, passes: passes.length, actions, seconds: Math.round(seconds * 1000) / 1000, metrics: metrics.snapshot() });
    },
  };
}
