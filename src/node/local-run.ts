/**
 * `ordinal local`: Ordinal's webhooks and reconciler on this machine, in front of the cluster of
 * the current kubeconfig, for a try. It makes a CA and a serving certificate for 127.0.0.1,
 * registers the webhook configurations pointing at https://127.0.0.1:PORT with that CA (as the
 * kubeconfig's user), runs `ordinal serve` as the reconciler's ServiceAccount (a token of its own
 * from the TokenRequest API, so the person's edits are not the reconciler's and wake it), and
 * removes the configurations (and the kube-system label it added on 1.20) when it stops.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { INSTALL_NAMESPACE, SERVICE_ACCOUNT } from "../deploy/identity.ts";
import { setting } from "../settings.ts";
import type { KubeClient, KubeObject } from "../kube/client.ts";
import { R } from "../kube/resources.ts";
import { caBundleFromPem, ensureWebhookRegistration } from "../webhook-config/registration.ts";
import { kubeSystemWarning, optOutKubeSystem } from "../webhook-config/kube-system-opt-out.ts";
import { CONFIG_NAME, PLACEHOLDER_URL, WEBHOOKS_OPT_OUT_LABEL } from "../webhook-config/webhook-configs.ts";
import { startApiForward } from "./api-forward.ts";
import type { ClusterConfig } from "./kubeconfig.ts";
import { generateServingCert } from "./serving-cert.ts";

export interface LocalOptions {
  port: number;
  /** Run the Worker (the checkout's `wrangler dev`, over https) instead of `ordinal serve`. */
  worker?: boolean;
  /** Seconds the reconciler's token lives (the apiserver may cap it). */
  tokenSeconds: number;
  out(line: string): void;
  err(line: string): void;
  /** The environment the server inherits (its cluster settings are replaced). */
  env: Record<string, string | undefined>;
  /** Starts the server: `program` (this program for `serve`, `wrangler` (the checkout's) for the Worker) with `args` and `env`; a child process by default. */
  startServer?: (program: "ordinal" | "wrangler", args: string[], env: Record<string, string | undefined>) => ChildProcess;
}

/** The install's prerequisite, named in the error when it is missing. */
const INSTALL_FIRST = "kubectl apply -f deploy/crds/ -f deploy/namespace.yaml -f deploy/rbac.yaml";

type WebhookConfig = KubeObject & { webhooks?: { clientConfig?: { url?: string; service?: { namespace?: string; name?: string } } }[] };

/**
 * foreignTarget returns where an existing configuration points when that is not a local run's
 * (a Service, or a URL other than 127.0.0.1/localhost or the placeholder), else undefined:
 * `ordinal local` must not take over, and then delete, another install's webhooks.
 */
