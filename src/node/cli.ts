import { clientFor, clusterConfigFromEnv } from "./kubeconfig.ts";
import { reconcileCommand } from "./reconcile-command.ts";

/**
 * The `ordinal` CLI: `serve`, `reconcile --once`, `token`, `register`. Returns the exit code.
 */
const USAGE = `usage: ordinal <command>
  serve                         webhooks + reconcile loop (embedded simulated cluster when none is configured)
  reconcile --once [--until-idle] [--namespace NS]
                                one invocation against KUBECONFIG or KUBE_API_URL + KUBE_TOKEN
  token ...                     issue the apiserver's admission JWT (ordinal token --help)
  register --url https://... [--ca-bundle FILE]
                                apply the webhook configurations`;

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...args] = argv;
  try {
    switch (cmd) {
      case "reconcile": {
        const cfg = clusterConfigFromEnv();
        if (!cfg) {
          console.error("no cluster configured: set KUBECONFIG, or KUBE_API_URL and KUBE_TOKEN");
          return 2;
        }
        await reconcileCommand(clientFor(cfg), args);
        return 0;
      }
      case "serve": {
        const { serveCommand } = await import("./serve.ts");
        return await serveCommand(args);
      }
      case "token": {
        const { tokenCommand } = await import("../admission/token.ts");
        const { nodeIO } = await import("./io.ts");
        console.log(await tokenCommand(args, nodeIO));
        return 0;
      }
      case "register": {
        const { registerFromCli } = await import("./register-command.ts");
        return await registerFromCli(args);
      }
      default:
        console.error(USAGE);
        return cmd === "--help" || cmd === "help" ? 0 : 2;
    }
  } catch (e) {
    console.error(`ordinal ${cmd}: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}
