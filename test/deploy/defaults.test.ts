/**
 * Shipped manifests with shipped defaults: what deploy/ installs and what the program assumes
 * when nothing is configured must agree (the reconciler's identity, the webhook Service, the
 * auth mode), and a fresh Worker answers /healthz 200 and its webhooks a clear 503.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { DEFAULT_RECONCILER_USERNAME, usernameFromToken } from "../../src/deploy/identity.ts";
import { clusterConfigFromEnv } from "../../src/node/kubeconfig.ts";
import { reconcilerUsernameFrom, settingsFrom } from "../../src/runtime-config.ts";
import { SettingError } from "../../src/settings.ts";
import worker from "../../src/worker/index.ts";

type Doc = { kind: string; metadata: { name: string; namespace?: string }; [k: string]: unknown };
const load = (f: string) => parseAllDocuments(readFileSync(f, "utf8")).map((d) => d.toJSON() as Doc);
const sa = load("deploy/namespace.yaml").find((d) => d.kind === "ServiceAccount")!;
const server = load("deploy/server.yaml");
const deployment = server.find((d) => d.kind === "Deployment") as Doc & { spec: { template: { spec: { serviceAccountName: string; containers: { env: { name: string; value: string }[] }[] } } } };
const env = Object.fromEntries(deployment.spec.template.spec.containers[0].env.map((e) => [e.name, e.value]));

/** A JWT-shaped token with the payload a ServiceAccount token carries (unsigned: only read). */
const saToken = (sub: string) => `eyJhbGciOiJSUzI1NiJ9.${Buffer.from(JSON.stringify({ iss: "kubernetes/serviceaccount", sub })).toString("base64url")}.c2ln`;

describe("the reconciler's identity", () => {
  it("defaults to the username of the ServiceAccount deploy/ installs and the Deployment runs as", () => {
    expect(DEFAULT_RECONCILER_USERNAME).toBe(`system:serviceaccount:${sa.metadata.namespace}:${sa.metadata.name}`);
    expect(deployment.spec.template.spec.serviceAccountName).toBe(sa.metadata.name);
    expect(settingsFrom(env).reconcilerUsername).toBe(DEFAULT_RECONCILER_USERNAME);
    const binding = load("deploy/rbac.yaml").find((d) => d.kind === "ClusterRoleBinding") as Doc & { subjects: { kind: string; name: string; namespace: string }[] };
    expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: sa.metadata.name, namespace: sa.metadata.namespace }]);
  });
  it("follows a ServiceAccount token's own identity; RECONCILER_USERNAME wins", () => {
    expect(usernameFromToken(saToken("system:serviceaccount:ops:ordinal"))).toBe("system:serviceaccount:ops:ordinal");
    expect(reconcilerUsernameFrom({ KUBE_TOKEN: saToken("system:serviceaccount:ops:ordinal") })).toBe("system:serviceaccount:ops:ordinal");
    expect(reconcilerUsernameFrom({ KUBE_TOKEN: saToken("system:serviceaccount:ops:ordinal"), RECONCILER_USERNAME: "me" })).toBe("me");
    expect(usernameFromToken("0123456789abcdef")).toBeUndefined();
    expect(usernameFromToken(saToken("alice"))).toBeUndefined();
  });
});

describe("the Deployment's settings against deploy/", () => {
  it("points registration at the Service deploy/ creates, with the webhook paths deploy/webhooks.yaml uses", () => {
    const svc = server.find((d) => d.kind === "Service")!;
    expect(settingsFrom(env).webhookService).toEqual({ namespace: svc.metadata.namespace, name: svc.metadata.name });
    for (const cfg of load("deploy/webhooks.yaml") as (Doc & { webhooks: { clientConfig: { service: { name: string; namespace: string; port: number } } }[] })[]) {
      for (const h of cfg.webhooks) expect(h.clientConfig.service).toMatchObject({ name: svc.metadata.name, namespace: svc.metadata.namespace, port: 443 });
    }
  });
  it("chooses its webhook auth mode explicitly", () => {
    expect(settingsFrom(env).auth).toMatchObject({ jwt: undefined, mtlsClientNames: undefined, unauthenticated: true });
    expect(() => settingsFrom({ WEBHOOK_AUTH: "nope" })).toThrow(/WEBHOOK_AUTH must be one of jwt, mtls, none/);
  });
  it("kustomization.yaml lists every file deploy/ holds", () => {
    const k = readFileSync("deploy/kustomization.yaml", "utf8");
    for (const f of ["crds/statefulsets.apps.ordinal.dev.yaml", "crds/imagelists.apps.ordinal.dev.yaml", "namespace.yaml", "rbac.yaml", "server.yaml", "webhooks.yaml"]) expect(k).toContain(`- ${f}`);
  });
});

describe("cluster configuration precedence", () => {
  it("refuses KUBE_API_URL and KUBECONFIG together instead of choosing silently", () => {
    expect(() => clusterConfigFromEnv({ KUBE_API_URL: "https://a", KUBECONFIG: "/x" })).toThrow(/both KUBE_API_URL and KUBECONFIG are set/);
    expect(() => clusterConfigFromEnv({ KUBE_TOKEN: "t" })).toThrow(/KUBE_TOKEN is set without KUBE_API_URL/);
    expect(clusterConfigFromEnv({ KUBE_API_URL: "https://a", KUBE_TOKEN: "t", KUBECONFIG: "" })).toMatchObject({ server: "https://a", source: "KUBE_API_URL" });
  });
  it("refuses them as settings (the CLI's exit 2), and a KUBE_CA_FILE without a certificate", () => {
    expect(() => clusterConfigFromEnv({ KUBE_API_URL: "https://a", KUBECONFIG: "/x" })).toThrow(SettingError);
    expect(() => clusterConfigFromEnv({ KUBE_TOKEN: "t" })).toThrow(SettingError);
    const dir = mkdtempSync(join(tmpdir(), "ordinal-ca-"));
    writeFileSync(join(dir, "empty.crt"), "");
    writeFileSync(join(dir, "ca.crt"), "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
    const env = (f: string) => ({ KUBE_API_URL: "https://a", KUBE_TOKEN: "t", KUBE_CA_FILE: join(dir, f) });
    expect(() => clusterConfigFromEnv(env("empty.crt"))).toThrow(/KUBE_CA_FILE .*empty\.crt holds no PEM certificate \(empty\)/);
    expect(() => clusterConfigFromEnv(env("empty.crt"))).toThrow(SettingError);
    expect(clusterConfigFromEnv(env("ca.crt"))?.ca).toContain("BEGIN CERTIFICATE");
  });
});

describe("the Worker on a fresh clone (npm run dev, no settings)", () => {
  const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} };
  it("answers /healthz 200 and the webhooks 503 saying what to set", async () => {
    const env = {};
    expect((await worker.fetch(new Request("http://localhost/healthz"), env, ctx)).status).toBe(200);
    const r = await worker.fetch(new Request("http://localhost/mutate/pods", { method: "POST", body: "{}" }), env, ctx);
    expect(r.status).toBe(503);
    expect(await r.json()).toEqual({ error: "ServiceUnavailable", message: expect.stringMatching(/WEBHOOK_JWKS.*\.dev\.vars\.example/) });
  });
});
