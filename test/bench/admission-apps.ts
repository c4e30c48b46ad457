/**
 * The two apps the admission bench compares, built the same way for the load run
 * (admission-server.ts, over HTTP) and the in-process CPU run (admission-cpu.ts): Ordinal's hono
 * app (ES256 JWT, the set lookup answered from memory, and the JSON log line per admission that
 * `ordinal serve` writes, here written synchronously to /dev/null as to a container's stderr pipe;
 * BENCH_SILENT_LOG=1 drops it) and a bare hono echo that parses the JSON body and serializes it back.
 */
import { openSync, writeSync } from "node:fs";
import { Hono } from "hono";
import { jsonLogger, silentLogger } from "../../src/log/log.ts";
import * as tokens from "../../src/auth/token.ts";
import { newSet } from "../support/fixtures.ts";

/** benchApps returns Ordinal's app, the echo app and a token the app accepts (as the apiserver would send on every call). */
export async function benchApps(): Promise<{ app: { fetch(r: Request): Response | Promise<Response> }; echo: Hono; token: string }> {
  const { createApp } = await import("../../src/http/app.ts");
  const keys = await tokens.generateWebhookKeys("ES256");
  const token = await tokens.issueWebhookToken({ privateKeyPem: keys.privateKeyPem, ttl: 3600 });
  const set = newSet({ image: "nginx:1.25", container: "nginx", claims: ["data"], metadata: { uid: "uid-web" } });
  const devNull = openSync("/dev/null", "w");
  const log = process.env.BENCH_SILENT_LOG ? silentLogger : jsonLogger((line) => writeSync(devNull, line + "\n"));
  const app = createApp({
    auth: { jwt: { jwks: keys.jwks } },
    reconcilerUsername: "ordinal-reconciler",
    validateAppsV1StatefulSets: false,
    lookupStatefulSet: async (ns: string, name: string) => (ns === "default" && name === "web" ? set : undefined),
    log,
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

