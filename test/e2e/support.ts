/**
 * Shared setup of the e2e suite: clients for the real kube-apiserver started by run.sh (admin,
 * and the reconciler's own least-privilege identity), per-test namespaces, the kubelet player,
 * and a driver that alternates reconcile passes and kubelet steps until a condition holds.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Pod } from "../../src/api/k8s.ts";
import type { KubeClient, KubeObject } from "../../src/kube/client.ts";
import { R } from "../../src/kube/resources.ts";
import { clientFor, type ClusterConfig } from "../../src/node/kubeconfig.ts";
import { silentLogger } from "../../src/log/log.ts";
import { runReconcile } from "../../src/schedule/loop.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { reconcilerUserBindings } from "../support/reconciler-user.ts";

export interface ClusterEnv {
  KUBE_API_URL: string;
  KUBE_TOKEN: string;
  KUBE_RECONCILER_TOKEN: string;
  KUBE_CA_FILE: string;
  KUBECONFIG: string;
}

const dir = process.env.ORDINAL_CLUSTER_DIR ?? "/tmp/ordinal-e2e-cluster";

/** clusterEnv reads the env.json start.sh wrote; fails loudly when no cluster is running. */
function clusterEnv(): ClusterEnv {
  try {
    return JSON.parse(readFileSync(`${dir}/env.json`, "utf8")) as ClusterEnv;
  } catch (e) {
    throw new Error(`no real cluster at ${dir} (run the suite through \`npm run e2e\`): ${String(e)}`, { cause: e });
  }
}

export const env = clusterEnv();
const ca = readFileSync(env.KUBE_CA_FILE, "utf8");
export const adminConfig: ClusterConfig = { server: env.KUBE_API_URL, token: env.KUBE_TOKEN, ca, source: "e2e admin" };
const reconcilerConfig: ClusterConfig = { server: env.KUBE_API_URL, token: env.KUBE_RECONCILER_TOKEN, ca, source: "e2e reconciler" };
export const admin: KubeClient = clientFor(adminConfig);
const reconcilerClient: KubeClient = clientFor(reconcilerConfig);

/** kubectl runs kubectl against the cluster and returns stdout (throws with stderr on failure). */
export function kubectl(args: string[], input?: string): string {
  return execFileSync("kubectl", args, { env: { ...process.env, KUBECONFIG: env.KUBECONFIG }, input, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] });
}

/** kubectlResult runs kubectl and returns exit status, stdout and stderr without throwing. */
export function kubectlResult(args: string[], input?: string): { code: number; stdout: string; stderr: string } {
  try {
    return { code: 0, stdout: kubectl(args, input), stderr: "" };
  } catch (e) {
    const err = e as { status?: number; stdout?: string; stderr?: string };
    return { code: err.status ?? 1, stdout: String(err.stdout ?? ""), stderr: String(err.stderr ?? "") };
  }
}

let setupDone = false;
/**
 * setupCluster applies deploy/crds, deploy/namespace.yaml and deploy/rbac.yaml and binds the
 * reconciler's ClusterRole and lease Role to the `ordinal-reconciler` user of the test cluster.
 */
export async function setupCluster(): Promise<void> {
  if (setupDone) return;
  kubectl(["apply", "-f", "deploy/crds/"]);
  kubectl(["apply", "-f", "deploy/namespace.yaml"]);
  kubectl(["apply", "-f", "deploy/rbac.yaml"]);
  kubectl(["apply", "-f", "-"], USER_BINDINGS);
  kubectl(["wait", "--for=condition=Established", "crd/statefulsets.apps.ordinal.dev", "crd/imagelists.apps.ordinal.dev", "--timeout=30s"]);
  setupDone = true;
}

const USER_BINDINGS = `${reconcilerUserBindings("e2e")}---
# The servers the e2e files start with WEBHOOK_URL register in create mode, as a Worker does: the
# grant of deploy/rbac-webhook-create.yaml, to this user only (deploy.e2e's ServiceAccount has none).
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: ordinal-reconciler-e2e-webhook-create}
rules: [{apiGroups: [admissionregistration.k8s.io], resources: [mutatingwebhookconfigurations, validatingwebhookconfigurations], verbs: [create]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: ordinal-reconciler-e2e-webhook-create}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ordinal-reconciler-e2e-webhook-create}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: ordinal-reconciler}]
`;

let nsCounter = 0;
/** newNamespace creates a fresh namespace and waits until its default ServiceAccount has a token. */
export async function newNamespace(prefix: string): Promise<string> {
  const name = `${prefix}-${process.pid}-${nsCounter++}`;
  await admin.create(R.namespaces, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  for (let i = 0; i < 100; i++) {
    const sa = await admin.get<KubeObject & { secrets?: unknown[] }>(R.serviceAccounts, name, "default");
    if (sa?.secrets?.length) return name;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`namespace ${name}: default ServiceAccount got no token`);
}

/** reconcileInProcess runs one reconcile invocation as the reconciler identity (one pass). */
export async function reconcileInProcess(namespace: string) {
  return runReconcile(reconcilerClient, { log: silentLogger, holder: `e2e-${namespace}`, leaseNamespace: "ordinal-system", budgetMs: 30_000, maxPasses: 1, namespace });
}

/** reconcileCli runs `ordinal reconcile --once` as a separate process with the reconciler's token. */
export function reconcileCli(namespace: string): string {
  return execFileSync("node", ["src/cli/bin.mjs", "reconcile", "--once", "--namespace", namespace, "--lease-namespace", "ordinal-system"], {
    env: { ...process.env, KUBE_API_URL: env.KUBE_API_URL, KUBE_TOKEN: env.KUBE_RECONCILER_TOKEN, KUBE_CA_FILE: env.KUBE_CA_FILE, KUBECONFIG: "" },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

export const kubeletFor = (namespace: string, opts: ConstructorParameters<typeof KubeletPlayer>[1] = {}) =>
  new KubeletPlayer(admin, { namespace, ...opts });

export const listPods = async (namespace: string) =>
  (await admin.list<Pod>(R.pods, namespace)).sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!));

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
