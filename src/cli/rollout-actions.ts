/**
 * What `ordinal rollout …` does (src/cli/rollout.ts parses the flags and imports this when a verb
 * runs). Each writes only what its kubectl counterpart writes upstream: restart sets the
 * `kubectl.kubernetes.io/restartedAt` template annotation; undo puts back the template stored in
 * a ControllerRevision; pause/resume set `spec.updateStrategy.rollingUpdate.paused`. Status reads
 * `.status` (observedGeneration first) and the set's pods; it never writes.
 */
import { stringify } from "yaml";
import type { StatefulSet } from "../api/statefulset.ts";
import { followedRevision, rolesLine, rolledBackFrom, rolloutState } from "../core/rollout-state.ts";
import { revisionTemplate } from "../core/revisions.ts";
import { failedRevisions, templatePatch } from "../core/rollback.ts";
import { canonicalJson } from "../core/hash.ts";
import { updateStrategyOf } from "../core/update-strategy.ts";
import type { KubeClient } from "../kube/client.ts";
import { setting } from "../settings.ts";
import { R } from "../kube/resources.ts";
import { FAILED_REVISIONS_ANNOTATION, RESTARTED_AT_ANNOTATION } from "../objects/constants.ts";
import type { CliContext } from "./command.ts";
import { reconcilerSilence } from "./reconciler-alive.ts";
import { getSet, podsOf, revisionsOf, SET_RESOURCE } from "./sets.ts";

const CHANGE_CAUSE_ANNOTATION = "kubernetes.io/change-cause";

/**
 * followRollout prints the rollout's state each time it changes until it is done (0), blocked
 * (1: paused, a stuck condition, or a failing pod seen for longer than `stuckAfterMs`), rolled
 * back (1: the revision it followed exceeded its progress deadline and Ordinal put the last fully
 * available one back — kubectl's "exceeded its progress deadline" for a Deployment) or the
 * timeout passes (1). `timeoutMs` 0 waits for ever. While it waits it says, once, when no
 * reconciler has renewed its Lease recently (nothing will move then), and keeps waiting.
 */
export async function followRollout(client: KubeClient, ctx: CliContext, ns: string, name: string, o: { timeoutMs: number; intervalMs: number; stuckAfterMs: number; watch: boolean }): Promise<number> {
  const started = ctx.now().getTime();
  let last = "";
  let lastRoles: string | undefined;
  let lastOrder = "";
  let failingSince: number | undefined;
  let warned = false;
  let followed: string | undefined;
  let failedAtStart: string[] | undefined;
  for (;;) {
    const set = await getSet(client, ns, name);
    failedAtStart ??= failedRevisions(set);
    followed = followedRevision(set, followed, failedAtStart);
    const rollback = rolledBackFrom(set, followed);
    if (rollback) {
      // Not "complete": what completes now is the rollback, not the release this command waited for.
      ctx.err(
        `error: ${SET_RESOURCE} "${name}" exceeded its progress deadline: revision ${rollback.from} was rolled back to revision ${rollback.to} (rollbackOnFailure; recorded in ${FAILED_REVISIONS_ANNOTATION})`,
      );
      return 1;
    }
    const pods = await podsOf(client, set);
    const state = rolloutState(set, pods, ctx.now());
    // spec.roles: the pods by role and the switchover waited on, when they change (rollout-state.ts: rolesLine).
    const roles = rolesLine(set, pods, ctx.now());
    if (roles !== undefined && roles !== lastRoles) ctx.out((lastRoles = roles));
    if (state.message !== last) ctx.out((last = state.message));
    if (state.order && state.order !== lastOrder) ctx.out((lastOrder = state.order));
    if (state.done) return 0;
    if (!warned && o.watch) {
      const silence = await reconcilerSilence(client, setting(ctx.env, "LEASE_NAMESPACE"), ctx.now());
      if (silence) ctx.err(`warning: ${silence}`);
      warned = silence !== undefined;
    }
    const t = ctx.now().getTime();
    if (state.blocked === "failing") failingSince ??= t;
    else failingSince = undefined;
    if (state.blocked === "paused" || state.blocked === "stuck") return 1;
    if (failingSince !== undefined && t - failingSince >= o.stuckAfterMs) {
      ctx.err(`error: rollout of ${name} is failing: ${state.message}`);
      return 1;
    }
    if (!o.watch) return 1;
    if (o.timeoutMs > 0 && t - started >= o.timeoutMs) {
      ctx.err(`error: timed out waiting for the rollout of ${name} to finish (--timeout ${Math.round(o.timeoutMs / 1000)}s)`);
      return 1;
    }
    await ctx.sleep(o.intervalMs);
  }
}

