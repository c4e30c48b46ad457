/**
 * The latency benchmark's own control plane and the two controllers on it: test/cluster/start.sh
 * on ports and a state dir of its own (so it never meets an e2e run), kube-controller-manager with
 * its StatefulSet controller on, and `ordinal serve` as shipped (built bundle, default interval,
 * WEBHOOK_AUTH=none as deploy/ ships it) with its webhooks registered through `ordinal register`;
 * on request, the Worker under `wrangler dev` in its place.
 * The apiserver writes an audit log, from which each controller's requests are counted.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, readFileSync, writeFileSync } from "node:fs";
import type { KubeClient } from "../../../src/kube/client.ts";
import type { FetchLike } from "../../../src/kube/http.ts";
import { clientFor, fetchFor } from "../../../src/node/kubeconfig.ts";
import type { ApiAccess } from "./watch.ts";
import { reconcilerUserBindings } from "../../support/reconciler-user.ts";
import { readAuditLog, type AuditEvent } from "../../support/audit.ts";

export const DIR = process.env.ORDINAL_BENCH_CLUSTER_DIR ?? "/tmp/ordinal-bench-latency";
const PORTS = { api: 26743, etcd: 23991, etcdPeer: 23992, webhook: 28943, apiProxy: 28944, worker: 28945, inspector: 28946, spare: 28947 };
const AUDIT_LOG = `${DIR}/audit.log`;
const KCM_CONTROLLERS = "serviceaccount-token,serviceaccount,garbagecollector,namespace,pvc-protection,statefulset";

/** How the Worker reaches the apiserver under `wrangler dev` (useWorker). */
export type WorkerApiPath = "kubectl-proxy" | "forwarder";

interface EnvJson {
  KUBE_API_URL: string;
  KUBE_TOKEN: string;
  KUBE_RECONCILER_TOKEN: string;
  KUBE_CA_FILE: string;
  KUBECONFIG: string;
}

export interface BenchCluster {
  env: EnvJson;
  admin: KubeClient;
  api: ApiAccess;
  kubectl: (args: string[], input?: string) => string;
  /** `ordinal serve`'s process id (its RSS: test/bench/tenants.ts) and webhook URL. */
  servePid: number;
  webhookUrl: string;
  /**
   * useWorker stops `ordinal serve` (it releases the Lease) and puts the Worker in its place:
   * `wrangler dev` over https, its webhooks registered instead of serve's, reaching the apiserver as
   * a new user's does (docs/install.md): through `kubectl proxy` with the reconciler's credentials
   * (`KUBE_ANONYMOUS=true`, no token in the Worker); `via: "forwarder"`: through a plain-HTTP
   * forwarder (test/e2e/api-proxy.mjs, as a Workers VPC tunnel would) with the token in the Worker.
   */
  useWorker: (via?: WorkerApiPath) => Promise<void>;
  /** Where the Worker reaches the apiserver (kubectl proxy or the forwarder), once useWorker ran; and a free port for another `wrangler dev` (and the next, its inspector). */
  workerApi: { url: string; sparePort: number; webhookUrl: string; webhookFetch: FetchLike };
  stop: () => Promise<void>;
}

const clusterEnv = () => ({
  ...process.env,
  ORDINAL_CLUSTER_DIR: DIR,
  ORDINAL_APISERVER_PORT: String(PORTS.api),
  ORDINAL_ETCD_PORT: String(PORTS.etcd),
  ORDINAL_ETCD_PEER_PORT: String(PORTS.etcdPeer),
  ORDINAL_KCM_CONTROLLERS: KCM_CONTROLLERS,
  ORDINAL_AUDIT_LOG: AUDIT_LOG,
});

const USER_BINDINGS = reconcilerUserBindings("bench");

/**
 * startBenchCluster starts the control plane, installs Ordinal's CRDs and RBAC (bound to the
 * cluster's `ordinal-reconciler` user), starts `ordinal serve` with that identity (and `o.serveEnv`
 * on top of its environment) and registers its webhooks. `stop` ends the server and the control plane (logs stay in DIR).
 */
