// An app with a fresh signing key, and helpers to talk to it (Node and workerd tests).
import { generateWebhookKeys, issueWebhookToken, type TokenAlgorithm } from "../../src/auth/token.ts";
import type { AdmissionReviewResponse } from "../../src/admission/types.ts";
import { createApp, type AppDeps } from "../../src/http/app.ts";
import { memoryLogger, RECONCILER, sampleSet } from "./helpers.ts";

export interface TestApp {
  app: ReturnType<typeof createApp>;
  token: string;
  jwks: string;
  publicKeyPem: string;
  privateKeyPem: string;
  log: ReturnType<typeof memoryLogger>;
  /** The deps the app was built with (the app reads some of them per request). */
  deps: AppDeps;
  /** POST a body (object → JSON, string as is) to a path with the valid token. */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
}

/** testApp makes a fresh key pair, a token for it and an app verifying against its JWKS. */
export async function testApp(deps: Partial<AppDeps> = {}, alg: TokenAlgorithm = "ES256"): Promise<TestApp> {
  const keys = await generateWebhookKeys(alg);
  const token = await issueWebhookToken({ privateKeyPem: keys.privateKeyPem, ttl: 600 });
  const log = memoryLogger();
  const jwks = JSON.stringify(keys.jwks);
  const allDeps: AppDeps = {
    auth: { jwt: { jwks } },
    reconcilerUsername: RECONCILER,
    validateAppsV1StatefulSets: false,
    lookupStatefulSet: async (ns, name) => (ns === "default" && name === "web" ? sampleSet() : undefined),
    log,
    ...deps,
  };
  const app = createApp(allDeps);
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
    app.request(path, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  return { app, deps: allDeps, token, jwks, publicKeyPem: keys.publicKeyPem, privateKeyPem: keys.privateKeyPem, log, post };
}

/** readReview checks the HTTP answer is a 200 AdmissionReview and returns it. */
export async function readReview(res: Response): Promise<AdmissionReviewResponse> {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as AdmissionReviewResponse;
  if (body.apiVersion !== "admission.k8s.io/v1" || body.kind !== "AdmissionReview") throw new Error(`not an AdmissionReview: ${JSON.stringify(body)}`);
  return body;
}
