/**
 * The Worker's fetch handler (src/worker/handlers.ts) with settings it cannot serve with: the
 * webhooks answer 503 naming what to set (never a 500 with a stack), /healthz stays 200.
 */
import { describe, expect, it } from "vitest";
import { handlers, type ExecutionContext } from "../../src/worker/handlers.ts";
import { WEBHOOK_PATHS } from "../../src/webhook-config/webhook-configs.ts";

const ctx: ExecutionContext = { waitUntil() {}, passThroughOnException() {}, props: {} };
const post = (env: Record<string, string>) => handlers.fetch(new Request(`https://worker.test${WEBHOOK_PATHS.mutatePods}`, { method: "POST", body: "{}" }), env, ctx);

describe("handlers.fetch", () => {
  it("KUBE_API_URL without KUBE_TOKEN: the webhooks answer 503 saying to set KUBE_TOKEN or KUBE_ANONYMOUS, /healthz 200", async () => {
    const env = { KUBE_API_URL: "http://127.0.0.1:8001", WEBHOOK_AUTH: "none" };
    const res = await post(env);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { message: string }).message).toMatch(/KUBE_API_URL is set without KUBE_TOKEN: set KUBE_TOKEN .*, or KUBE_ANONYMOUS=true/);
    expect((await handlers.fetch(new Request("https://worker.test/healthz"), env, ctx)).status).toBe(200);
  });

  it("with KUBE_ANONYMOUS=true (behind kubectl proxy) the webhooks are served", async () => {
    const res = await post({ KUBE_API_URL: "http://127.0.0.1:8001", KUBE_ANONYMOUS: "true", WEBHOOK_AUTH: "none" });
    expect(res.status).toBe(400); // served: "{}" is no AdmissionReview
  });
});