export async function startBenchCluster(log: (s: string) => void, o: { serveEnv?: Record<string, string> } = {}): Promise<BenchCluster> {
  log(`starting the control plane in ${DIR} (apiserver :${PORTS.api}, kcm controllers ${KCM_CONTROLLERS})`);
  execFileSync("bash", ["test/cluster/start.sh"], { env: clusterEnv(), stdio: ["ignore", "ignore", "inherit"] });
  const procs: ChildProcess[] = [];
  const stopCluster = () => execFileSync("bash", ["test/cluster/stop.sh"], { env: clusterEnv(), stdio: "ignore" });
  const stopAll = async () => {
    for (const p of procs.splice(0).reverse()) await stopProcess(p);
    stopCluster();
  };
  try {
    const env = JSON.parse(readFileSync(`${DIR}/env.json`, "utf8")) as EnvJson;
    const kubectl = (args: string[], input?: string) =>
      execFileSync("kubectl", args, { env: { ...process.env, KUBECONFIG: env.KUBECONFIG }, input, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] });
    kubectl(["apply", "-f", "deploy/crds/", "-f", "deploy/namespace.yaml", "-f", "deploy/rbac.yaml"]);
    kubectl(["apply", "-f", "-"], USER_BINDINGS);
    kubectl(["wait", "--for=condition=Established", "crd/statefulsets.apps.ordinal.dev", "crd/imagelists.apps.ordinal.dev", "--timeout=30s"]);
    execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=ordinal-bench", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", `${DIR}/tls.key`, "-out", `${DIR}/tls.crt`], { stdio: "ignore" });
    const serve = startProcess("ordinal-serve", "node", ["dist/node/ordinal.mjs", "serve", "--port", String(PORTS.webhook), "--tls-cert", `${DIR}/tls.crt`, "--tls-key", `${DIR}/tls.key`], { ...serveEnv(env), ...o.serveEnv });
    procs.push(serve);
    const register = async (url: string, proc: ChildProcess, name: string) => {
      await waitHealthy(url, proc, name);
      execFileSync("node", ["src/cli/bin.mjs", "register", "--url", url, "--ca-bundle", `${DIR}/tls.crt`], { env: { ...process.env, KUBECONFIG: env.KUBECONFIG }, stdio: ["ignore", "ignore", "inherit"] });
      log(`${name} on ${url} (log ${DIR}/${name}.log), webhooks registered`);
    };
    await register(`https://127.0.0.1:${PORTS.webhook}`, serve, "ordinal-serve");
    const ca = readFileSync(env.KUBE_CA_FILE, "utf8");
    const config = { server: env.KUBE_API_URL, token: env.KUBE_TOKEN, ca, source: "latency bench admin" };
    return {
      env,
      admin: clientFor(config),
      api: { server: env.KUBE_API_URL, token: env.KUBE_TOKEN, fetch: fetchFor(config) },
      kubectl,
      servePid: serve.pid!,
      webhookUrl: `https://127.0.0.1:${PORTS.webhook}`,
      workerApi: { url: `http://127.0.0.1:${PORTS.apiProxy}`, sparePort: PORTS.spare, webhookUrl: `https://127.0.0.1:${PORTS.worker}`, webhookFetch: webhookFetch() },
      useWorker: async (via = "kubectl-proxy") => {
        await stopProcess(serve);
        const proxy = via === "forwarder" ? startProcess("api-proxy", "node", ["test/e2e/api-proxy.mjs", String(PORTS.apiProxy)], { KUBE_API_URL: env.KUBE_API_URL, KUBE_CA_FILE: env.KUBE_CA_FILE }) : startKubectlProxy(env);
        procs.push(proxy);
        await waitUp(`http://127.0.0.1:${PORTS.apiProxy}/version`, proxy, via === "forwarder" ? "api-proxy" : "kubectl-proxy");
        const worker = startProcess("wrangler-dev", "npx", workerArgs(env, via), { CI: "true", WRANGLER_SEND_METRICS: "false" });
        procs.push(worker);
        await register(`https://127.0.0.1:${PORTS.worker}`, worker, "wrangler-dev");
      },
      stop: stopAll,
    };
  } catch (e) {
    await stopAll();
    throw e;
  }
}

/**
 * serveEnv returns `ordinal serve`'s environment: the reconciler identity and no setting but the
 * cluster, the auth mode and the username (the test token is static, not a ServiceAccount's).
 */
function serveEnv(env: EnvJson): Record<string, string> {
  return { KUBECONFIG: "", KUBE_API_URL: env.KUBE_API_URL, KUBE_TOKEN: env.KUBE_RECONCILER_TOKEN, KUBE_CA_FILE: env.KUBE_CA_FILE, WEBHOOK_AUTH: "none", RECONCILER_USERNAME: "ordinal-reconciler" };
}

