/**
 * What the CLI says when it cannot reach or trust the cluster, or read its configuration: kubectl's
 * words (connection refused, certificate signed by unknown authority) instead of "fetch failed",
 * the file that is missing instead of a raw ENOENT, and an exec plugin's name and exit code only.
 * Real sockets and a real TLS server on 127.0.0.1.
 */
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer as createHttpsServer, type Server } from "node:https";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { R } from "../../src/kube/resources.ts";
import { clientFor, clusterConfigFromEnv, tokenOf } from "../../src/node/kubeconfig.ts";
import { generateServingCert } from "../../src/node/serving-cert.ts";

const dir = mkdtempSync(join(tmpdir(), "ordinal-cluster-errors-"));

/** closedPort returns a port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe("network errors", () => {
  let cert: ReturnType<typeof generateServingCert>;
  let other: ReturnType<typeof generateServingCert>;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // Key generation is slow on a busy machine: once, here, with time to spare.
    cert = generateServingCert(["localhost", "127.0.0.1"]);
    other = generateServingCert(["elsewhere.example"]);
    server = createHttpsServer({ cert: cert.cert, key: cert.key }, (_req, res) => res.end("{}"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("a wrong port says connection refused and names the server", async () => {
    const server = `https://127.0.0.1:${await closedPort()}`;
    const c = clientFor({ server, token: "t", source: "test" });
    await expect(c.get(R.pods, "default", "x")).rejects.toThrow(new RegExp(`GET ${server}/api/v1/namespaces/default/pods/x: connection refused`));
  }, 20_000);

  it("an untrusted CA says certificate signed by unknown authority, and how to give the CA", async () => {
    const c = clientFor({ server: url, token: "t", source: "test" });
    await expect(c.get(R.pods, "default", "x")).rejects.toThrow(/certificate signed by unknown authority; give the cluster's CA \(certificate-authority in the kubeconfig, or KUBE_CA_FILE\)/);
  }, 20_000);

  it("the right CA gets an answer (the server above is sound)", async () => {
    const c = clientFor({ server: url, token: "t", ca: cert.ca, source: "test" });
    expect(await c.get(R.pods, "default", "x")).toEqual({});
  });

  it("a name the certificate does not cover is named", async () => {
    const s = createHttpsServer({ cert: other.cert, key: other.key }, (_req, res) => res.end("{}"));
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    try {
      const c = clientFor({ server: `https://127.0.0.1:${(s.address() as AddressInfo).port}`, token: "t", ca: other.ca, source: "test" });
      await expect(c.get(R.pods, "default", "x")).rejects.toThrow(/IP: 127\.0\.0\.1 is not in the cert's list/);
    } finally {
      await new Promise<void>((r) => s.close(() => r()));
    }
  }, 20_000);
});

describe("cluster configuration errors", () => {
  it("a missing kubeconfig is named, not a raw ENOENT", () => {
    expect(() => clusterConfigFromEnv({ KUBECONFIG: join(dir, "nope") })).toThrow(`kubeconfig ${join(dir, "nope")}: not found`);
  });

  it("a missing KUBE_CA_FILE is named", () => {
    expect(() => clusterConfigFromEnv({ KUBE_API_URL: "https://k", KUBE_TOKEN: "t", KUBE_CA_FILE: join(dir, "ca.crt") })).toThrow(`KUBE_CA_FILE ${join(dir, "ca.crt")}: not found`);
  });

  it("KUBE_API_URL without KUBE_TOKEN is refused instead of running as system:anonymous", () => {
    expect(() => clusterConfigFromEnv({ KUBE_API_URL: "https://k" })).toThrow(/KUBE_API_URL is set without KUBE_TOKEN/);
    expect(clusterConfigFromEnv({ KUBE_API_URL: "https://k", KUBE_ANONYMOUS: "true" })).toMatchObject({ server: "https://k", token: undefined });
  });

  /** kubeconfigWithPlugin writes a kubeconfig whose user runs `script` as its exec plugin. */
  function kubeconfigWithPlugin(name: string, script: string): string {
    const plugin = join(dir, name);
    writeFileSync(plugin, `#!/bin/sh\n${script}\n`);
    chmodSync(plugin, 0o755);
    const path = join(dir, `${name}.kubeconfig`);
    writeFileSync(
      path,
      JSON.stringify({
        "current-context": "c",
        contexts: [{ name: "c", context: { cluster: "k", user: "u" } }],
        clusters: [{ name: "k", cluster: { server: "https://127.0.0.1:1" } }],
        users: [{ name: "u", user: { exec: { command: plugin, args: ["--client-secret=hunter2"] } } }],
      }),
    );
    return path;
  }

  it("a failing exec plugin: its name and exit code, never its arguments or output", async () => {
    const path = kubeconfigWithPlugin("fails", 'echo "token leaked-token" >&2; echo "stdout-secret"; exit 3');
    const err = await tokenOf(clusterConfigFromEnv({ KUBECONFIG: path })!).catch((e: Error) => e);
    expect(String(err)).toMatch(/exec credential plugin ".*fails" failed: exit code 3$/);
    expect(String(err)).not.toMatch(/hunter2|leaked-token|stdout-secret/);
  });

  it("an exec plugin printing something else than JSON: said, without the output", async () => {
    const path = kubeconfigWithPlugin("chatty", 'echo "token=leaked-token"');
    const err = await tokenOf(clusterConfigFromEnv({ KUBECONFIG: path })!).catch((e: Error) => e);
    expect(String(err)).toMatch(/exec credential plugin ".*chatty" printed no ExecCredential JSON$/);
    expect(String(err)).not.toMatch(/hunter2|leaked-token/);
  });
});
