import type { KubeClient } from "../kube/client.ts";
import { newHolderIdentity } from "../lease/identity.ts";
import { jsonLogger, type Logger } from "../log/log.ts";
import { buildReconciler } from "../reconciler-stack.ts";
import { runReconcile } from "../schedule/loop.ts";
import { setting } from "../settings.ts";

export interface ReconcileFlags {
  untilIdle?: boolean;
  namespace?: string;
  leaseNamespace?: string;
  budgetMs?: number;
  out?: (line: string) => void;
  log?: Logger;
}

/**
 * reconcileCommand is `ordinal reconcile --once`: one invocation against the cluster (one pass,
 * or with `untilIdle` passes until nothing is pending, within the budget). Prints each action and
 * each error and a summary line; returns the counts (the CLI exits 1 when `errors` > 0).
 */
export async function reconcileCommand(client: KubeClient, f: ReconcileFlags = {}): Promise<{ acquired: boolean; actions: number; errors: number }> {
  const out = f.out ?? ((l: string) => console.log(l));
  const env = process.env;
  const log = f.log ?? jsonLogger((l) => process.stderr.write(l + "\n"), {}, setting(env, "LOG_LEVEL") ?? "info");
  // The stack every runtime builds (its actions are printed here, so its client is not wrapped again; no registration repair).
  const stack = buildReconciler(client, { log, instrumented: true });
  const started = Date.now();
  const result = await runReconcile(stack.client, {
    log,
    holder: newHolderIdentity("ordinal-cli"),
    leaseNamespace: f.leaseNamespace ?? setting(env, "LEASE_NAMESPACE"),
    budgetMs: f.budgetMs ?? 50_000,
    maxPasses: f.untilIdle ? undefined : 1,
    namespace: f.namespace,
  });
  stack.logInvocation(result.passes, (Date.now() - started) / 1000, { acquired: result.acquired });
  const actions = result.passes.flatMap((p) => p.sets.flatMap((s) => s.actions.map((a) => `${s.set}: ${a}`)));
  for (const a of actions) out(a);
  const errors = result.passes.flatMap((p) => p.sets.filter((s) => s.error).map((s) => `${s.set}: ${s.error}`));
  for (const e of errors) out(`error ${e}`);
  out(
    result.acquired
      ? `reconciled: ${result.passes.length} pass(es), ${actions.length} action(s), ${errors.length} error(s), pending=${result.passes.at(-1)?.pending ?? false}`
      : result.yieldedTo
        ? `reconciled: nothing done: reconciler Leases of another shard count are live (${result.yieldedTo.join(", ")}); stop that reconciler first (kubectl -n <namespace> scale deploy/ordinal --replicas=0)`
        : "reconciled: lease held by another reconciler; nothing done",
  );
  return { acquired: result.acquired, actions: actions.length, errors: errors.length };
}
