/**
 * `ordinal local`: the webhooks and the reconciler on this machine, registered with the cluster of
 * the current kubeconfig until Ctrl-C (src/node/local-run.ts does the work).
 */
import { UsageError } from "./args.ts";
import type { Command } from "./command.ts";

export const localCmd: Command = {
  name: "local",
  summary: "serve the webhooks and the reconciler here, registered with the current kubeconfig's cluster until Ctrl-C",
  synopsis: "[--worker] [--port N] [--token-hours H]",
  details:
    "Makes a CA and a certificate for 127.0.0.1, registers the webhook configurations pointing at\n" +
    "https://127.0.0.1:PORT (as the kubeconfig's user; on Kubernetes 1.20 it labels kube-system\n" +
    "ordinal.dev/webhooks=disabled), runs `ordinal serve` as the ServiceAccount ordinal-system/ordinal-reconciler\n" +
    "(a token from the TokenRequest API: your own edits then wake the reconciler), and removes the\n" +
    "configurations on exit. --worker runs the Worker instead (the checkout's wrangler dev over https with the\n" +
    "same certificate; the apiserver through a forwarder on 127.0.0.1 that presents the ServiceAccount's token).\n" +
    "Needs the CRDs and RBAC: kubectl apply -f deploy/crds/ -f deploy/namespace.yaml -f deploy/rbac.yaml.\n" +
    "The apiserver must reach 127.0.0.1 on this machine (an apiserver running here: test/cluster, minikube --driver=none, k3s).",
  options: {
    worker: { type: "boolean", help: "run the Worker (wrangler dev, from a checkout) instead of ordinal serve" },
    port: { type: "string", value: "N", help: "listen port on 127.0.0.1 (default 8443)" },
    "token-hours": { type: "string", value: "H", help: "how long the reconciler's token lives (default 24; the apiserver may cap it)" },
  },
  positionals: { max: 0 },
  async run({ values: v }, ctx) {
    const port = v.port === undefined ? 8443 : Number(v.port);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError(`--port must be a port number (1-65535), got ${JSON.stringify(v.port)}`);
    const hours = v["token-hours"] === undefined ? 24 : Number(v["token-hours"]);
    if (!Number.isInteger(hours) || hours < 1) throw new UsageError(`--token-hours must be a whole number ≥ 1, got ${JSON.stringify(v["token-hours"])}`);
    const [{ clusterConfigFromEnv }, { runLocal }] = await Promise.all([import("../node/kubeconfig.ts"), import("../node/local-run.ts")]);
    const cluster = clusterConfigFromEnv(ctx.env);
    if (!cluster) throw new UsageError("no cluster configured: ordinal local registers with the current kubeconfig's cluster (KUBECONFIG or ~/.kube/config)");
    return runLocal(cluster, await ctx.client(), { port, worker: v.worker === true, tokenSeconds: hours * 3600, out: ctx.out, err: ctx.err, env: ctx.env });
  },
};
