import { registerCommand } from "../admission/register-command.ts";
import { nodeIO } from "./io.ts";
import { clientFor, clusterConfigFromEnv } from "./kubeconfig.ts";

/** `ordinal register --url https://… [--ca-bundle FILE]`: applies the webhook configurations. */
export async function registerFromCli(args: string[]): Promise<number> {
  const cfg = clusterConfigFromEnv();
  console.log(await registerCommand(args, cfg ? clientFor(cfg) : undefined, nodeIO));
  return 0;
}
