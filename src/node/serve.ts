/**
 * `ordinal serve` (Node): the same hono app as the Worker, over HTTP or HTTPS (optionally
 * verifying client certificates), plus the reconcile loop. With no cluster configured it runs
 * on an embedded simulated cluster (the in-process fake apiserver and a kubelet player) and
 * shows a set being created and rolled out.
 */
import { readFileSync } from "node:fs";
import type { Server as HttpServer } from "node:http";
import { createServer as createHttpsServer, type ServerOptions as HttpsServerOptions } from "node:https";
import type { TLSSocket } from "node:tls";
import { serve, type ServerType } from "@hono/node-server";
import { checkTokenVerifierKeys, generateWebhookKeys } from "../auth/token.ts";
import { parseSubjectAltName } from "../auth/webhook-auth.ts";
import { lookupStatefulSetWith } from "../admission/lookup.ts";
import { mayDeletePodWith } from "../admission/delete-access.ts";
import { createApp } from "../http/app.ts";
import type { KubeClient, WatchClient } from "../kube/client.ts";
import { jsonLogger } from "../log/log.ts";
import { buildReconciler } from "../reconciler-stack.ts";
import { nodeReconciler } from "./reconciler.ts";
import { checkSettings, setting, SettingError } from "../settings.ts";
import { electionFor } from "../lease/elector.ts";
import { newHolderIdentity } from "../lease/identity.ts";
import { isReconcileThread, reconcileThreadMain, ReconcileThread } from "./reconcile-thread.ts";
import { INSTALL_NAMESPACE, usernameFromToken } from "../deploy/identity.ts";
import { appDepsFrom, settingsFrom, type OrdinalSettings } from "../runtime-config.ts";
import { clientFor, clusterConfigFromEnv, tokenOf } from "./kubeconfig.ts";

import type { Simulation } from "./simulation.ts";
import { ensureServingCert, serviceHosts, type ServingCert } from "./serving-cert.ts";
import { instrumentClient } from "../metrics/instrument.ts";
import { countIdentityRefusals, Metrics, metricsLogger, prometheusOf } from "../metrics/metrics.ts";
import { probeReconcilerIdentity } from "../reconciler/identity-probe.ts";
import { ReconcilerReadiness } from "./readiness.ts";
import { registrationCheck } from "../webhook-config/registration-check.ts";
import { warmAdmission } from "./warm-admission.ts";
import { nodeBody } from "./node-body.ts";
import { receiveForwardedWake, WAKE_FORWARD_PATH, wakeForwarding } from "./wake-forward.ts";
import { objectBudgetFor } from "../reconciler/namespace-budget.ts";

export interface ServeFlags {
  port: number;
  host: string;
  tlsCert?: string;
  tlsKey?: string;
  clientCa?: string;
  intervalMs: number;
  simulate: boolean;
  /** Stop after this many ms (demo runs, tests); 0 = run until killed. */
  exitAfterMs: number;
}

/**
 * Limits of the public-facing HTTP(S) server: a slow or idle client (slowloris) is cut off and the
 * number of open connections is capped, so the apiserver's own calls are not starved.
 */
export const SERVER_LIMITS = {
  /** Whole request, headers and body (the apiserver's webhook timeout is at most 30 s). */
  requestTimeout: 15_000,
  /** Headers must arrive within this. */
  headersTimeout: 5_000,
  /** An idle keep-alive connection is closed after this (the apiserver reuses its connections). */
  keepAliveTimeout: 30_000,
  /** How often Node checks the two timeouts above (its default is 30 s). */
  connectionsCheckingInterval: 1_000,
  /** Open connections at most; more are refused at once. */
  maxConnections: 1_000,
  /** Requests served per keep-alive connection at most (0 = unlimited). */
  maxRequestsPerSocket: 0,
} as const;

/**
 * listen serves `fetch` over HTTP, or HTTPS with `tls` options, with SERVER_LIMITS (or `limits`,
 * for tests) applied, and returns the Node server.
 */
