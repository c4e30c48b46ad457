/**
 * Webhook servers for the e2e suite: `ordinal serve` on Node over https://127.0.0.1:28443, and
 * the Worker under `wrangler dev` over https://127.0.0.1:28787 — the two host:ports the test
 * apiserver's admission kubeconfig presents the JWT to. The Worker reaches the apiserver through
 * a plain-HTTP forwarding proxy (as a Workers VPC tunnel would), since workerd cannot be told to
 * trust the test cluster's private CA. And `ordinal local` (startLocal), as a person runs it.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { fetchFor } from "../../src/node/kubeconfig.ts";
import { R } from "../../src/kube/resources.ts";
import { admin, env, kubectl, sleep } from "./support.ts";

export const KEYS = process.env.ORDINAL_WEBHOOK_KEYS ?? `${process.env.ORDINAL_CLUSTER_DIR ?? "/tmp/ordinal-e2e-cluster"}.keys`;
export const NODE_URL = "https://127.0.0.1:28443";
export const WORKER_URL = "https://127.0.0.1:28787";
export const caBundle = () => Buffer.from(readFileSync(`${KEYS}/tls.crt`)).toString("base64");

export interface Running {
  proc: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

function start(cmd: string, args: string[], extraEnv: Record<string, string>): Running {
  let out = "";
  const proc = spawn(cmd, args, { env: { ...process.env, ...extraEnv }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  proc.stdout!.on("data", (d) => (out += String(d)));
  proc.stderr!.on("data", (d) => (out += String(d)));
  return {
    proc,
    output: () => out,
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return; // exited, or killed by a signal
      try {
        process.kill(-proc.pid!, "SIGTERM");
      } catch {
        /* already gone */
      }
      // Graceful: `ordinal serve` finishes its invocation and releases the Lease before exiting;
      // one that has not exited after 10 s is killed, so no stopped server renews a Lease the next
      // file's server waits for.
      const exited = new Promise((r) => proc.once("exit", r));
      const graceful = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 10_000))]);
      if (!graceful) {
        try {
          process.kill(-proc.pid!, "SIGKILL");
        } catch {
          /* already gone */
        }
        await exited;
      }
    },
  };
}

/** webhookFetch is a fetch that trusts the webhook servers' test certificate. */
export const webhookFetch = fetchFor({ server: NODE_URL, ca: readFileSync(`${KEYS}/tls.crt`, "utf8"), source: "e2e webhook servers" });

/** waitHealthy polls `${url}/healthz` (trusting the test CA) until it answers ok. */
export async function waitHealthy(url: string, r: Running, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      const res = await webhookFetch(`${url}/healthz`);
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    if (r.proc.exitCode !== null) throw new Error(`server exited (${r.proc.exitCode}):\n${r.output()}`);
    await new Promise((res) => setTimeout(res, 300));
  }
  throw new Error(`${url} not healthy after ${timeoutMs} ms:\n${r.output()}`);
}

/**
 * freeReconcilerLease deletes the reconciler Leases (`ordinal-reconciler`, shards', replicas') a
 * server of an earlier file may have left (a killed one does not release them): each e2e server is
 * the only reconciler, and one that found a Lease would rightly wait its whole duration, observed,
 * before acting (a live one of another shard count too).
 */
function freeReconcilerLease(): void {
  const kubeEnv = { ...process.env, KUBECONFIG: env.KUBECONFIG };
  const names = execFileSync("kubectl", ["-n", "ordinal-system", "get", "leases", "-o", "name"], { env: kubeEnv, encoding: "utf8" })
    .split("\n")
    .filter((n) => n.startsWith("lease.coordination.k8s.io/ordinal-reconciler"));
  if (names.length) execFileSync("kubectl", ["-n", "ordinal-system", "delete", ...names, "--ignore-not-found"], { env: kubeEnv, stdio: "ignore" });
}

/**
 * startNodeServer runs `ordinal serve` with TLS as the reconciler identity on `port` (default
 * 28443; the apiserver calls webhooks on 28443 and 28444), the Leases freed first unless
 * `keepLeases` (a second replica beside a running one).
 */
export function startNodeServer(extraEnv: Record<string, string> = {}, o: { port?: number; keepLeases?: boolean } = {}): Running {
  if (!o.keepLeases) freeReconcilerLease();
  return start("node", ["src/cli/bin.mjs", "serve", "--port", String(o.port ?? 28443), "--tls-cert", `${KEYS}/tls.crt`, "--tls-key", `${KEYS}/tls.key`, "--interval-ms", "1000"], {
    KUBE_API_URL: env.KUBE_API_URL,
    KUBE_TOKEN: env.KUBE_RECONCILER_TOKEN,
    KUBE_CA_FILE: env.KUBE_CA_FILE,
    KUBECONFIG: "",
    WEBHOOK_JWKS_FILE: `${KEYS}/jwks.json`,
    RECONCILER_USERNAME: "ordinal-reconciler",
    LEASE_NAMESPACE: "ordinal-system",
    ...extraEnv,
  });
}

/** startApiProxy forwards plain HTTP on 127.0.0.1:port to the apiserver (TLS with the test CA), in its own process. */
export function startApiProxy(port: number): Running {
  return start("node", ["test/e2e/api-proxy.mjs", String(port)], { KUBE_API_URL: env.KUBE_API_URL, KUBE_CA_FILE: env.KUBE_CA_FILE });
}

/**
 * startWorker runs the Worker under `wrangler dev` over https on 28787, reaching the apiserver via
 * `apiUrl`; `vars` add to or replace its settings, `persistTo` keeps its Durable Objects' state in a
 * directory of the caller's (a restart that finds the objects of the run before); the reconciler
 * Leases are freed first unless `keepLeases` (a restart that must find the last run's).
 */
