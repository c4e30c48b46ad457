/**
 * The Cloudflare Worker's handlers (loaded by src/worker.ts on the isolate's first event): `fetch`
 * serves the admission webhooks (the hono app), `scheduled` runs reconcile passes on each cron
 * tick within a time and subrequest budget. Thin: all logic lives in src/http, src/admission,
 * src/reconciler and src/core.
 */
import { lookupStatefulSetWith } from "./admission/lookup.ts";
import { createApp } from "./http/app.ts";
import { wakeKey, type Wake } from "./admission/wakes.ts";
import type { KubeClient } from "./kube/client.ts";
import { createKubeClient, type FetchLike } from "./kube/http.ts";
import { jsonLogger } from "./log/log.ts";
import { runReconcile } from "./reconciler/loop.ts";
import { appDepsFrom, registrationRepair, settingsFrom } from "./runtime-config.ts";
import { checkKubeToken } from "./settings.ts";
import { isAuthConfigured } from "./auth/settings.ts";
import { unconfiguredApp } from "./http/unconfigured.ts";
import { instrumentClient } from "./metrics/instrument.ts";
import { Metrics, recordRun } from "./metrics/metrics.ts";

export interface Env {
  KUBE_API_URL?: string;
  KUBE_TOKEN?: string;
  /** Optional Workers VPC binding that reaches a private apiserver. */
  KUBE_API?: { fetch: FetchLike };
  /** Subrequests one invocation may make (Free 50, Paid 10,000); default 900. */
  MAX_SUBREQUESTS?: string;
  [key: string]: unknown;
}

/** The parts of the Workers runtime types this file uses (the full types clash with DOM's). */
export interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException(): void;
  props: unknown;
}
export interface ScheduledController {
  readonly scheduledTime: number;
  readonly cron: string;
}

/** The log before settings are read (their errors); each invocation then logs at its LOG_LEVEL. */
const log = jsonLogger();
const logAt = (s: ReturnType<typeof settingsFrom>) => jsonLogger(undefined, {}, s.logLevel ?? "info");

const vars = (env: Env) => Object.fromEntries(Object.entries(env).filter(([, v]) => typeof v === "string")) as Record<string, string>;

/** clientFor returns the apiserver client of this Worker, or undefined when no cluster is configured. */
function clientFor(env: Env): KubeClient | undefined {
  if (!env.KUBE_API_URL) return undefined;
  checkKubeToken(vars(env));
  const binding = env.KUBE_API;
  return createKubeClient({ baseUrl: env.KUBE_API_URL, token: env.KUBE_TOKEN, fetch: binding ? (i, init) => binding.fetch(i, init) : undefined });
}

/** reconcile runs one bounded invocation (a tick, or a hint for one set). */
async function reconcile(env: Env, scope: { namespace?: string; setName?: string; budgetMs?: number } = {}) {
  const s = settingsFrom(vars(env));
  const log = logAt(s);
  const raw = clientFor(env);
  if (!raw) {
    log.warn("no cluster configured (KUBE_API_URL); nothing to reconcile");
    return;
  }
  // Per invocation: the same counters as Node's /metrics, in the invocation's last log line.
  const metrics = new Metrics();
  const client = instrumentClient(raw, metrics, log);
  const started = Date.now();
  const result = await runReconcile(client, {
    log,
    holder: `worker-${crypto.randomUUID().slice(0, 8)}`,
    leaseNamespace: s.leaseNamespace,
    budgetMs: scope.budgetMs ?? s.budgetMs,
    maxRequests: s.maxSubrequests,
    namespace: scope.namespace,
    setName: scope.setName,
    beforePass: scope.setName ? undefined : registrationRepair(client, s, { log }),
  });
  recordRun(metrics, result, (Date.now() - started) / 1000);
  log.info("reconcile invocation done", { acquired: result.acquired, passes: result.passes.length, requests: client.requestCount, metrics: metrics.snapshot() });
}

/** Last hint per set in this isolate: kubelet status updates come in bursts; one pass serves them. */
const lastHint = new Map<string, number>();
const HINT_DEBOUNCE_MS = 5_000;

/** hint runs a bounded pass for a wake: of its set, or of the namespace for an ImageList wake. */
function hint(env: Env, wake: Wake, waitUntil: (p: Promise<unknown>) => void) {
  const key = wakeKey(wake);
  const t = Date.now();
  if ((lastHint.get(key) ?? 0) + HINT_DEBOUNCE_MS > t) return;
  lastHint.set(key, t);
  if (lastHint.size > 1000) lastHint.clear();
  waitUntil(reconcile(env, { namespace: wake.namespace, setName: wake.name || undefined, budgetMs: 10_000 }));
}

const apps = new WeakMap<object, ReturnType<typeof createApp>>();

/** appFor builds the hono app once per env object (bindings are fixed per isolate). */
function appFor(env: Env) {
  let app = apps.get(env);
  if (!app) {
    let s: ReturnType<typeof settingsFrom>;
    try {
      s = settingsFrom(vars(env));
    } catch (e) {
      app = unconfiguredApp(e instanceof Error ? e.message : String(e));
      apps.set(env, app);
      return app;
    }
    if (!isAuthConfigured(s.auth)) {
      // A fresh `npm run dev`: /healthz answers, the webhooks say what is missing (503, not a 500).
      app = unconfiguredApp("webhook authentication is not configured: set WEBHOOK_JWKS or WEBHOOK_PUBLIC_KEY (or WEBHOOK_AUTH=none); see .dev.vars.example");
      apps.set(env, app);
      return app;
    }
    const client = clientFor(env);
    app = createApp({
      ...appDepsFrom(s),
      log: logAt(s),
      lookupStatefulSet: client ? lookupStatefulSetWith(client) : undefined,
      onWake: (wake, waitUntil) => hint(env, wake, waitUntil),
    });
    apps.set(env, app);
  }
  return app;
}

export const handlers = {
  fetch(request: Request, env: Env, ctx: ExecutionContext) {
    return appFor(env).fetch(request, env, ctx);
  },
  async scheduled(_event: ScheduledController, env: Env, ctx: ExecutionContext) {
    ctx.waitUntil(reconcile(env).catch((e: unknown) => log.error("reconcile invocation failed", { error: e instanceof Error ? e.message : String(e) })));
  },
};
