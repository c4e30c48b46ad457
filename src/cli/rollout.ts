/**
 * `ordinal rollout status|history|undo|pause|resume|restart`: kubectl's rollout verbs for Ordinal
 * sets: their flags here, what they do in rollout-actions.ts, imported when a verb runs (so
 * `ordinal --help` does not load the YAML printer or the rollout state).
 */
import type { KubeClient } from "../kube/client.ts";
import { parseDuration, UsageError, type OptionSpec } from "./args.ts";
import type { CliContext, Command } from "./command.ts";
import type { DryRun } from "./rollout-actions.ts";
import { setNameArg } from "./sets.ts";

/** actions loads what the verbs do. */
const actions = () => import("./rollout-actions.ts");

/** dryRunOf returns the --dry-run value, or throws a UsageError for anything but kubectl's three. */
function dryRunOf(v: string | boolean | undefined): DryRun {
  if (v === undefined) return "none";
  if (v === "none" || v === "client" || v === "server") return v;
  throw new UsageError(`--dry-run must be one of none, client, server, got ${JSON.stringify(v)}`);
}

const positiveInt = (v: unknown, flag: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} must be a whole number ≥ 0, got ${JSON.stringify(v)}`);
  return n;
};

/** rolloutCmds returns the `rollout …` commands (namespace option shared with the other set commands). */
export function rolloutCmds(ns: Record<string, OptionSpec>): Command[] {
  const one = { min: 1, max: 1, names: "NAME (e.g. web or osts/web)" };
  const simple = (verb: string, summary: string, act: (c: KubeClient, ctx: CliContext, ns: string, name: string) => Promise<number>): Command => ({
    name: `rollout ${verb}`,
    summary,
    synopsis: "NAME [-n NS]",
    options: ns,
    positionals: one,
    run: async (p, ctx) => act(await ctx.client(), ctx, await ctx.namespace(p), setNameArg(p.positionals[0])),
  });
  return [
    {
      name: "rollout status",
      summary: "follow a rollout live: exit 0 when complete, 1 when paused, stuck, failing, rolled back or timed out",
      synopsis: "NAME [-n NS] [--timeout 5m] [--stuck-after 60s] [--no-watch]",
      options: {
        ...ns,
        timeout: { type: "string", value: "DURATION", help: "give up after this long (default 0: wait for ever)" },
        "stuck-after": { type: "string", value: "DURATION", help: "a pod failing (bad image, crash loop) this long fails the rollout (default 60s)" },
        "no-watch": { type: "boolean", help: "print the state once; exit 0 only when complete" },
        interval: { type: "string", value: "DURATION", help: "poll interval (default 1s)" },
      },
      positionals: one,
      run: async (p, ctx) =>
        (await actions()).followRollout(await ctx.client(), ctx, await ctx.namespace(p), setNameArg(p.positionals[0]), {
          timeoutMs: p.values.timeout ? parseDuration(p.values.timeout as string) : 0,
          stuckAfterMs: p.values["stuck-after"] ? parseDuration(p.values["stuck-after"] as string, "--stuck-after") : 60_000,
          intervalMs: p.values.interval ? parseDuration(p.values.interval as string, "--interval") : 1000,
          watch: p.values["no-watch"] !== true,
        }),
    },
    {
      name: "rollout history",
      summary: "list the set's revisions (ControllerRevisions), or show one with --revision",
      synopsis: "NAME [-n NS] [--revision N]",
      options: { ...ns, revision: { type: "string", value: "N", help: "print this revision's pod template" } },
      positionals: one,
      run: async (p, ctx) =>
        (await actions()).history(await ctx.client(), ctx, await ctx.namespace(p), setNameArg(p.positionals[0]), p.values.revision === undefined ? undefined : positiveInt(p.values.revision, "--revision")),
    },
    {
      name: "rollout undo",
      summary: "put back the pod template of the previous revision (or --to-revision N)",
      synopsis: "NAME [-n NS] [--to-revision N] [--dry-run=none|client|server]",
      options: {
        ...ns,
        "to-revision": { type: "string", value: "N", help: "the revision to roll back to (default: the previous one)" },
        "dry-run": { type: "string", value: "none|client|server", help: "client: print the template it would write; server: the apiserver checks the write, nothing is stored" },
      },
      positionals: one,
      run: async (p, ctx) => {
        const dryRun = dryRunOf(p.values["dry-run"]);
        const toRevision = p.values["to-revision"] === undefined ? 0 : positiveInt(p.values["to-revision"], "--to-revision");
        return (await actions()).undo(await ctx.client(), ctx, await ctx.namespace(p), setNameArg(p.positionals[0]), toRevision, dryRun);
      },
    },
    simple("pause", "pause the rollout (spec.updateStrategy.rollingUpdate.paused=true)", async (c, ctx, n, name) => (await actions()).setPaused(c, ctx, n, name, true)),
    simple("resume", "resume a paused rollout", async (c, ctx, n, name) => (await actions()).setPaused(c, ctx, n, name, false)),
    simple("restart", "restart every pod by a rollout (template annotation kubectl.kubernetes.io/restartedAt)", async (c, ctx, n, name) => (await actions()).restart(c, ctx, n, name)),
  ];
}
