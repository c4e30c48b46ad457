/**
 * Node-only cluster configuration: a KubeClient from KUBECONFIG (token, token file, client
 * certificate, custom CA, insecure-skip-tls-verify, exec credential plugins) or from
 * KUBE_API_URL + KUBE_TOKEN (+ KUBE_CA_FILE). Requests go through undici (apiserver-fetch.ts), which is
 * why this lives under src/node and never reaches the Worker bundle.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { promisify } from "node:util";
import { parse } from "yaml";
import type { KubeClient, WatchClient } from "../kube/client.ts";
import { createKubeClient, type FetchLike } from "../kube/http.ts";
import { apiserverFetch } from "./apiserver-fetch.ts";
import { checkKubeToken, setting, SettingError } from "../settings.ts";

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

/**
 * readFileNamed returns a file's text, or throws an error that names the file and what it was for
 * (a raw ENOENT says neither).
 */
function readFileNamed(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as { code?: string }).code;
    const why = code === "ENOENT" ? "not found" : code === "EACCES" ? "not readable (permission denied)" : code === "EISDIR" ? "is a directory" : e instanceof Error ? e.message : String(e);
    throw new Error(`${what} ${path}: ${why}`, { cause: e });
  }
}

/**
 * caFile returns the PEM text of KUBE_CA_FILE, refusing a file without a certificate (an empty
 * ca.crt from a kubeconfig that names its CA by path: `certificate-authority-data` is then empty)
 * rather than failing later with "unknown authority".
 */
function caFile(path: string): string {
  const pem = readFileNamed(path, "KUBE_CA_FILE");
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) {
    throw new SettingError(`KUBE_CA_FILE ${path} holds no PEM certificate (${pem.trim() ? "not PEM" : "empty"}); if the kubeconfig names its CA by path (certificate-authority), point KUBE_CA_FILE at that file`);
  }
  return pem;
}

/** loadKubeconfig returns the cluster config of the current context of a kubeconfig file. */
function loadKubeconfig(path: string, context?: string): ClusterConfig {
  const doc = parse(readFileNamed(path, "kubeconfig")) as KubeconfigFile | null;
  const ctxName = context ?? doc?.["current-context"];
  const ctx = doc?.contexts?.find((c) => c.name === ctxName) ?? doc?.contexts?.[0];
  if (!ctx) throw new Error(`kubeconfig ${path}: no context ${ctxName ?? ""}`);
  const cluster = doc?.clusters?.find((c) => c.name === ctx.context.cluster)?.cluster;
  if (!cluster) throw new Error(`kubeconfig ${path}: no cluster ${ctx.context.cluster}`);
  const user = doc?.users?.find((u) => u.name === ctx.context.user)?.user ?? {};
  const file = (p: string, field: string) => readFileNamed(p, `kubeconfig ${path}: ${field}`);
  const cfg: ClusterConfig = { server: cluster.server, source: `kubeconfig ${path} context ${ctx.name}`, insecure: cluster["insecure-skip-tls-verify"], namespace: ctx.context.namespace };
  if (cluster["certificate-authority-data"]) cfg.ca = b64(cluster["certificate-authority-data"]);
  else if (cluster["certificate-authority"]) cfg.ca = file(cluster["certificate-authority"], "certificate-authority");
  if (user["client-certificate-data"]) cfg.cert = b64(user["client-certificate-data"]);
  else if (user["client-certificate"]) cfg.cert = file(user["client-certificate"], "client-certificate");
  if (user["client-key-data"]) cfg.key = b64(user["client-key-data"]);
  else if (user["client-key"]) cfg.key = file(user["client-key"], "client-key");
  if (user.token) cfg.token = user.token;
  else if (user.tokenFile) cfg.token = file(user.tokenFile, "tokenFile").trim();
  else if (user.exec) cfg.token = execTokenSource(user.exec);
  return cfg;
}

/**
 * execTokenSource returns a token getter that runs an exec credential plugin, caching until expiry.
 * Its errors name the plugin and its exit code only: the command line (which may carry a client
 * secret) and the plugin's output (which may carry a token) never reach a message or a log.
 */
