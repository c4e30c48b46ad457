import { randomUUID } from "node:crypto";
import type { KubeClient } from "../kube/client.ts";
import { jsonLogger, type Logger } from "../reconciler/log.ts";
import { runReconcile, type RunResult } from "../reconciler/loop.ts";
import { settingsFrom } from "../runtime-config.ts";

/**
 * `ordinal reconcile --once`: one invocation against the configured cluster (one pass, or with
 * `--until-idle` passes until nothing is pending, within `--budget-ms`). Prints what it did as
 * JSON lines and a summary line; exits 0 unless the apiserver could not be reached.
 */
export async function reconcileCommand(client: KubeClient, args: string[], log: Logger = jsonLogger((l) => process.stderr.write(l + "\n"))): Promise<RunResult> {
  const flag = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const untilIdle = args.includes("--until-idle");
  const result = await runReconcile(client, {
    log,
    holder: `ordinal-cli-${randomUUID().slice(0, 8)}`,
    leaseNamespace: flag("--lease-namespace") ?? settingsFrom(process.env).leaseNamespace,
    budgetMs: Number(flag("--budget-ms") ?? 50_000),
    maxPasses: untilIdle ? undefined : 1,
    namespace: flag("--namespace"),
  });
  const actions = result.passes.flatMap((p) => p.sets.flatMap((s) => s.actions.map((a) => `${s.set}: ${a}`)));
  for (const a of actions) console.log(a);
  const errors = result.passes.flatMap((p) => p.sets.filter((s) => s.error).map((s) => `${s.set}: ${s.error}`));
  for (const e of errors) console.log(`error ${e}`);
  console.log(
    result.acquired
      ? `reconciled: ${result.passes.length} pass(es), ${actions.length} action(s), ${errors.length} error(s), pending=${result.passes.at(-1)?.pending ?? false}`
      : "reconciled: lease held by another reconciler; nothing done",
  );
  return result;
}
