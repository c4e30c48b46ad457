/**
 * What a command is and what it may use: the one module every command imports (never main.ts,
 * which imports the commands). Keep it free of heavy imports: a command loads the code that does
 * its work with import() inside run, so `ordinal --help` loads nothing else.
 */
import type { KubeClient } from "../kube/client.ts";
import type { OptionSpec, Parsed } from "./args.ts";
import type { CommandIO } from "./io.ts";

/** What a command may use: output, the environment, and a client made on demand. */
export interface CliContext {
  out(line: string): void;
  err(line: string): void;
  env: Record<string, string | undefined>;
  /** Files (token, register). */
  io: CommandIO;
  /** client returns the KubeClient of the configured cluster; throws UsageError when there is none. */
  client(): Promise<KubeClient>;
  /** The namespace from -n, else the kubeconfig context's, else "default". */
  namespace(p: Parsed): Promise<string>;
  /** Injectable clock and sleep (rollout status). */
  now(): Date;
  sleep(ms: number): Promise<void>;
}

export interface Command {
  name: string;
  /** What runs it, in usage and errors: "ordinal" unless said (`npm run` for gen). */
  program?: string;
  summary: string;
  /** The part after `ordinal NAME` in the usage line. */
  synopsis: string;
  /** More lines for `--help`, after the options. */
  details?: string;
  options: Record<string, OptionSpec>;
  positionals?: { min?: number; max?: number; names?: string };
  run(p: Parsed, ctx: CliContext): Promise<number>;
}