/** setPaused writes `paused` (pause/resume), refusing like kubectl when it is already so. */
export async function setPaused(client: KubeClient, ctx: CliContext, ns: string, name: string, paused: boolean): Promise<number> {
  const set = await getSet(client, ns, name);
  const strategy = updateStrategyOf(set);
  if (strategy.type !== "RollingUpdate") throw new Error(`${SET_RESOURCE} "${name}" uses ${strategy.type}: only RollingUpdate rollouts can be paused`);
  if (strategy.paused === paused) {
    ctx.err(`error: ${SET_RESOURCE} "${name}" is ${paused ? "already paused" : "not paused"}`);
    return 1;
  }
  await client.patch(R.statefulSets, ns, name, { spec: { updateStrategy: { rollingUpdate: { paused } } } }, "merge");
  ctx.out(`${SET_RESOURCE}/${name} ${paused ? "paused" : "resumed"}`);
  return 0;
}

/**
 * undo puts back the template of revision `toRevision` (0: the one before the latest), as
 * kubectl's statefulset rollbacker. The patch is guarded by the set's resourceVersion; when the
 * set changed meanwhile (a status write by the reconciler bumps it too) it reads and tries again.
 */
export async function undo(client: KubeClient, ctx: CliContext, ns: string, name: string, toRevision: number, dryRun: DryRun): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const set = await getSet(client, ns, name);
    try {
      return await undoOnce(client, ctx, set, toRevision, dryRun);
    } catch (e) {
      const now = attempt < UNDO_ATTEMPTS ? await getSet(client, ns, name) : undefined;
      if (!now || now.metadata.resourceVersion === set.metadata.resourceVersion) throw e;
    }
  }
}

const UNDO_ATTEMPTS = 5;

/** kubectl's --dry-run values: none writes; client writes nothing; server sends the patch with dryRun=All. */
export type DryRun = "none" | "client" | "server";

/** undoOnce returns 0 once the set's template is the target revision's (patched, or already so). */
async function undoOnce(client: KubeClient, ctx: CliContext, set: StatefulSet, toRevision: number, dryRun: DryRun): Promise<number> {
  const ns = set.metadata.namespace ?? "";
  const name = set.metadata.name ?? "";
  const history = await revisionsOf(client, set);
  let target;
  if (toRevision === 0) {
    if (history.length <= 1) throw new Error(`no rollout history found for ${SET_RESOURCE} "${name}" to roll back to`);
    target = history[history.length - 2];
  } else {
    target = history.find((r) => r.revision === toRevision);
    if (!target) throw new Error(`unable to find specified revision ${toRevision} in history (revisions: ${history.map((r) => r.revision).join(", ") || "none"})`);
  }
  const template = revisionTemplate(target);
  if (canonicalJson(template) === canonicalJson(set.spec.template)) {
    ctx.out(`${SET_RESOURCE}/${name} skipped rollback (current template already matches revision ${target.revision})`);
    return 0;
  }
  if (dryRun === "client") {
    // As kubectl: the template it would write, and no request.
    ctx.out(`${SET_RESOURCE}/${name} rolled back to revision ${target.revision} (dry run)\n${stringify(template).trimEnd()}`);
    return 0;
  }
  // JSON Patch: replace the whole template (a merge patch would keep keys the revision lacks), guarded by resourceVersion.
  await client.patch(R.statefulSets, ns, name, templatePatch(set, template), "json", undefined, dryRun === "server" ? { dryRun: true } : undefined);
  ctx.out(dryRun === "server" ? `${SET_RESOURCE}/${name} rolled back to revision ${target.revision} (server dry run)\n${stringify(template).trimEnd()}` : `${SET_RESOURCE}/${name} rolled back`);
  return 0;
}

/** history prints REVISION/CHANGE-CAUSE like kubectl, or one revision's template. */
export async function history(client: KubeClient, ctx: CliContext, ns: string, name: string, revision: number | undefined): Promise<number> {
  const set = await getSet(client, ns, name);
  const revs = await revisionsOf(client, set);
  if (revision !== undefined) {
    const r = revs.find((x) => x.revision === revision);
    if (!r) throw new Error(`unable to find the specified revision ${revision}`);
    ctx.out(`${SET_RESOURCE}/${name} with revision #${revision}\nPod Template:\n${stringify(revisionTemplate(r)).replace(/^/gm, "  ").trimEnd()}`);
    return 0;
  }
  ctx.out(`${SET_RESOURCE}/${name}`);
  ctx.out("REVISION  CHANGE-CAUSE");
  for (const r of revs) ctx.out(`${String(r.revision).padEnd(10)}${r.metadata?.annotations?.[CHANGE_CAUSE_ANNOTATION] ?? "<none>"}`);
  return 0;
}

/** restart sets the restartedAt template annotation to now, exactly what `kubectl rollout restart` writes. */
export async function restart(client: KubeClient, ctx: CliContext, ns: string, name: string): Promise<number> {
  const set = await getSet(client, ns, name);
  if (updateStrategyOf(set).type === "OnDelete") throw new Error(`can't restart ${SET_RESOURCE}/${name}: the OnDelete update strategy does not restart pods (delete them)`);
  const now = ctx.now().toISOString().replace(/\.\d{3}Z$/, "Z");
  await client.patch(R.statefulSets, ns, name, { spec: { template: { metadata: { annotations: { [RESTARTED_AT_ANNOTATION]: now } } } } }, "merge");
  ctx.out(`${SET_RESOURCE}/${name} restarted`);
  return 0;
}