function execTokenSource(exec: { command: string; args?: string[]; env?: { name: string; value: string }[] }) {
  let cached: { token: string; expires: number } | undefined;
  const plugin = `exec credential plugin ${JSON.stringify(exec.command)}`;
  return async () => {
    if (cached && cached.expires > Date.now() + 10_000) return cached.token;
    const env = { ...process.env, ...Object.fromEntries((exec.env ?? []).map((e) => [e.name, e.value])) };
    let stdout: string;
    try {
      ({ stdout } = await run(exec.command, exec.args ?? [], { env }));
    } catch (e) {
      const { code, signal } = e as { code?: unknown; signal?: unknown };
      // No `cause`: the child-process error carries the command line and the plugin's output.
      // eslint-disable-next-line preserve-caught-error
      if (code === "ENOENT") throw new Error(`${plugin} not found (is it installed and on PATH?)`);
      // eslint-disable-next-line preserve-caught-error
      throw new Error(`${plugin} failed: ${typeof signal === "string" && signal ? `killed by ${signal}` : `exit code ${String(code)}`}`);
    }
    let cred: { status?: { token?: string; expirationTimestamp?: string } } | undefined;
    try {
      cred = JSON.parse(stdout) as typeof cred;
    } catch {
      // The parse error is dropped on purpose: its message quotes the start of the output.
      throw new Error(`${plugin} printed no ExecCredential JSON`);
    }
    const token = cred?.status?.token;
    if (!token) throw new Error(`${plugin} returned no token`);
    cached = { token, expires: cred?.status?.expirationTimestamp ? Date.parse(cred.status.expirationTimestamp) : Date.now() + 60_000 };
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
export function clusterConfigFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): ClusterConfig | undefined {
  const server = setting(env, "KUBE_API_URL");
  const kubeconfig = setting(env, "KUBECONFIG");
  const token = setting(env, "KUBE_TOKEN");
  if (server && kubeconfig) {
    throw new SettingError("both KUBE_API_URL and KUBECONFIG are set: unset one (KUBE_API_URL + KUBE_TOKEN [+ KUBE_CA_FILE], or KUBECONFIG)");
  }
  if (token && !server) throw new SettingError("KUBE_TOKEN is set without KUBE_API_URL: set KUBE_API_URL too, or unset KUBE_TOKEN to use KUBECONFIG");
  if (server) {
    checkKubeToken(env);
    const ca = setting(env, "KUBE_CA_FILE");
    return { server, token, ca: ca ? caFile(ca) : undefined, source: "KUBE_API_URL" };
  }
  const serviceHost = setting(env, "KUBERNETES_SERVICE_HOST");
  if (serviceHost && !kubeconfig) {
    // In a pod: the service account's rotated token is re-read on every request.
    const sa = "/var/run/secrets/kubernetes.io/serviceaccount";
    return {
      server: `https://${serviceHost}:${setting(env, "KUBERNETES_SERVICE_PORT")}`,
      token: async () => readFileSync(`${sa}/token`, "utf8").trim(),
      ca: readFileSync(`${sa}/ca.crt`, "utf8"),
      source: "in-cluster service account",
      namespace: existsSync(`${sa}/namespace`) ? readFileSync(`${sa}/namespace`, "utf8").trim() : undefined,
    };
  }
  const home = `${homedir()}/.kube/config`;
  const path = kubeconfig?.split(":").find(Boolean) || (existsSync(home) ? home : undefined);
  return path ? loadKubeconfig(path) : undefined;
}

/** fetchFor returns the apiserver transport with the config's TLS settings (CA, client cert, insecure): see apiserver-fetch.ts. */
export function fetchFor(cfg: ClusterConfig): FetchLike {
  return apiserverFetch({ ca: cfg.ca, cert: cfg.cert, key: cfg.key, insecure: cfg.insecure });
}

/** tokenOf returns the config's bearer token now (running an exec plugin or reading the file), if any. */
export async function tokenOf(cfg: ClusterConfig): Promise<string | undefined> {
  return typeof cfg.token === "function" ? cfg.token() : cfg.token;
}

/** clientFor returns a KubeClient for the config (`userAgent`: what the apiserver's audit log names it; default "ordinal"). */
export function clientFor(cfg: ClusterConfig, userAgent?: string): KubeClient & WatchClient {
  return createKubeClient({ baseUrl: cfg.server, token: cfg.token, fetch: fetchFor(cfg), userAgent });
}