export function listen(
  fetch: (req: Request, env?: unknown) => Response | Promise<Response>,
  opts: { port: number; host: string; tls?: HttpsServerOptions },
  limits: { [K in keyof typeof SERVER_LIMITS]: number } = SERVER_LIMITS,
): ServerType {
  const { maxConnections, maxRequestsPerSocket, keepAliveTimeout, ...checked } = limits;
  const server = serve({
    fetch,
    port: opts.port,
    hostname: opts.host,
    ...(opts.tls ? { createServer: createHttpsServer, serverOptions: { ...checked, ...opts.tls } } : { serverOptions: checked }),
  }) as HttpServer;
  server.maxConnections = maxConnections;
  server.keepAliveTimeout = keepAliveTimeout;
  server.maxRequestsPerSocket = maxRequestsPerSocket;
  return server;
}

/**
 * withKeyFiles returns the environment with WEBHOOK_JWKS and WEBHOOK_PUBLIC_KEY read from the files
 * WEBHOOK_JWKS_FILE and WEBHOOK_PUBLIC_KEY_FILE name (a Secret mounted as files); a variable set
 * both ways is refused. The environment itself is not changed.
 */
function withKeyFiles(env: Readonly<Record<string, string | undefined>>): Readonly<Record<string, string | undefined>> {
  const files: Record<string, string> = {};
  for (const [k, f] of [["WEBHOOK_JWKS", "WEBHOOK_JWKS_FILE"], ["WEBHOOK_PUBLIC_KEY", "WEBHOOK_PUBLIC_KEY_FILE"]] as const) {
    const path = setting(env, f);
    if (!path) continue;
    if (setting(env, k)) throw new SettingError(`both ${k} and ${f} are set: unset one`);
    files[k] = readFileSync(path, "utf8");
  }
  return Object.freeze({ ...env, ...files });
}

/**
 * replicaIdentity returns this process's identity on the Leases and in its User-Agent: the pod's
 * name (POD_NAME; `node` without one) and 8 hex digits new at each start, so a restarted process
 * never takes its predecessor's Leases for its own.
 */
export const replicaIdentity = (podName: string | undefined): string => newHolderIdentity(podName ?? "node");

/**
 * serveCommand runs until killed (or --exit-after-ms) and returns the exit code; `env` is the
 * process's environment, read (src/settings.ts), never written. Throws a SettingError for a refused setting.
 */
