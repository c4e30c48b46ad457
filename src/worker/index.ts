/**
 * The Cloudflare Worker's entry: `fetch` serves the admission webhooks, `scheduled` pokes the
 * shards (both in src/worker/handlers.ts); the ShardReconciler Durable Objects run the passes.
 *
 * Module start does nothing but define these two functions: the handlers module (hono, zod and
 * the schemas it builds, the validation package, the reconciler) is evaluated on the isolate's
 * first event, once (the bundler inlines the dynamic import as a lazily run module, so it is
 * not a second fetch). Workers bill and limit a script's start-up separately from its events,
 * and an isolate started for a TLS handshake or a cron tick need not build the webhook schemas
 * first. `npm run bench` prints both: module start and the first event's extra cost.
 */
import type { Env, ExecutionContext, handlers as workerHandlers, ScheduledController } from "./handlers.ts";

export type { Env };
/** The Durable Object per shard (wrangler.toml: binding SHARDS); its reconciler loads on its first event. */
export { ShardReconciler } from "./shard-object.ts";

type Handlers = typeof workerHandlers;
let loaded: Promise<Handlers> | undefined;

/** handlers returns the Worker's handlers, evaluating their module on the first call only. */
function handlers(): Promise<Handlers> {
  loaded ??= import("./handlers.ts").then((m) => m.handlers);
  return loaded;
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    return (await handlers()).fetch(request, env, ctx);
  },
  async scheduled(event: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
    return (await handlers()).scheduled(event, env, ctx);
  },
};
