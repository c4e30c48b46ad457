/**
 * The two apps the admission bench compares, built the same way for the load run
 * (admission-server.ts, over HTTP) and the in-process CPU run (admission-cpu.ts): Ordinal's hono
 * app (ES256 JWT, the set lookup answered from memory, a silent logger) and a bare hono echo that
 * parses the JSON body and serializes it back.
 */
import { Hono } from "hono";
import type * as TokenModule from "../../src/auth/token.ts";

// The token module moved (src/admission → src/auth); the bench runs against either layout.
type Tokens = typeof TokenModule;

/** benchApps returns Ordinal's app, the echo app and a token the app accepts (as the apiserver would send on every call). */
export async function benchApps(): Promise<{ app: { fetch(r: Request): Response | Promise<Response> }; echo: Hono; token: string }> {
  const tokens = (await import("../../src/auth/token.ts").catch(() => import(`../../src/admission/${"token.ts"}`))) as Tokens;
  const { createApp } = await import("../../src/http/app.ts");
  const { StatefulSetSchema } = await import("../../src/api/statefulset.ts");
  const keys = await tokens.generateWebhookKeys("ES256");
  const token = await tokens.issueWebhookToken({ privateKeyPem: keys.privateKeyPem, ttl: 3600 });
  const set = StatefulSetSchema.parse({
    apiVersion: "apps.ordinal.dev/v1",
    kind: "StatefulSet",
    metadata: { name: "web", namespace: "default", uid: "uid-web" },
    spec: {
      replicas: 3,
      serviceName: "web",
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image: "nginx:1.25" }] } },
      volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
    },
  });
  const silent = { info() {}, warn() {}, error() {} };
  const app = createApp({
    auth: { jwt: { jwks: keys.jwks } },
    reconcilerUsername: "ordinal-reconciler",
    validateAppsV1StatefulSets: false,
    lookupStatefulSet: async (ns: string, name: string) => (ns === "default" && name === "web" ? set : undefined),
    log: silent,
  });
  const echo = new Hono();
  echo.post("/echo", async (c) => c.json(await c.req.json()));
  return { app, echo, token };
}

/** podReview returns a ~4 KB AdmissionReview of a pod the reconciler would create (controller ref). */
export function podReview(): string {
  const env = Array.from({ length: 60 }, (_, i) => ({ name: `VAR_${i}`, value: `value-${i}-${"x".repeat(20)}` }));
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "web-1",
      namespace: "default",
      labels: { app: "web", "ordinal.dev/statefulset": "web" },
      ownerReferences: [{ apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet", name: "web", uid: "uid-web", controller: true, blockOwnerDeletion: true }],
    },
    spec: { containers: [{ name: "nginx", image: "nginx:1.25", env, ports: [{ containerPort: 80, name: "web" }] }], volumes: [{ name: "data", emptyDir: {} }] },
  };
  return createReview("0b8c0f3e-9d7c-4f7e-9a51-2d0c9c1f0e01", "", "Pod", "ordinal-reconciler", pod);
}

/** createReview returns the AdmissionReview (as its JSON text) of a CREATE of `object` in default. */
export function createReview(uid: string, group: string, kind: string, username: string, object: unknown): string {
  const gv = { group, version: "v1" };
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      kind: { ...gv, kind },
      resource: { ...gv, resource: `${kind.toLowerCase()}s` },
      namespace: "default",
      operation: "CREATE",
      userInfo: { username },
      object,
    },
  });
}