/**
 * startKubectlProxy runs `kubectl proxy` on the Worker's apiserver port with a kubeconfig of the
 * reconciler's identity (docs/install.md's recipe, with the reconciler's credentials so that the
 * audit log tells its requests from the bench's own).
 */
function startKubectlProxy(env: EnvJson): ChildProcess {
  const kubeconfig = `${DIR}/reconciler-kubeconfig`;
  const config = ["apiVersion: v1", "kind: Config", "clusters:", "- name: bench", "  cluster:", `    server: ${env.KUBE_API_URL}`, `    certificate-authority: ${env.KUBE_CA_FILE}`];
  config.push("users:", "- name: ordinal-reconciler", "  user:", `    token: ${env.KUBE_RECONCILER_TOKEN}`, "contexts:", "- name: bench", "  context: {cluster: bench, user: ordinal-reconciler}", "current-context: bench", "");
  writeFileSync(kubeconfig, config.join("\n"), { mode: 0o600 });
  return startProcess("kubectl-proxy", "kubectl", ["proxy", "--address", "127.0.0.1", "--port", String(PORTS.apiProxy), "--kubeconfig", kubeconfig], {});
}

/**
 * workerArgs returns `npx wrangler dev …` for the Worker with wrangler.toml's settings and the same
 * identity and auth mode (behind `kubectl proxy`: no token, the proxy adds the reconciler's).
 */
function workerArgs(env: EnvJson, via: WorkerApiPath): string[] {
  const identity: Record<string, string> = via === "forwarder" ? { KUBE_TOKEN: env.KUBE_RECONCILER_TOKEN } : { KUBE_ANONYMOUS: "true" };
  const vars: Record<string, string> = { KUBE_API_URL: `http://127.0.0.1:${PORTS.apiProxy}`, ...identity, WEBHOOK_AUTH: "none", RECONCILER_USERNAME: "ordinal-reconciler" };
  // LOG_LEVEL=debug on the bench's command line reaches the Worker too (serve inherits it): its shard's `wake` / `set passed` lines.
  if (process.env.LOG_LEVEL) vars.LOG_LEVEL = process.env.LOG_LEVEL;
  const args = ["wrangler", "dev", "--ip", "127.0.0.1", "--port", String(PORTS.worker), "--inspector-port", String(PORTS.inspector), "--local-protocol", "https"];
  args.push("--https-key-path", `${DIR}/tls.key`, "--https-cert-path", `${DIR}/tls.crt`, "--persist-to", `${DIR}/wrangler-state`, "--show-interactive-dev-session=false");
  for (const [k, v] of Object.entries(vars)) args.push("--var", `${k}:${v}`);
  return args;
}

/** startProcess runs a command in its own process group, its output in `${DIR}/<name>.log`. */
function startProcess(name: string, cmd: string, args: string[], extraEnv: Record<string, string>): ChildProcess {
  const out = createWriteStream(`${DIR}/${name}.log`);
  const proc = spawn(cmd, args, { env: { ...process.env, ...extraEnv }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  proc.stdout!.pipe(out);
  proc.stderr!.pipe(out);
  return proc;
}

/** webhookFetch returns a transport to the bench's webhook servers (their certificate's CA), made when first called. */
function webhookFetch(): FetchLike {
  let f: FetchLike | undefined;
  return (input, init) => (f ??= fetchFor({ server: "https://127.0.0.1", ca: readFileSync(`${DIR}/tls.crt`, "utf8"), source: "bench webhook server" }))(input, init);
}

async function waitHealthy(url: string, proc: ChildProcess, name: string): Promise<void> {
  await waitUp(`${url}/healthz`, proc, name, webhookFetch());
}

/** waitUp waits until `url` answers 2xx (60 s at most), failing at once when `proc` exits. */
async function waitUp(url: string, proc: ChildProcess, name: string, f: FetchLike = (u) => fetch(u)): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (proc.exitCode !== null) throw new Error(`${name} exited (${proc.exitCode}): see ${DIR}/${name}.log`);
    try {
      if ((await f(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${name} not healthy after 60 s: see ${DIR}/${name}.log`);
}

/** stopProcess sends SIGTERM to the process group (serve releases its Lease) and waits up to 10 s; idempotent. */
async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once("exit", r));
  try {
    process.kill(-proc.pid!, "SIGTERM");
  } catch {
    return;
  }
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
}

/** readAudit returns every completed request the apiserver logged so far. */
export const readAudit = (): AuditEvent[] => readAuditLog(AUDIT_LOG);
