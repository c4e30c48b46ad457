/**
 * Token rotation without restarting the apiserver: the admission kubeconfig names a `tokenFile`
 * (test/cluster/start.sh, host 127.0.0.1:28444), and the real kube-apiserver re-reads it (client-go's
 * cached file token source, period one minute). A webhook server that accepts only a new key
 * refuses the old token; after `ordinal token --out` writes a token of the new key into the file,
 * the apiserver's calls succeed within about a minute, with no restart.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateWebhookKeys } from "../../src/auth/token.ts";
import { main, nodeContext } from "../../src/cli/main.ts";
import { createApp } from "../../src/http/app.ts";
import { R } from "../../src/kube/resources.ts";
import { listen } from "../../src/node/serve.ts";
import { silentLogger } from "../../src/log/log.ts";
import { KEYS } from "./servers.ts";
import { admin, newNamespace, setupCluster, sleep } from "./support.ts";

const PORT = 28444;
const CONFIG = "ordinal-e2e-token-rotation";

describe("admission token rotation through the kubeconfig's tokenFile", () => {
  let ns: string;
  let server: ReturnType<typeof listen> | undefined;
  let calls = 0;

  beforeAll(async () => {
    await setupCluster();
    ns = await newNamespace("rotation");
    const next = await generateWebhookKeys();
    writeFileSync(`${KEYS}/rotation-next.pem`, next.privateKeyPem, { mode: 0o600 });
    const app = createApp({ auth: { jwt: { jwks: next.jwks } }, reconcilerUsername: "ordinal-reconciler", validateAppsV1StatefulSets: false, log: silentLogger });
    server = listen(
      (req) => {
        calls++;
        return app.fetch(req);
      },
      { port: PORT, host: "127.0.0.1", tls: { cert: readFileSync(`${KEYS}/tls.crt`), key: readFileSync(`${KEYS}/tls.key`) } },
    );
    await admin.create(R.mutatingWebhooks, undefined, {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingWebhookConfiguration",
      metadata: { name: CONFIG },
      webhooks: [
        {
          name: "rotation.e2e.ordinal.dev",
          clientConfig: { url: `https://127.0.0.1:${PORT}/mutate/pods`, caBundle: Buffer.from(readFileSync(`${KEYS}/tls.crt`)).toString("base64") },
          rules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
          objectSelector: { matchLabels: { "rotation-test": "yes" } },
          failurePolicy: "Fail",
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
          timeoutSeconds: 5,
        },
      ],
    });
  });

  afterAll(async () => {
    await admin.delete(R.mutatingWebhooks, undefined, CONFIG).catch(() => undefined);
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  });

  /** A server-side dry-run create through the hook (async: the hook's server runs in this process). */
  const tryCreate = async (): Promise<{ code: number; stderr: string }> => {
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: ns, labels: { "rotation-test": "yes" } }, spec: { containers: [{ name: "c", image: "busybox" }] } };
    try {
      await admin.create(R.pods, ns, pod, { dryRun: true });
      return { code: 0, stderr: "" };
    } catch (e) {
      return { code: 1, stderr: e instanceof Error ? e.message : String(e) };
    }
  };

  it("the old token is refused; a new one written to the file is used within ~a minute, no restart", async () => {
    // The namespace label the selector uses exists only from 1.21: add it by hand on 1.20.
    await admin.patch(R.namespaces, undefined, ns, { metadata: { labels: { "kubernetes.io/metadata.name": ns } } }, "merge");
    const before = await tryCreate();
    expect(before.code).not.toBe(0);
    expect(before.stderr).toMatch(/rotation\.e2e\.ordinal\.dev/);
    expect(before.stderr).toMatch(/asked for the client to provide credentials/); // our 401
    expect(calls).toBeGreaterThan(0);

    const printed: string[] = [];
    expect(await main(["token", "--key", `${KEYS}/rotation-next.pem`, "--out", `${KEYS}/rotation-token`, "--ttl", "1h"], { ...nodeContext(), out: (l) => printed.push(l) })).toBe(0);
    expect(printed.join("\n")).toMatch(/wrote a token/);
    const started = Date.now();
    let result = await tryCreate();
    while (result.code !== 0 && Date.now() - started < 150_000) {
      await sleep(3_000);
      result = await tryCreate();
    }
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(`token rotation: the apiserver presented the new token ${seconds} s after the file changed`);
    expect(result.code, result.stderr).toBe(0);
  });
});
