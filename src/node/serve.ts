/**
 * `ordinal serve` (Node): the same hono app as the Worker, over HTTP or HTTPS (optionally
 * verifying client certificates), plus the reconcile loop. With no cluster configured it runs
 * on an embedded simulated cluster (the in-process fake apiserver and a kubelet player) and
 * shows a set being created and rolled out.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import type { TLSSocket } from "node:tls";
import { serve } from "@hono/node-server";
import { generateWebhookKeys } from "../admission/token.ts";
import { lookupStatefulSetWith } from "../admission/lookup.ts";
import { createApp } from "../http/app.ts";
import type { KubeClient } from "../kube/client.ts";
import { jsonLogger, type Logger } from "../reconciler/log.ts";
import { runReconcile } from "../reconciler/loop.ts";
import { appDepsFrom, registrationRepair, settingsFrom } from "../runtime-config.ts";
import { clientFor, clusterConfigFromEnv } from "./kubeconfig.ts";
import { startSimulation } from "./simulation.ts";

interface ServeFlags {
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

function parseFlags(args: string[]): ServeFlags {
  const get = (n: string) => {
    const i = args.indexOf(n);
    return i >= 0 ? args[i + 1] : undefined;
  };
  return {
    port: Number(get("--port") ?? process.env.PORT ?? 8443),
    host: get("--host") ?? process.env.HOST ?? "127.0.0.1",
    tlsCert: get("--tls-cert") ?? process.env.TLS_CERT_FILE,
    tlsKey: get("--tls-key") ?? process.env.TLS_KEY_FILE,
    clientCa: get("--client-ca") ?? process.env.TLS_CLIENT_CA_FILE,
    intervalMs: Number(get("--interval-ms") ?? process.env.RECONCILE_INTERVAL_MS ?? 10_000),
    simulate: args.includes("--simulate"),
    exitAfterMs: Number(get("--exit-after-ms") ?? 0),
  };
}

/** serveCommand runs until killed (or --exit-after-ms) and returns the exit code. */
export async function serveCommand(args: string[]): Promise<number> {
  const flags = parseFlags(args);
  const cluster = flags.simulate ? undefined : clusterConfigFromEnv();
  const level = (process.env.LOG_LEVEL as "info" | "warn" | "error" | undefined) ?? (cluster ? "info" : "warn");
  const log = jsonLogger((l) => console.error(l), {}, level);
  const vars = { ...process.env } as Record<string, string | undefined>;
  for (const k of ["WEBHOOK_JWKS", "WEBHOOK_PUBLIC_KEY"]) {
    const file = process.env[`${k}_FILE`];
    if (file) vars[k] = readFileSync(file, "utf8");
  }
  if (flags.clientCa) vars.WEBHOOK_MTLS = "true";
  let client: KubeClient;
  let simulation: Awaited<ReturnType<typeof startSimulation>> | undefined;
  if (cluster) {
    client = clientFor(cluster);
    log.info("using cluster", { source: cluster.source, server: cluster.server });
  } else {
    simulation = await startSimulation(log);
    client = simulation.client;
    flags.intervalMs = Math.min(flags.intervalMs, 300);
    log.info("no cluster configured: running on an embedded simulated cluster");
  }
  if (!vars.WEBHOOK_JWKS && !vars.WEBHOOK_PUBLIC_KEY && !flags.clientCa) {
    if (cluster) {
      log.error("webhook authentication is not configured: set WEBHOOK_JWKS(_FILE) or WEBHOOK_PUBLIC_KEY(_FILE), or --client-ca");
      return 2;
    }
    // Simulation only: an ephemeral key, so the webhooks still refuse unauthenticated calls.
    vars.WEBHOOK_JWKS = JSON.stringify((await generateWebhookKeys()).jwks);
  }
  const settings = settingsFrom(vars);
  const loop = new ReconcileLoop(client, log, settings.leaseNamespace, flags.intervalMs, simulation ? 5_000 : Math.min(settings.budgetMs, flags.intervalMs * 4));
  loop.beforePass = registrationRepair(client, settings);
  const app = createApp({
    ...appDepsFrom(settings),
    log,
    lookupStatefulSet: lookupStatefulSetWith(client),
    isClientCertVerified: (c) => {
      const socket = (c.env as { incoming?: { socket?: TLSSocket } } | undefined)?.incoming?.socket;
      return !!socket && "authorized" in socket && socket.authorized === true;
    },
    onManagedPodStatus: () => loop.wake(),
  });
  const tls = flags.tlsCert && flags.tlsKey;
  const server = serve({
    fetch: app.fetch,
    port: flags.port,
    hostname: flags.host,
    ...(tls
      ? {
          createServer: createHttpsServer,
          serverOptions: {
            cert: readFileSync(flags.tlsCert!),
            key: readFileSync(flags.tlsKey!),
            ...(flags.clientCa ? { ca: readFileSync(flags.clientCa), requestCert: true, rejectUnauthorized: false } : {}),
          },
        }
      : {}),
  });
  log.info("serving", { url: `${tls ? "https" : "http"}://${flags.host}:${flags.port}` });
  loop.start();
  const stop = async () => {
    await loop.stop();
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

/**
 * ReconcileLoop runs an invocation every `intervalMs`, or sooner when woken (a webhook saw a
 * managed pod's status change). Invocations never overlap within the process; the Lease keeps
 * other processes and Workers out.
 */
export class ReconcileLoop {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private stopped = false;
  private readonly holder = `node-${randomUUID().slice(0, 8)}`;
  private readonly abort = new AbortController();
  private current: Promise<void> | undefined;
  beforePass?: () => Promise<void>;

  constructor(
    private readonly client: KubeClient,
    private readonly log: Logger,
    private readonly leaseNamespace: string,
    private readonly intervalMs: number,
    private readonly budgetMs: number,
  ) {}

  start(): void {
    this.schedule(0);
  }
  /** stop ends the loop; resolves once the invocation in flight (if any) has released the lease. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    if (this.timer) clearTimeout(this.timer);
    await this.current;
  }
  /** wake asks for an invocation as soon as the current one (if any) ends. */
  wake(): void {
    if (this.running) this.again = true;
    else this.schedule(0);
  }
  private schedule(ms: number) {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.current = this.tick();
    }, ms);
  }
  private async tick() {
    this.running = true;
    try {
      await runReconcile(this.client, {
        log: this.log,
        holder: this.holder,
        leaseNamespace: this.leaseNamespace,
        budgetMs: this.budgetMs,
        idleMs: Math.min(1000, this.intervalMs),
        beforePass: this.beforePass,
        signal: this.abort.signal,
      });
    } catch (e) {
      this.log.error("reconcile invocation failed", { error: e instanceof Error ? e.message : String(e) });
    } finally {
      this.running = false;
      this.schedule(this.again ? 0 : this.intervalMs);
      this.again = false;
    }
  }
}
