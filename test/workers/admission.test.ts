// The webhooks inside workerd (@cloudflare/vitest-pool-workers): JWT verification with WebCrypto
// there, the JSON Patch, denials, the body limit and the waitUntil hint.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { applyPatch } from "rfc6902";
import { describe, expect, it } from "vitest";
import { decodePatch } from "../../src/admission/patch.ts";
import { generateWebhookKeys, issueWebhookToken } from "../../src/auth/token.ts";
import { WEBHOOK_PATHS } from "../../src/webhook-config/webhook-configs.ts";
import { INPLACE_READY_CONDITION, POD_NAME_LABEL } from "../../src/objects/constants.ts";
import { newStatefulSetPod } from "../../src/objects/pod.ts";
import { createApp, MAX_BODY_BYTES } from "../../src/http/app.ts";
import { handMadePod, memoryLogger, osts, RECONCILER, request, review, sampleSet } from "../admission/helpers.ts";
import { readReview, testApp } from "../admission/test-app.ts";
import { BodyBudget } from "../../src/http/bytes-in-flight.ts";

describe("in workerd", () => {
  it("runs in the Workers runtime", () => {
    expect(navigator.userAgent).toBe("Cloudflare-Workers");
  });

  for (const alg of ["ES256", "EdDSA"] as const) {
    it(`verifies ${alg} tokens: 401 without or with a bad one, served with a good one`, async () => {
      const t = await testApp({}, alg);
      const body = JSON.stringify(review(request({ object: handMadePod() })));
      expect((await t.app.request(WEBHOOK_PATHS.mutatePods, { method: "POST", body })).status).toBe(401);
      const other = await issueWebhookToken({ privateKeyPem: (await generateWebhookKeys(alg)).privateKeyPem });
      expect((await t.post(WEBHOOK_PATHS.mutatePods, body, { authorization: `Bearer ${other}` })).status).toBe(401);
      expect((await t.post(WEBHOOK_PATHS.mutatePods, body)).status).toBe(200);
    });
  }

  it("verifies against a PEM public key", async () => {
    const keys = await generateWebhookKeys();
    const token = await issueWebhookToken({ privateKeyPem: keys.privateKeyPem });
    const app = createApp({ auth: { jwt: { publicKeyPem: keys.publicKeyPem } }, reconcilerUsername: RECONCILER, validateAppsV1StatefulSets: false, log: memoryLogger() });
    const res = await app.request(WEBHOOK_PATHS.mutatePods, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: "{" });
    expect(res.status).toBe(400);
  });

  it("mutates a hand-made pod into the planner's pod; rfc6902 applies the patch", async () => {
    const t = await testApp();
    const pod = handMadePod("web-2");
    const r = await readReview(await t.post(WEBHOOK_PATHS.mutatePods, review(request({ object: pod }))));
    expect(r.response).toMatchObject({ allowed: true, patchType: "JSONPatch" });
    const doc = structuredClone(pod);
    expect(applyPatch(doc, decodePatch(r.response.patch!) as Parameters<typeof applyPatch>[1]).filter((e) => e !== null)).toEqual([]);
    const planned = newStatefulSetPod(sampleSet(), 2);
    expect(doc.spec).toEqual(planned.spec);
    expect(doc.metadata?.labels?.[POD_NAME_LABEL]).toBe("web-2");
    expect(doc.spec?.readinessGates).toEqual([{ conditionType: INPLACE_READY_CONDITION }]);
  });

  it("denies an env patch of a managed pod", async () => {
    const t = await testApp();
    const old = newStatefulSetPod(sampleSet(), 0);
    const pod = structuredClone(old);
    pod.spec!.containers[0].env = [{ name: "A", value: "1" }];
    const r = await readReview(await t.post(WEBHOOK_PATHS.validatePods, review(request({ operation: "UPDATE", object: pod, oldObject: old }))));
    expect(r.response).toMatchObject({ allowed: false, status: { code: 422 } });
    expect(r.response.status?.message).toContain("/spec/containers/0/env");
  });

  it("denies an invalid StatefulSet with the apiserver's wording", async () => {
    const t = await testApp();
    const set = structuredClone(sampleSet());
    set.spec.replicas = -1;
    const r = await readReview(await t.post(WEBHOOK_PATHS.validateStatefulSets, review(request({ kind: osts, object: set }))));
    expect(r.response.allowed).toBe(false);
    expect(r.response.status?.message).toContain("spec.replicas: Invalid value: -1: must be greater than or equal to 0");
  });

  it("answers 413 over 3 MiB", async () => {
    const t = await testApp();
    expect((await t.post(WEBHOOK_PATHS.validatePods, "x".repeat(MAX_BODY_BYTES + 1))).status).toBe(413);
  });

  it("hands the status wake to ctx.waitUntil", async () => {
    let ran = false;
    const t = await testApp({
      onWake: (_wake, waitUntil) =>
        waitUntil(
          (async () => {
            await new Promise((r) => setTimeout(r, 10));
            ran = true;
          })(),
        ),
    });
    const pod = newStatefulSetPod(sampleSet(), 0);
    const body = JSON.stringify(review(request({ operation: "UPDATE", subResource: "status", object: { ...pod, status: { phase: "Running" } }, oldObject: pod })));
    const ctx = createExecutionContext();
    const res = await t.app.fetch(
      new Request(`https://ordinal.test${WEBHOOK_PATHS.validatePods}`, { method: "POST", headers: { authorization: `Bearer ${t.token}` }, body }),
      {},
      ctx,
    );
    expect((await readReview(res)).response.allowed).toBe(true);
    await waitOnExecutionContext(ctx);
    expect(ran).toBe(true);
  });

  it("serves a small review while three declared 3 MiB bodies trickle, and cuts them by their own timers", async () => {
    // The same BodyBudget as Node, over the web stream; workerd's own timers (a 50 ms grace here).
    const budget = new BodyBudget({ maxBody: MAX_BODY_BYTES, graceMs: 50 });
    const t = await testApp({ budget });
    const slow = [1, 2, 3].map(() => {
      const stream = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode("{")) });
      const headers = { authorization: `Bearer ${t.token}`, "content-length": String(3 * 1024 * 1024) };
      return t.app.request(WEBHOOK_PATHS.validatePods, { method: "POST", headers, body: stream });
    });
    const pod = handMadePod("web-1");
    const r = await readReview(await t.post(WEBHOOK_PATHS.validatePods, review(request({ object: pod, name: pod.metadata?.name }))));
    expect(r.response.allowed).toBe(true);
    expect((await Promise.all(slow)).map((res) => res.status)).toEqual([408, 408, 408]);
    expect(t.log.lines.filter((l) => l.msg === "webhook request body not received")).toHaveLength(3);
    expect(budget.held).toBe(0);
  });
});
