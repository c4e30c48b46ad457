/**
 * Node-only cluster configuration: a KubeClient from KUBECONFIG (token, token file, client
 * certificate, custom CA, insecure-skip-tls-verify, exec credential plugins) or from
 * KUBE_API_URL + KUBE_TOKEN (+ KUBE_CA_FILE). TLS options go through an undici Agent, which is
 * why this lives under src/node and never reaches the Worker bundle.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { promisify } from "node:util";
import { Agent, fetch as undiciFetch } from "undici";
import { parse } from "yaml";
import type { KubeClient } from "../kube/client.ts";
import { createKubeClient, type FetchLike } from "../kube/http.ts";

const run = promisify(execFile);

export interface ClusterConfig {
  server: string;
  token?: string | (() => Promise<string | undefined>);
  ca?: string;
  cert?: string;
  key?: string;
  insecure?: boolean;
  /** Where the configuration came from (for messages; never includes secrets). */
  source: string;
  /** The kubeconfig context's namespace, or the pod's own namespace in a cluster. */
  namespace?: string;
}

interface KubeconfigFile {
  "current-context"?: string;
  contexts?: { name: string; context: { cluster: string; user: string; namespace?: string } }[];
  clusters?: { name: string; cluster: { server: string; "certificate-authority"?: string; "certificate-authority-data"?: string; "insecure-skip-tls-verify"?: boolean } }[];
  users?: {
    name: string;
    user: {
      token?: string;
      tokenFile?: string;
      "client-certificate"?: string;
      "client-certificate-data"?: string;
      "client-key"?: string;
      "client-key-data"?: string;
      exec?: { command: string; args?: string[]; env?: { name: string; value: string }[] };
    };
  }[];
}

const b64 = (s: string) => Buffer.from(s, "base64").toString("utf8");

/** loadKubeconfig returns the cluster config of the current context of a kubeconfig file. */
function loadKubeconfig(path: string, context?: string): ClusterConfig {
  const doc = parse(readFileSync(path, "utf8")) as KubeconfigFile;
  const ctxName = context ?? doc["current-context"];
  const ctx = doc.contexts?.find((c) => c.name === ctxName) ?? doc.contexts?.[0];
  if (!ctx) throw new Error(`kubeconfig ${path}: no context ${ctxName ?? ""}`);
  const cluster = doc.clusters?.find((c) => c.name === ctx.context.cluster)?.cluster;
  if (!cluster) throw new Error(`kubeconfig ${path}: no cluster ${ctx.context.cluster}`);
  const user = doc.users?.find((u) => u.name === ctx.context.user)?.user ?? {};
  const cfg: ClusterConfig = { server: cluster.server, source: `kubeconfig ${path} context ${ctx.name}`, insecure: cluster["insecure-skip-tls-verify"], namespace: ctx.context.namespace };
  if (cluster["certificate-authority-data"]) cfg.ca = b64(cluster["certificate-authority-data"]);
  else if (cluster["certificate-authority"]) cfg.ca = readFileSync(cluster["certificate-authority"], "utf8");
  if (user["client-certificate-data"]) cfg.cert = b64(user["client-certificate-data"]);
  else if (user["client-certificate"]) cfg.cert = readFileSync(user["client-certificate"], "utf8");
  if (user["client-key-data"]) cfg.key = b64(user["client-key-data"]);
  else if (user["client-key"]) cfg.key = readFileSync(user["client-key"], "utf8");
  if (user.token) cfg.token = user.token;
  else if (user.tokenFile) cfg.token = readFileSync(user.tokenFile, "utf8").trim();
  else if (user.exec) cfg.token = execTokenSource(user.exec);
  return cfg;
}