export async function serveCommand(flags: ServeFlags, env: Readonly<Record<string, string | undefined>> = process.env): Promise<number> {
  // The same command line runs the reconcile thread (reconcile-thread.ts): it only reconciles.
  if (isReconcileThread()) return reconcileThreadMain();
  // The inputs, read once and never written: the environment, and the key files it names.
  checkSettings(env, "serve");
  const vars = withKeyFiles(env);
  const cluster = flags.simulate ? undefined : clusterConfigFromEnv(vars);
  // The reconciler's identity on the Leases, and its User-Agent (the apiserver's audit log tells replicas apart).
  const holder = replicaIdentity(setting(vars, "POD_NAME"));
  const given = settingsFrom(vars);
  const log = jsonLogger((l) => console.error(l), {}, given.logLevel ?? (cluster ? "info" : "warn"));
  // --client-ca turns client certificates on, as WEBHOOK_MTLS=true does.
  let auth = flags.clientCa ? { ...given.auth, mtlsClientNames: setting(vars, "WEBHOOK_MTLS_CLIENT_NAMES") } : given.auth;
  if (auth.jwt) {
    try {
      await checkTokenVerifierKeys(auth.jwt);
    } catch (e) {
      throw new SettingError(`webhook public key is unusable: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  if (flags.clientCa && !auth.mtlsClientNames?.length) {
    throw new SettingError("--client-ca needs WEBHOOK_MTLS_CLIENT_NAMES: the CN or SANs the apiserver's client certificate carries (any certificate of the CA is not enough)");
  }
  let client: KubeClient;
  /** The client that watches (the instrumented one passes lists only): the watch cache's. */
  let watcher: KubeClient & WatchClient;
  let simulation: Simulation | undefined;
  let reconcilerUsername = given.reconcilerUsername;
  const metrics = new Metrics();
  if (cluster) {
    watcher = clientFor(cluster, `ordinal/${holder}`);
    client = instrumentClient(watcher, metrics, log);
    // The webhooks let only the reconciler change a pod's identity: learn our own username from
    // our token (a ServiceAccount's), unless RECONCILER_USERNAME says it.
    reconcilerUsername = setting(vars, "RECONCILER_USERNAME") ?? usernameFromToken(await tokenOf(cluster)) ?? reconcilerUsername;
    log.info("using cluster", { source: cluster.source, server: cluster.server, reconcilerUsername });
  } else {
    // Loaded only here: the simulated cluster is a quarter of the code and a real cluster never needs it.
    const { startSimulation } = await import("./simulation.ts");
    simulation = await startSimulation(log);
    client = watcher = simulation.client;
    flags.intervalMs = Math.min(flags.intervalMs, 300);
    log.info("no cluster configured: running on an embedded simulated cluster");
  }
  if (!auth.jwt && !flags.clientCa && !auth.unauthenticated) {
    if (cluster) {
      throw new SettingError("webhook authentication is not configured: set WEBHOOK_JWKS(_FILE) or WEBHOOK_PUBLIC_KEY(_FILE), or --client-ca, or WEBHOOK_AUTH=none (see docs/security.md)");
    }
    // Simulation only: an ephemeral key, so the webhooks still refuse unauthenticated calls.
    auth = { ...auth, jwt: { jwks: JSON.stringify((await generateWebhookKeys()).jwks) } };
  }
  let servingCert: ServingCert | undefined;
  let webhookCaBundle = given.webhookCaBundle;
  const tlsSecret = setting(vars, "WEBHOOK_TLS_SECRET");
  if (cluster && tlsSecret && !(flags.tlsCert && flags.tlsKey)) {
    // In the cluster (deploy/): one certificate for all replicas, kept in a Secret; its CA becomes the caBundle.
    const service = given.webhookService ?? { namespace: INSTALL_NAMESPACE, name: "ordinal-webhooks" };
    const hosts = [...serviceHosts(service), ...setting(vars, "WEBHOOK_CERT_HOSTS")];
    servingCert = await ensureServingCert(client, { namespace: service.namespace, name: tlsSecret }, hosts);
    webhookCaBundle ??= Buffer.from(servingCert.ca).toString("base64");
    log.info("serving certificate from Secret", { secret: `${service.namespace}/${tlsSecret}`, hosts });
  }
  // The settings, with what serve learned: the reconciler's username, the ephemeral key, the caBundle.
  const settings: OrdinalSettings = { ...given, auth, reconcilerUsername, webhookCaBundle };
  // Does Ordinal's webhook take us for the reconciler? Asked at start and while it says no (GET /readyz).
  // /readyz also fails while no webhook configuration points at this server (its address: WEBHOOK_URL or WEBHOOK_SERVICE).
  const registered = cluster ? registrationCheck(client, { url: settings.webhookUrl, service: settings.webhookService }) : undefined;
  const readiness = new ReconcilerReadiness(() => probeReconcilerIdentity(client, settings.leaseNamespace), log, () => countIdentityRefusals(metrics, 1), Date.now, registered);
  const scheduling = {
    holder,
    election: electionFor(setting(vars, "RECONCILE_LEASE_SECONDS")),
    intervalMs: flags.intervalMs,
    budgetMs: simulation ? 5_000 : Math.min(settings.budgetMs, flags.intervalMs * 4),
    idleMs: Math.min(1000, flags.intervalMs),
    // What a pass may hold of one namespace follows the reconcile thread's heap (namespace-budget.ts).
    ...(cluster && setting(vars, "RECONCILE_HEAP_MB") > 0 ? { objectBudget: objectBudgetFor(setting(vars, "RECONCILE_HEAP_MB")) } : {}),
  };
  // A standby replica forwards its wakes to the leader (wake-forward.ts): with a pod IP and a TLS key.
  const tlsKey = servingCert?.key ?? (flags.tlsKey ? readFileSync(flags.tlsKey) : undefined);
  const tlsCa = servingCert?.ca ?? (flags.tlsCert ? readFileSync(flags.tlsCert) : undefined);
  const forwarding = cluster && tlsKey && tlsCa ? wakeForwarding(setting(vars, "POD_IP"), flags.port, { key: tlsKey, ca: tlsCa }) : undefined;
  const heapMb = setting(vars, "RECONCILE_HEAP_MB");
  // Parsed here too, so a refused value stops the server at start, not in the reconcile thread.
  const shards = setting(vars, "RECONCILE_SHARDS");
  setting(vars, "WATCH_CACHE_MB");
  // On a cluster the reconciler runs in a heap-bounded thread; the simulation's fake apiserver
  // lives in this thread, so there (or with RECONCILE_HEAP_MB=0) it runs here.
  // The mutating hook's set cache is filled from the apiserver only: each set the watch sees appear (and GETs).
  const lookup = lookupStatefulSetWith(client);
  const thread =
    cluster && heapMb > 0
      ? new ReconcileThread(log, heapMb, { vars, settings, scheduler: scheduling, forwarding }, { onPass: (summary) => void readiness.observe(summary), onSet: lookup.remember })
      : undefined;
  // Otherwise here: the stack every runtime builds (reconciler-stack.ts), counting in this thread's metrics.
  const here = thread
    ? undefined
    : nodeReconciler(buildReconciler(client, { settings, log, metrics, instrumented: true }), {
        vars,
        watcher,
        log,
        leaseNamespace: settings.leaseNamespace,
        scheduling,
        forwarding,
        shards,
        sighted: lookup.remember,
        onPass: (pass) => void readiness.observe({ passes: [pass] }),
      });
  const loop = thread ?? here!.loop;
  const cache = here?.cache;
  const deps = appDepsFrom(settings);
  const app = createApp({
    ...deps,
    log: metricsLogger(log, metrics),
    lookupStatefulSet: lookup,
    mayDeletePod: mayDeletePodWith(client),
    clientCertificate: (c) => {
      const socket = (c.env as { incoming?: { socket?: TLSSocket } } | undefined)?.incoming?.socket;
      if (!socket || !("authorized" in socket) || socket.authorized !== true) return undefined;
      const peer = socket.getPeerCertificate();
      return { cn: typeof peer.subject?.CN === "string" ? peer.subject.CN : undefined, sans: parseSubjectAltName(peer.subjectaltname) };
    },
    onWake: (wake) => loop.wake(wake),
    bodySource: nodeBody,
  });
  const tls = (flags.tlsCert && flags.tlsKey) || servingCert;
  const tlsOptions = tls
    ? {
        cert: servingCert?.cert ?? readFileSync(flags.tlsCert!),
        key: servingCert?.key ?? readFileSync(flags.tlsKey!),
        ...(flags.clientCa ? { ca: readFileSync(flags.clientCa), requestCert: true, rejectUnauthorized: false } : {}),
      }
    : undefined;
  // GET /metrics: Prometheus text (Node only; the Worker logs the same counters per invocation).
  // GET /readyz: the reconciler's readiness (503 while the webhook refuses its identity, or while no webhook configuration points here).
  // POST /internal/wake: a wake the standby replica forwarded (signed; wake-forward.ts).
  const fetchWithMetrics = (req: Request, env?: unknown) => {
    const path = req.method === "GET" ? new URL(req.url).pathname : "";
    if (path === "/metrics") return new Response(prometheusOf(metrics.state(), thread?.metrics), { headers: { "content-type": "text/plain; version=0.0.4" } });
    if (path === "/readyz") return readiness.response();
    if (forwarding && req.method === "POST" && new URL(req.url).pathname === WAKE_FORWARD_PATH) return receiveForwardedWake(req, forwarding.key, (w) => loop.wake(w, true));
    return app.fetch(req, env);
  };
  // The admission path compiled before the first real call (warm-admission.ts): a set's CREATE is rare and ran cold.
  await warmAdmission(deps);
  const server = listen(fetchWithMetrics, { port: flags.port, host: flags.host, tls: tlsOptions });
  await new Promise<void>((r) => (server.listening ? r() : server.once("listening", () => r())));
  const address = server.address();
  const url = `${tls ? "https" : "http"}://${flags.host}:${typeof address === "object" && address ? address.port : flags.port}`;
  log.info("serving", { url });
  // npm start logs at warn (the simulation's own lines are on stdout): say there where the webhooks answer.
  if (simulation) console.log(`webhooks: ${url} (GET / lists them; /healthz, /metrics)`);
  // The probe after listening: the webhooks it asks may be this very server's.
  void readiness.observe();
  loop.start();
  const stop = async () => {
    await Promise.all([loop.stop(), cache?.stop()]);
    simulation?.stop();
    await new Promise<void>((r) => server.close(() => r()));
  };
  process.once("SIGINT", () => void stop().then(() => process.exit(0)));
  process.once("SIGTERM", () => void stop().then(() => process.exit(0)));
  if (flags.exitAfterMs > 0) {
    await new Promise((r) => setTimeout(r, flags.exitAfterMs));
    await stop();
  } else {
    await new Promise(() => {});
  }
  return 0;
}