export function foreignTarget(config: WebhookConfig | undefined): string | undefined {
  for (const w of config?.webhooks ?? []) {
    const c = w.clientConfig;
    if (c?.service) return `service ${c.service.namespace}/${c.service.name}`;
    if (c?.url && !c.url.startsWith(PLACEHOLDER_URL) && !/^https:\/\/(127\.0\.0\.1|localhost)(:\d+)?\//.test(c.url)) return c.url;
  }
  return undefined;
}

/** reconcilerToken returns a token of the reconciler's ServiceAccount from the TokenRequest API, or throws saying what to install. */
async function reconcilerToken(admin: KubeClient, seconds: number): Promise<string> {
  if (!(await admin.get(R.serviceAccounts, INSTALL_NAMESPACE, SERVICE_ACCOUNT))) {
    throw new Error(`the ServiceAccount ${INSTALL_NAMESPACE}/${SERVICE_ACCOUNT} does not exist: install the CRDs and RBAC first: ${INSTALL_FIRST}`);
  }
  const review = await admin.createSubresource<{ status?: { token?: string } }>(R.serviceAccounts, INSTALL_NAMESPACE, SERVICE_ACCOUNT, "token", {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec: { expirationSeconds: seconds },
  });
  if (!review.status?.token) throw new Error(`the apiserver issued no token for ${INSTALL_NAMESPACE}/${SERVICE_ACCOUNT} (TokenRequest)`);
  return review.status.token;
}

/** startChild runs this same program (`ordinal serve`) or the checkout's wrangler as a child process sharing the terminal. */
const startChild = (program: "ordinal" | "wrangler", args: string[], env: Record<string, string | undefined>): ChildProcess =>
  // Its own process group: a Ctrl-C reaches this command only, which forwards it once (a second
  // SIGINT would stop the server before it released its Leases).
  program === "wrangler"
    ? spawn(join("node_modules", ".bin", "wrangler"), args, { env, stdio: "inherit", detached: true })
    : spawn(process.execPath, [...process.execArgv, process.argv[1] ?? "", ...args], { env, stdio: "inherit", detached: true });

/**
 * runLocal registers, serves until the server stops (Ctrl-C, SIGTERM, or its own exit), removes
 * what it registered, and returns the exit code: the server's, or 1 when the cluster refused.
 */
export async function runLocal(cluster: ClusterConfig, admin: KubeClient, o: LocalOptions): Promise<number> {
  if (o.worker && !(existsSync("wrangler.toml") && existsSync(join("node_modules", ".bin", "wrangler")))) {
    o.err("ordinal local --worker runs the Worker from a checkout of Ordinal (wrangler.toml, node_modules/.bin/wrangler): run it at the repository's root");
    return 2;
  }
  const existing = await admin.get<WebhookConfig>(R.mutatingWebhooks, undefined, CONFIG_NAME);
  const foreign = foreignTarget(existing);
  if (foreign) {
    o.err(`MutatingWebhookConfiguration ${CONFIG_NAME} points at ${foreign}: another Ordinal serves this cluster, and ordinal local would take its webhooks and delete them on exit. Stop it first (kubectl -n ${INSTALL_NAMESPACE} scale deploy/ordinal --replicas=0 and kubectl delete mutatingwebhookconfiguration,validatingwebhookconfiguration ${CONFIG_NAME}), or use another cluster.`);
    return 1;
  }
  const token = await reconcilerToken(admin, o.tokenSeconds);
  const dir = mkdtempSync(join(tmpdir(), "ordinal-local-"));
  let labelled = false;
  let forward: { close: () => Promise<void> } | undefined;
  const start = o.startServer ?? startChild;
  /** The configurations registered ("MutatingWebhookConfiguration/ordinal", …): removed on exit. */
  let registered: string[] = [];
  try {
    const tls = generateServingCert(["127.0.0.1", "localhost"]);
    const file = (name: string, data: string) => (writeFileSync(join(dir, name), data, { mode: 0o600 }), join(dir, name));
    const [cert, key] = [file("tls.crt", tls.cert), file("tls.key", tls.key)];
    const url = `https://127.0.0.1:${o.port}`;
    const caBundle = caBundleFromPem(tls.ca, "the local CA");
    const serverVersion = await admin.serverVersion();
    const r = await ensureWebhookRegistration(admin, { url, caBundle, serverVersion, mode: "create" });
    registered = [...r.created, ...r.updated, ...r.unchanged];
    for (const n of registered) o.out(`${n} → ${url}`);
    const optOut = await optOutKubeSystem(admin, serverVersion);
    if ("refused" in optOut) o.err(kubeSystemWarning(optOut.refused));
    else if (optOut.done === "labelled") {
      labelled = true;
      o.out(`namespace/kube-system labelled ${WEBHOOKS_OPT_OUT_LABEL}=disabled (Kubernetes before 1.21; removed on exit)`);
    }
    o.out(`serving on ${url} (${o.worker ? "the Worker, wrangler dev" : "ordinal serve"}) as ${INSTALL_NAMESPACE}/${SERVICE_ACCOUNT}; Ctrl-C removes the webhooks`);
    let server: ChildProcess;
    if (o.worker) {
      // The ServiceAccount's token stays in this process: the forwarder presents it (api-forward.ts).
      const forwarder = await startApiForward(cluster.server, token, cluster.ca);
      forward = forwarder;
      const vars = { KUBE_API_URL: forwarder.url, KUBE_ANONYMOUS: "true", WEBHOOK_AUTH: setting(o.env, "WEBHOOK_AUTH") ?? "none", WEBHOOK_URL: url, WEBHOOK_CA_BUNDLE: caBundle, WEBHOOK_REGISTRATION: "update" };
      const args = ["dev", "--ip", "127.0.0.1", "--port", String(o.port), "--local-protocol", "https", "--https-key-path", key, "--https-cert-path", cert, "--show-interactive-dev-session=false"];
      for (const [k, v] of Object.entries(vars)) args.push("--var", `${k}:${v}`);
      server = start("wrangler", args, { ...o.env, WRANGLER_SEND_METRICS: "false" });
    } else {
      const env: Record<string, string | undefined> = {
        ...o.env,
        KUBECONFIG: undefined,
        KUBE_API_URL: cluster.server,
        KUBE_TOKEN: token,
        KUBE_CA_FILE: cluster.ca ? file("cluster-ca.crt", cluster.ca) : undefined,
        KUBE_ANONYMOUS: undefined,
        WEBHOOK_AUTH: setting(o.env, "WEBHOOK_AUTH") ?? "none",
        WEBHOOK_URL: url,
        WEBHOOK_CA_BUNDLE: caBundle,
        // The ServiceAccount may get and update these configurations by name, not create them.
        WEBHOOK_REGISTRATION: "update",
        RECONCILER_USERNAME: undefined,
      };
      server = start("ordinal", ["serve", "--host", "127.0.0.1", "--port", String(o.port), "--tls-cert", cert, "--tls-key", key], env);
    }
    return await untilStopped(server);
  } finally {
    await unregister(admin, o, registered, labelled);
    await forward?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** untilStopped forwards SIGINT/SIGTERM to the server and returns its exit code once it has exited. */
function untilStopped(server: ChildProcess): Promise<number> {
  // The child has a process group of its own: the signal reaches all of it (wrangler's workerd too).
  const forward = (signal: NodeJS.Signals) => () => {
    try {
      if (server.pid) return void process.kill(-server.pid, signal);
    } catch {
      /* gone, or not a group leader: the child alone */
    }
    server.kill(signal);
  };
  const onInt = forward("SIGINT");
  const onTerm = forward("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return new Promise((resolve) => {
    const done = (code: number) => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      resolve(code);
    };
    server.once("error", () => done(1));
    server.once("exit", (code, signal) => done(code ?? (signal === "SIGINT" || signal === "SIGTERM" ? 0 : 1)));
  });
}

/** unregister deletes the webhook configurations a local run registered (and the kube-system label it added), saying what it removed. */
async function unregister(admin: KubeClient, o: Pick<LocalOptions, "out" | "err">, registered: string[], labelled: boolean): Promise<void> {
  try {
    for (const n of registered) {
      const [kind, name = ""] = n.split("/");
      if (await admin.delete(kind === "MutatingWebhookConfiguration" ? R.mutatingWebhooks : R.validatingWebhooks, undefined, name)) o.out(`${n} deleted`);
    }
    if (labelled) await admin.patch(R.namespaces, undefined, "kube-system", { metadata: { labels: { [WEBHOOKS_OPT_OUT_LABEL]: null } } }, "merge");
  } catch (e) {
    o.err(`could not remove the webhook configurations: ${e instanceof Error ? e.message : String(e)}; remove them by hand: kubectl delete mutatingwebhookconfiguration ${CONFIG_NAME}; kubectl delete validatingwebhookconfiguration ${CONFIG_NAME}`);
  }
}
