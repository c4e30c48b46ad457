/**
 * src/cli owns the `ordinal` command line: one table of commands, each parsed by the one strict
 * parser (args.ts), each with `--help`. Commands are thin: they read flags, get a KubeClient and
 * call code that lives elsewhere (src/node for serve, src/reconciler, src/auth for token,
 * src/webhook-config for register) or in their own small module here (rollout, get, set image,
 * manifests).
 *
 * Exit codes: 0 done; 1 the command ran and failed (apiserver error, rollout stuck or timed out,
 * reconcile errors); 2 a usage error (unknown option, missing argument, no cluster configured, an
 * environment setting that src/settings.ts refuses).
 */
import type { KubeClient } from "../kube/client.ts";
import { closest, parseCommandLine, UsageError, type OptionSpec } from "./args.ts";
import type { CliContext, Command } from "./command.ts";
import { nodeIO } from "./io.ts";
import { SettingError } from "../settings.ts";

const NS: Record<string, OptionSpec> = { namespace: { type: "string", short: "n", value: "NS", help: "namespace (default: the kubeconfig context's, else default)" } };

/** commands returns the command table (loaded lazily so `ordinal --help` stays fast). */
async function commands(): Promise<Command[]> {
  const { serveCmd, reconcileCmd } = await import("./runtime-commands.ts");
  const { tokenCmd } = await import("./token.ts");
  const { registerCmd } = await import("./register.ts");
  const rollout = await import("./rollout.ts");
  const { getCmd } = await import("./get.ts");
  const { setImageCmd } = await import("./set-image.ts");
  const { manifestsCmd } = await import("./manifests.ts");
  const { localCmd } = await import("./local.ts");
  return [serveCmd, localCmd, reconcileCmd, getCmd, ...rollout.rolloutCmds(NS), setImageCmd(NS), manifestsCmd, registerCmd, tokenCmd];
}

/** usageOf returns the help text of one command. */
function usageOf(c: Command): string {
  const lines = [`usage: ${c.program ?? "ordinal"} ${c.name}${c.synopsis ? ` ${c.synopsis}` : ""}`, `  ${c.summary}`];
  const opts = Object.entries(c.options);
  if (opts.length) lines.push("options:");
  for (const [k, o] of opts) {
    const flag = `${o.short ? `-${o.short}, ` : "    "}--${k}${o.type === "string" ? ` ${o.value ?? "VALUE"}` : ""}`;
    lines.push(`  ${flag.padEnd(34)}${o.help ?? ""}`);
  }
  lines.push(`  ${"    --help".padEnd(34)}this text`);
  if (c.details) lines.push(...c.details.split("\n").map((l) => `  ${l}`));
  return lines.join("\n");
}

function overview(cmds: Command[]): string {
  return [
    "usage: ordinal <command> [options]   (ordinal <command> --help for details)",
    ...cmds.map((c) => `  ${c.name.padEnd(18)}${c.summary}`),
    "Cluster: KUBE_API_URL + KUBE_TOKEN [+ KUBE_CA_FILE], or KUBECONFIG, or the pod's ServiceAccount, or ~/.kube/config.",
  ].join("\n");
}

/** nodeContext returns the context of a real process (stdout/stderr, process.env, the configured cluster). */
export function nodeContext(): CliContext {
  let cached: Promise<{ client: KubeClient; namespace?: string }> | undefined;
  const cluster = () =>
    (cached ??= (async () => {
      const { clientFor, clusterConfigFromEnv } = await import("../node/kubeconfig.ts");
      const cfg = clusterConfigFromEnv();
      if (!cfg) throw new UsageError("no cluster configured: set KUBECONFIG, or KUBE_API_URL and KUBE_TOKEN (see ordinal --help)");
      return { client: clientFor(cfg), namespace: cfg.namespace };
    })());
  return {
    out: (l) => console.log(l),
    err: (l) => console.error(l),
    env: process.env,
    io: nodeIO,
    client: async () => (await cluster()).client,
    namespace: async (p) => (p.values.namespace as string | undefined) ?? (await cluster()).namespace ?? "default",
    now: () => new Date(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  };
}

/** main runs `ordinal ARGV…` and returns the exit code. */
export async function main(argv: string[], ctx: CliContext = nodeContext()): Promise<number> {
  const cmds = await commands();
  const [first, second] = argv;
  if (!first || first === "--help" || first === "-h" || first === "help") {
    (first ? ctx.out : ctx.err)(overview(cmds));
    return first ? 0 : 2;
  }
  // Two-word commands (rollout status, set image) first, then one-word ones.
  const cmd = cmds.find((c) => c.name === `${first} ${second}`) ?? cmds.find((c) => c.name === first);
  if (!cmd) {
    const group = cmds.filter((c) => c.name.startsWith(`${first} `));
    if (group.length) {
      const asked = second === "--help" || second === "-h";
      const text = [`usage: ordinal ${first} <${group.map((c) => c.name.split(" ")[1]).join("|")}> …`, ...group.map((c) => `  ${c.name.padEnd(18)}${c.summary}`)].join("\n");
      const near = second === undefined ? undefined : closest(second, group.map((c) => c.name.split(" ")[1]));
      if (asked) ctx.out(text);
      else ctx.err(second === undefined ? text : `ordinal ${first}: unknown command "${second}"${near ? `; did you mean "${first} ${near}"?` : ""}\n${text}`);
      return asked ? 0 : 2;
    }
    const near = closest(first, [...new Set(cmds.map((c) => c.name.split(" ")[0]))]);
    ctx.err(`ordinal: unknown command "${first}"${near ? `; did you mean "${near}"?` : ""}\n${overview(cmds)}`);
    return 2;
  }
  return runCommand(cmd, argv.slice(cmd.name.split(" ").length), ctx);
}

/**
 * runCommand runs one command on the arguments after its name and returns the exit code: its
 * usage for --help (0), a usage error with the usage (2), a failure (1) or the command's own.
 */
export async function runCommand(cmd: Command, rest: string[], ctx: CliContext): Promise<number> {
  if (rest.includes("--help") || rest.includes("-h")) {
    ctx.out(usageOf(cmd));
    return 0;
  }
  try {
    return await cmd.run(parseCommandLine(rest, cmd.options, cmd.positionals), ctx);
  } catch (e) {
    if (e instanceof UsageError) {
      ctx.err(`${cmd.program ?? "ordinal"} ${cmd.name}: ${e.message}\n${usageOf(cmd)}`);
      return 2;
    }
    ctx.err(`${cmd.program ?? "ordinal"} ${cmd.name}: ${e instanceof Error ? e.message : String(e)}`);
    // A setting the environment gets wrong is a usage error too, like a wrong flag.
    if (e instanceof SettingError) return 2;
    return 1;
  }
}