/** execTokenSource returns a token getter that runs an exec credential plugin, caching until expiry. */
function execTokenSource(exec: { command: string; args?: string[]; env?: { name: string; value: string }[] }) {
  let cached: { token: string; expires: number } | undefined;
  return async () => {
    if (cached && cached.expires > Date.now() + 10_000) return cached.token;
    const env = { ...process.env, ...Object.fromEntries((exec.env ?? []).map((e) => [e.name, e.value])) };
    const { stdout } = await run(exec.command, exec.args ?? [], { env });
    const cred = JSON.parse(stdout) as { status?: { token?: string; expirationTimestamp?: string } };
    const token = cred.status?.token;
    if (!token) throw new Error(`exec credential plugin ${exec.command} returned no token`);
    cached = { token, expires: cred.status?.expirationTimestamp ? Date.parse(cred.status.expirationTimestamp) : Date.now() + 60_000 };
    return token;
  };
}

/**
 * clusterConfigFromEnv returns the cluster config, or undefined when no cluster is configured.
 * Exactly one source is used, in this order, and setting two explicit ones is an error rather
 * than a silent choice:
 *   1. KUBE_API_URL (+ KUBE_TOKEN, KUBE_CA_FILE) — the Worker's names, also on Node;
 *   2. KUBECONFIG (its first file; the current context);
 *   3. in a pod (KUBERNETES_SERVICE_HOST): the pod's ServiceAccount;
 *   4. ~/.kube/config when it exists.
 */
export function clusterConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ClusterConfig | undefined {
  if (env.KUBE_API_URL && env.KUBECONFIG) {
    throw new Error("both KUBE_API_URL and KUBECONFIG are set: unset one (KUBE_API_URL + KUBE_TOKEN [+ KUBE_CA_FILE], or KUBECONFIG)");
  }
  if (env.KUBE_TOKEN && !env.KUBE_API_URL) throw new Error("KUBE_TOKEN is set without KUBE_API_URL: set KUBE_API_URL too, or unset KUBE_TOKEN to use KUBECONFIG");
  if (env.KUBE_API_URL) {
    return {
      server: env.KUBE_API_URL,
      token: env.KUBE_TOKEN,
      ca: env.KUBE_CA_FILE ? readFileSync(env.KUBE_CA_FILE, "utf8") : undefined,
      source: "KUBE_API_URL",
    };
  }
  if (env.KUBERNETES_SERVICE_HOST && !env.KUBECONFIG) {
    // In a pod: the service account's rotated token is re-read on every request.
    const sa = "/var/run/secrets/kubernetes.io/serviceaccount";
    return {
      server: `https://${env.KUBERNETES_SERVICE_HOST}:${env.KUBERNETES_SERVICE_PORT ?? "443"}`,
      token: async () => readFileSync(`${sa}/token`, "utf8").trim(),
      ca: readFileSync(`${sa}/ca.crt`, "utf8"),
      source: "in-cluster service account",
      namespace: existsSync(`${sa}/namespace`) ? readFileSync(`${sa}/namespace`, "utf8").trim() : undefined,
    };
  }
  const home = `${homedir()}/.kube/config`;
  const path = env.KUBECONFIG?.split(":")[0] || (existsSync(home) ? home : undefined);
  return path ? loadKubeconfig(path) : undefined;
}

/** fetchFor returns a fetch that applies the config's TLS settings (CA, client cert, insecure). */
export function fetchFor(cfg: ClusterConfig): FetchLike {
  if (!cfg.ca && !cfg.cert && !cfg.insecure) return (i, init) => fetch(i, init);
  const dispatcher = new Agent({ connect: { ca: cfg.ca, cert: cfg.cert, key: cfg.key, rejectUnauthorized: !cfg.insecure } });
  return ((i: string | URL | Request, init?: RequestInit) =>
    undiciFetch(i as never, { ...(init as object), dispatcher } as never)) as unknown as FetchLike;
}

/** tokenOf returns the config's bearer token now (running an exec plugin or reading the file), if any. */
export async function tokenOf(cfg: ClusterConfig): Promise<string | undefined> {
  return typeof cfg.token === "function" ? cfg.token() : cfg.token;
}

/** clientFor returns a KubeClient for the config. */
export function clientFor(cfg: ClusterConfig): KubeClient {
  return createKubeClient({ baseUrl: cfg.server, token: cfg.token, fetch: fetchFor(cfg) });
}
