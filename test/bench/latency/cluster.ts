/**
 * The latency benchmark's own control plane and the two controllers on it: test/cluster/start.sh
 * on ports and a state dir of its own (so it never meets an e2e run), kube-controller-manager with
 * its StatefulSet controller on, and `ordinal serve` as shipped (built bundle, default interval,
 * WEBHOOK_AUTH=none as deploy/ ships it) with its webhooks registered through `ordinal register`.
 * The apiserver writes an audit log, from which each controller's requests are counted.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";
import type { KubeClient } from "../../../src/kube/client.ts";
import { clientFor, fetchFor } from "../../../src/node/kubeconfig.ts";
import type { ApiAccess } from "./watch.ts";

export const DIR = process.env.ORDINAL_BENCH_CLUSTER_DIR ?? "/tmp/ordinal-bench-latency";
const PORTS = { api: 26743, etcd: 23991, etcdPeer: 23992, webhook: 28943 };
const AUDIT_LOG = `${DIR}/audit.log`;
const KCM_CONTROLLERS = "serviceaccount-token,serviceaccount,garbagecollector,namespace,pvc-protection,statefulset";

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

const USER_BINDINGS = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: ordinal-reconciler-bench-user}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ordinal-reconciler}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: ordinal-reconciler}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: ordinal-reconciler-bench-user, namespace: ordinal-system}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: ordinal-reconciler-own-namespace}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: ordinal-reconciler}]
`;

/**
 * startBenchCluster starts the control plane, installs Ordinal's CRDs and RBAC (bound to the
 * cluster's `ordinal-reconciler` user), starts `ordinal serve` with that identity and registers
 * its webhooks. `stop` ends the server and the control plane (logs stay in DIR).
 */
export async function startBenchCluster(log: (s: string) => void): Promise<BenchCluster> {
  log(`starting the control plane in ${DIR} (apiserver :${PORTS.api}, kcm controllers ${KCM_CONTROLLERS})`);
  execFileSync("bash", ["test/cluster/start.sh"], { env: clusterEnv(), stdio: ["ignore", "ignore", "inherit"] });
  let server: ChildProcess | undefined;
  const stopCluster = () => execFileSync("bash", ["test/cluster/stop.sh"], { env: clusterEnv(), stdio: "ignore" });
  try {
    const env = JSON.parse(readFileSync(`${DIR}/env.json`, "utf8")) as EnvJson;
    const kubectl = (args: string[], input?: string) =>
      execFileSync("kubectl", args, { env: { ...process.env, KUBECONFIG: env.KUBECONFIG }, input, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] });
    kubectl(["apply", "-f", "deploy/crds/", "-f", "deploy/namespace.yaml", "-f", "deploy/rbac.yaml"]);
    kubectl(["apply", "-f", "-"], USER_BINDINGS);
    kubectl(["wait", "--for=condition=Established", "crd/statefulsets.apps.ordinal.dev", "crd/imagelists.apps.ordinal.dev", "--timeout=30s"]);
    execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=ordinal-bench", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", `${DIR}/tls.key`, "-out", `${DIR}/tls.crt`], { stdio: "ignore" });
    server = startServe(env);
    const url = `https://127.0.0.1:${PORTS.webhook}`;
    await waitHealthy(url, server);
    execFileSync("node", ["src/cli/bin.mjs", "register", "--url", url, "--ca-bundle", `${DIR}/tls.crt`], { env: { ...process.env, KUBECONFIG: env.KUBECONFIG }, stdio: ["ignore", "ignore", "inherit"] });
    log(`ordinal serve on ${url} (log ${DIR}/ordinal-serve.log), webhooks registered`);
    const ca = readFileSync(env.KUBE_CA_FILE, "utf8");
    const config = { server: env.KUBE_API_URL, token: env.KUBE_TOKEN, ca, source: "latency bench admin" };
    const s = server;
    return {
      env,
      admin: clientFor(config),
      api: { server: env.KUBE_API_URL, token: env.KUBE_TOKEN, fetch: fetchFor(config) },
      kubectl,
      stop: async () => {
        await stopProcess(s);
        stopCluster();
      },
    };
  } catch (e) {
    if (server) await stopProcess(server);
    stopCluster();
    throw e;
  }
}

/**
 * startServe runs the built `ordinal serve` as the reconciler identity, with no setting but the
 * cluster, TLS, the auth mode and the username (the test token is static, not a ServiceAccount's).
 */
function startServe(env: EnvJson): ChildProcess {
  const out = createWriteStream(`${DIR}/ordinal-serve.log`);
  const proc = spawn("node", ["dist/node/ordinal.mjs", "serve", "--port", String(PORTS.webhook), "--tls-cert", `${DIR}/tls.crt`, "--tls-key", `${DIR}/tls.key`], {
    env: { ...process.env, KUBECONFIG: "", KUBE_API_URL: env.KUBE_API_URL, KUBE_TOKEN: env.KUBE_RECONCILER_TOKEN, KUBE_CA_FILE: env.KUBE_CA_FILE, WEBHOOK_AUTH: "none", RECONCILER_USERNAME: "ordinal-reconciler" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  proc.stdout!.pipe(out);
  proc.stderr!.pipe(out);
  return proc;
}

async function waitHealthy(url: string, proc: ChildProcess): Promise<void> {
  const f = fetchFor({ server: url, ca: readFileSync(`${DIR}/tls.crt`, "utf8"), source: "bench webhook server" });
  for (let i = 0; i < 100; i++) {
    if (proc.exitCode !== null) throw new Error(`ordinal serve exited (${proc.exitCode}): see ${DIR}/ordinal-serve.log`);
    try {
      if ((await f(`${url}/healthz`)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`ordinal serve not healthy after 30 s: see ${DIR}/ordinal-serve.log`);
}

/** stopProcess sends SIGTERM to the process group (serve releases its Lease) and waits up to 10 s. */
async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((r) => proc.once("exit", r));
  try {
    process.kill(-proc.pid!, "SIGTERM");
  } catch {
    return;
  }
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
}

/** One request from the audit log (level Metadata, stage ResponseComplete). */
export interface AuditEvent {
  at: number;
  user: string;
  userAgent: string;
  verb: string;
  resource: string;
  subresource?: string;
  namespace?: string;
}

/** readAudit returns every completed request the apiserver logged so far. */
export function readAudit(): AuditEvent[] {
  const out: AuditEvent[] = [];
  for (const line of readFileSync(AUDIT_LOG, "utf8").split("\n")) {
    if (!line) continue;
    const e = JSON.parse(line) as {
      stage: string;
      requestReceivedTimestamp: string;
      user?: { username?: string };
      userAgent?: string;
      verb: string;
      objectRef?: { resource?: string; subresource?: string; namespace?: string };
    };
    if (e.stage !== "ResponseComplete") continue;
    out.push({
      at: Date.parse(e.requestReceivedTimestamp),
      user: e.user?.username ?? "",
      userAgent: e.userAgent ?? "",
      verb: e.verb,
      resource: e.objectRef?.resource ?? "",
      subresource: e.objectRef?.subresource,
      namespace: e.objectRef?.namespace,
    });
  }
  return out;
}
