/**
 * The chaos run's control plane (started by test/cluster/start.sh from `dir`): its clients,
 * deploy/ applied as a user applies it, the reconciler ServiceAccount's own token, and the
 * kube-apiserver restarted alone (etcd and the controller-manager kept running).
 */
import { execFile, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { promisify } from "node:util";
import type { KubeClient, KubeObject } from "../../../src/kube/client.ts";
import { R } from "../../../src/kube/resources.ts";
import { clientFor, type ClusterConfig } from "../../../src/node/kubeconfig.ts";

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Cluster {
  dir: string;
  apiUrl: string;
  caFile: string;
  adminToken: string;
  kubeconfig: string;
  admin: KubeClient;
  kubectl(args: string[], input?: string): Promise<string>;
}

/** openCluster reads the env.json start.sh wrote in `dir`; throws when no cluster runs there. */
export function openCluster(dir: string): Cluster {
  let env: { KUBE_API_URL: string; KUBE_TOKEN: string; KUBE_CA_FILE: string; KUBECONFIG: string };
  try {
    env = JSON.parse(readFileSync(`${dir}/env.json`, "utf8")) as typeof env;
  } catch (e) {
    throw new Error(`no cluster at ${dir} (start it with test/cluster/start.sh, or run npm run chaos): ${String(e)}`, { cause: e });
  }
  const cfg: ClusterConfig = { server: env.KUBE_API_URL, token: env.KUBE_TOKEN, ca: readFileSync(env.KUBE_CA_FILE, "utf8"), source: "chaos admin" };
  const kubectl = async (args: string[], input?: string) => {
    const p = run("kubectl", args, { env: { ...process.env, KUBECONFIG: env.KUBECONFIG }, maxBuffer: 64 << 20 });
    if (input !== undefined) p.child.stdin!.end(input);
    return (await p).stdout;
  };
  return { dir, apiUrl: env.KUBE_API_URL, caFile: env.KUBE_CA_FILE, adminToken: env.KUBE_TOKEN, kubeconfig: env.KUBECONFIG, admin: clientFor(cfg, "chaos/admin"), kubectl };
}

/**
 * applyDeploy applies deploy/ (kustomize) as a user does — apiserver 1.20 predates policy/v1
 * PodDisruptionBudget, the only change — and returns the token of the ServiceAccount the
 * Deployment runs as (ordinal-system/ordinal-reconciler).
 */
export async function applyDeploy(c: Cluster): Promise<string> {
  const built = (await c.kubectl(["kustomize", "deploy/"])).replace(/apiVersion: policy\/v1\nkind: PodDisruptionBudget/, "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget");
  await c.kubectl(["apply", "-f", "-"], built);
  await c.kubectl(["wait", "--for=condition=Established", "crd/statefulsets.apps.ordinal.dev", "crd/imagelists.apps.ordinal.dev", "--timeout=30s"]);
  for (let i = 0; i < 100; i++) {
    const sa = await c.admin.get<KubeObject & { secrets?: { name: string }[] }>(R.serviceAccounts, "ordinal-system", "ordinal-reconciler");
    const secret = sa?.secrets?.[0] && (await c.admin.get<KubeObject & { data?: { token?: string } }>(R.secrets, "ordinal-system", sa.secrets[0].name));
    if (secret && secret.data?.token) return Buffer.from(secret.data.token, "base64").toString("utf8");
    await sleep(200);
  }
  throw new Error("ServiceAccount ordinal-system/ordinal-reconciler got no token");
}

/** apiserverReady is true when /readyz answers ok. */
async function apiserverReady(c: Cluster): Promise<boolean> {
  try {
    const { stdout } = await run("curl", ["-s", "--max-time", "2", "--cacert", c.caFile, `${c.apiUrl}/readyz`]);
    return stdout === "ok";
  } catch {
    return false;
  }
}

/**
 * restartApiserver stops the kube-apiserver of the cluster (TERM, KILL after 5 s) and starts it
 * again with the same command line (read from /proc before the stop), logging to the same file;
 * etcd keeps every object. `downMs` is how long it stays down. Resolves once /readyz is ok again.
 */
export async function restartApiserver(c: Cluster, downMs: number): Promise<void> {
  const pidFile = `${c.dir}/pids/kube-apiserver.pid`;
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  if (!argv.some((a) => a.includes(c.dir))) throw new Error(`pid ${pid} is not this cluster's kube-apiserver`);
  process.kill(pid, "SIGTERM");
  const gone = () => {
    try {
      process.kill(pid, 0);
      return !readFileSync(`/proc/${pid}/stat`, "utf8").split(" ")[2].startsWith("Z");
    } catch {
      return true;
    }
  };
  for (let i = 0; i < 50 && !gone(); i++) await sleep(100);
  if (!gone()) process.kill(pid, "SIGKILL");
  await sleep(downMs);
  const log = openSync(`${c.dir}/logs/kube-apiserver.log`, "a");
  const child = spawn(argv[0], argv.slice(1), { detached: true, stdio: ["ignore", log, log] });
  closeSync(log);
  child.unref();
  writeFileSync(pidFile, String(child.pid));
  for (let i = 0; i < 600 && !(await apiserverReady(c)); i++) await sleep(250);
}
