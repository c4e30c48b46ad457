/**
 * The Cloudflare Worker's handlers (loaded by src/worker/index.ts on the isolate's first event): `fetch`
 * serves the admission webhooks (the hono app) and forwards each wake they see to the Durable Object
 * of its namespace's shard (src/worker/shard-object.ts), which passes the set at once; `scheduled` (the
 * cron tick) only pokes every shard's object. Thin: all logic lives in src/http, src/admission,
 * src/reconciler and src/core.
 */
import { lookupStatefulSetWith } from "../admission/lookup.ts";
import { mayDeletePodWith } from "../admission/delete-access.ts";
import { createApp } from "../http/app.ts";
import type { Wake } from "../admission/wakes.ts";
import { wakeKey } from "../objects/wake.ts";
import { jsonLogger } from "../log/log.ts";
import { shardOf } from "../reconciler/pass.ts";
import { appDepsFrom, settingsFrom } from "../runtime-config.ts";
import { checkSettings } from "../settings.ts";
import { isAuthConfigured } from "../auth/settings.ts";
import { unconfiguredApp } from "../http/unconfigured.ts";
import { clientFor, shardName, varsOf, type Env, type ShardNamespace } from "./env.ts";
import { workerReconcileSettingsFrom } from "./settings.ts";

export type { Env };

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
const vars = varsOf;

/** shardsOf returns the SHARDS binding, or throws saying what wrangler.toml must declare. */
function shardsOf(env: Env): ShardNamespace {
  if (!env.SHARDS) throw new Error("the SHARDS Durable Object binding is missing: declare it in wrangler.toml (class ShardReconciler), see docs/install.md");
  return env.SHARDS;
}

/** tell sends `body` to shard `index`'s object and returns its answer, throwing on an error status. */
async function tell(env: Env, index: number, path: "/wake" | "/poke", body: unknown): Promise<void> {
  const ns = shardsOf(env);
  const res = await ns.get(ns.idFromName(shardName(index))).fetch(`https://shard${path}`, { method: "POST", body: JSON.stringify(body) });
  if (!res.ok && res.status !== 410) throw new Error(`shard ${index} ${path}: ${res.status} ${await res.text()}`);
}

/** forwardWake returns the forwarding of a wake to the object of its namespace's shard (which passes the set at once). */
async function forwardWake(env: Env, wake: Wake): Promise<void> {
  const index = shardOf(wake.namespace, workerReconcileSettingsFrom(vars(env)).shards);
  try {
    await tell(env, index, "/wake", { index, wake });
  } catch (e) {
    throw new Error(`wake of ${wakeKey(wake)} (${wake.reason}) not forwarded: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

/**
 * pokeShards pokes every shard's object (each cron tick): an object with no alarm set (new, or its
 * alarm lost) runs its due work at once. One shard's failure does not stop the others'.
 */
async function pokeShards(env: Env): Promise<void> {
  const { shards } = workerReconcileSettingsFrom(vars(env));
  const results = await Promise.allSettled(Array.from({ length: shards }, (_, index) => tell(env, index, "/poke", { index })));
  for (const [index, r] of results.entries()) {
    if (r.status === "rejected") log.error("shard poke failed", { shard: index, error: r.reason instanceof Error ? r.reason.message : String(r.reason) });
  }
}

const apps = new WeakMap<object, ReturnType<typeof createApp>>();

/** appFor builds the hono app once per env object (bindings are fixed per isolate). */
function appFor(env: Env) {
  let app = apps.get(env);
  if (!app) {
    let s: ReturnType<typeof settingsFrom>;
    let client: ReturnType<typeof clientFor>;
    try {
      checkSettings(vars(env), "Worker");
      s = settingsFrom(vars(env));
      // Throws on KUBE_API_URL without KUBE_TOKEN (and no KUBE_ANONYMOUS): a 503 saying so, not a 500.
      client = clientFor(env);
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
    const lookup = client ? lookupStatefulSetWith(client) : undefined;
    app = createApp({
      ...appDepsFrom(s),
      log: logAt(s),
      lookupStatefulSet: lookup,
      mayDeletePod: client ? mayDeletePodWith(client) : undefined,
      onWake: (wake, waitUntil) => waitUntil(forwardWake(env, wake)),
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
    ctx.waitUntil(pokeShards(env).catch((e: unknown) => log.error("cron tick failed", { error: e instanceof Error ? e.message : String(e) })));
  },
};