export function startWorker(apiUrl: string, o: { vars?: Record<string, string>; persistTo?: string; keepLeases?: boolean } = {}): Running {
  const vars: Record<string, string> = {
    KUBE_API_URL: apiUrl,
    KUBE_TOKEN: env.KUBE_RECONCILER_TOKEN,
    WEBHOOK_JWKS: readFileSync(`${KEYS}/jwks.json`, "utf8").replace(/\s+/g, ""),
    RECONCILER_USERNAME: "ordinal-reconciler",
    LEASE_NAMESPACE: "ordinal-system",
    RECONCILE_BUDGET_MS: "5000",
    ...o.vars,
  };
  const args = ["wrangler", "dev", "--ip", "127.0.0.1", "--port", "28787", "--local-protocol", "https", "--https-key-path", `${KEYS}/tls.key`, "--https-cert-path", `${KEYS}/tls.crt`, "--test-scheduled", "--show-interactive-dev-session=false"];
  if (o.persistTo) args.push("--persist-to", o.persistTo);
  for (const [k, v] of Object.entries(vars)) args.push("--var", `${k}:${v}`);
  if (!o.keepLeases) freeReconcilerLease();
  return start("npx", args, { CI: "true", WRANGLER_SEND_METRICS: "false" });
}

/** startRegisteredServer starts `ordinal serve` registering its own webhooks (create mode) and returns once it is healthy and its ValidatingWebhookConfiguration exists (or 30 s passed). */
export async function startRegisteredServer(): Promise<Running> {
  const server = startNodeServer({ WEBHOOK_URL: NODE_URL, WEBHOOK_CA_BUNDLE: caBundle() });
  await waitHealthy(NODE_URL, server);
  for (let i = 0; i < 60 && !(await admin.get(R.validatingWebhooks, undefined, "ordinal")); i++) await sleep(500);
  return server;
}

/** A running `ordinal local`: its URL, and waits that fail at once, with its output, if it exits. */
export interface LocalRun extends Running {
  url: string;
  /** until polls `f` every 300 ms until it returns a value; fails naming `what` with the command's output after `timeoutMs` (default the start's), or once it exited. */
  until<T>(what: string, f: () => Promise<T | undefined>, timeoutMs?: number): Promise<T>;
  /** interrupt is Ctrl-C: SIGINT to the command, which stops what it started and unregisters; returns its exit code. */
  interrupt(): Promise<number | null>;
  /** close interrupts the command if it still runs (then stops its process group) and removes the webhook configurations (afterAll). */
  close(): Promise<void>;
}

/**
 * startLocal runs `ordinal local` (`args`, e.g. `--worker`) on `port` as a person does — the
 * admin's kubeconfig the only credentials in its environment — after freeing the Leases and webhook
 * configurations an earlier file left; returns once its webhooks are registered at its URL and
 * `probe` (a path) answers ok over https through the CA it registered.
 */
export async function startLocal(o: { port: number; args?: string[]; env?: Record<string, string>; probe: string; timeoutMs: number }): Promise<LocalRun> {
  unregisterWebhooks();
  freeReconcilerLease();
  const url = `https://127.0.0.1:${o.port}`;
  const r = start("node", ["src/cli/bin.mjs", "local", ...(o.args ?? []), "--port", String(o.port)], { KUBECONFIG: env.KUBECONFIG, KUBE_API_URL: "", KUBE_TOKEN: "", KUBE_CA_FILE: "", ...o.env });
  const exited = new Promise<number | null>((res) => r.proc.once("exit", (code) => res(code)));
  const running = () => r.proc.exitCode === null && r.proc.signalCode === null;
  const until = async <T>(what: string, f: () => Promise<T | undefined>, timeoutMs = o.timeoutMs): Promise<T> => {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      const v = await f();
      if (v !== undefined) return v;
      if (!running()) break;
      await sleep(300);
    }
    throw new Error(`${what}: not within ${timeoutMs} ms\n${r.output().slice(-4000)}`);
  };
  const interrupt = () => {
    if (running()) r.proc.kill("SIGINT");
    return exited;
  };
  const run: LocalRun = {
    ...r,
    url,
    until,
    interrupt,
    close: async () => {
      // Ctrl-C first (it unregisters); one still running 15 s later goes as any e2e server does.
      await Promise.race([interrupt(), sleep(15_000)]);
      await r.stop();
      unregisterWebhooks();
    },
  };
  type Hooks = { webhooks: { clientConfig: { url?: string; caBundle?: string } }[] };
  const hooks = await until("the webhooks registered at the local URL", async () => {
    const h = await admin.get<Hooks>(R.mutatingWebhooks, undefined, "ordinal");
    return h?.webhooks.every((w) => w.clientConfig.url?.startsWith(`${url}/`)) ? h : undefined;
  });
  // The server's certificate is signed by the CA it registered: the probe through it, as the apiserver connects.
  const fetch = fetchFor({ server: url, ca: Buffer.from(hooks.webhooks[0].clientConfig.caBundle ?? "", "base64").toString(), source: "ordinal local" });
  await until(`${o.probe} answering over https`, async () => {
    try {
      return (await fetch(`${url}${o.probe}`)).ok ? true : undefined;
    } catch {
      return undefined;
    }
  });
  return run;
}

/** unregisterWebhooks deletes the webhook configurations a server registered: no failurePolicy: Fail hook is left pointing at a stopped server for the files that follow. */
export function unregisterWebhooks(): void {
  kubectl(["delete", "mutatingwebhookconfiguration", "ordinal", "--ignore-not-found"]);
  kubectl(["delete", "validatingwebhookconfiguration", "ordinal", "--ignore-not-found"]);
}
