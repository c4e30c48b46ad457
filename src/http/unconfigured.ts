import { Hono } from "hono/tiny";
import { WEBHOOK_PATHS } from "../webhook-config/webhook-configs.ts";

/**
 * unconfiguredApp returns the app a runtime serves when its settings cannot make the real one
 * (no webhook authentication on a fresh `npm run dev`, a bad setting): `/healthz` is 200 so the
 * process counts as up, and every webhook path answers 503 with `reason`, never a 500 with a stack.
 */
export function unconfiguredApp(reason: string): Hono {
  const app = new Hono();
  app.get("/healthz", (c) => c.text("ok"));
  app.get("/", (c) => c.json({ name: "ordinal", configured: false, message: reason, webhooks: Object.values(WEBHOOK_PATHS), health: "/healthz" }));
  app.all("*", (c) => c.json({ error: "ServiceUnavailable", message: reason }, 503));
  return app;
}
