// `ordinal serve` as a public-facing server: limits against slow and idle clients (issue 11
// finding 7), --help, and refusing to start with an unusable key (finding 9).
import { connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main, nodeContext } from "../../src/cli/main.ts";
import { listen, replicaIdentity, serveCommand, SERVER_LIMITS } from "../../src/node/serve.ts";
import { SettingError } from "../../src/settings.ts";

const servers: { close(cb?: () => void): unknown }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
  vi.restoreAllMocks();
});

/** Small limits so the test waits milliseconds, not the shipped seconds. */
const fast = { ...SERVER_LIMITS, requestTimeout: 400, headersTimeout: 300, keepAliveTimeout: 200, connectionsCheckingInterval: 50, maxConnections: 2 };

async function start(limits = fast) {
  const server = listen(() => new Response("ok"), { port: 0, host: "127.0.0.1" }, limits);
  servers.push(server);
  await new Promise<void>((r) => (server.listening ? r() : server.once("listening", () => r())));
  return (server.address() as AddressInfo).port;
}

/** open connects and resolves with the socket and a promise of everything it received until closed. */
async function open(port: number): Promise<{ socket: Socket; closed: Promise<string> }> {
  const socket = connect(port, "127.0.0.1");
  await new Promise<void>((r) => socket.once("connect", () => r()));
  let data = "";
  socket.on("data", (d) => (data += d.toString()));
  const closed = new Promise<string>((r) => socket.once("close", () => r(data)));
  return { socket, closed };
}

describe("listen: server limits", () => {
  it("ships timeouts and a connection cap", () => {
    expect(SERVER_LIMITS.headersTimeout).toBeGreaterThan(0);
    expect(SERVER_LIMITS.requestTimeout).toBeGreaterThan(SERVER_LIMITS.headersTimeout);
    expect(SERVER_LIMITS.maxConnections).toBeGreaterThan(0);
  });

  it("closes a slowloris connection whose headers never finish (408)", async () => {
    const port = await start();
    const { socket, closed } = await open(port);
    socket.write("POST /mutate/pods HTTP/1.1\r\nHost: x\r\nX-Slow: ");
    expect(await closed).toMatch(/^HTTP\/1.1 408/);
  });

  it("closes a connection whose body never finishes", async () => {
    const port = await start();
    const { socket, closed } = await open(port);
    socket.write("POST /mutate/pods HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{");
    await closed;
  });

  it("closes an idle keep-alive connection", async () => {
    const port = await start();
    const { socket, closed } = await open(port);
    socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await closed).toMatch(/^HTTP\/1.1 200[\s\S]*ok$/);
  });

  it("refuses connections beyond maxConnections", async () => {
    const port = await start();
    const held = [await open(port), await open(port)];
    const third = await open(port);
    expect(await third.closed).toBe("");
    for (const h of held) h.socket.destroy();
  });
});

describe("serveCommand: start-up", () => {
  // Every refused setting has one shape and one exit code: `ordinal serve: <message>`, exit 2
  // (WEBHOOK_AUTH and WEBHOOK_SERVICE exited 1 with a plain Error before; KUBE_ANONYMOUS took "yes").
  it.each([
    [{ WEBHOOK_AUTH: "nope" }, /^ordinal serve: WEBHOOK_AUTH must be one of jwt, mtls, none, got "nope"$/],
    [{ WEBHOOK_AUTH: "none", WEBHOOK_SERVICE: "Bad" }, /^ordinal serve: WEBHOOK_SERVICE must be NAMESPACE\/NAME of the webhook Service, got "Bad"$/],
    [{ WEBHOOK_AUTH: "none", KUBE_ANONYMOUS: "yes" }, /^ordinal serve: KUBE_ANONYMOUS must be true or false, got "yes"$/],
    [{ WEBHOOK_AUTH: "none", LOG_LEVEL: "loud" }, /^ordinal serve: LOG_LEVEL must be one of debug, info, warn, error, got "loud"$/],
    [{ WEBHOOK_AUTH: "none", POD_IP: "pod-a" }, /^ordinal serve: POD_IP must be an IP address/],
    [{ WEBHOOK_JWKS: "{}", WEBHOOK_JWKS_FILE: "/dev/null" }, /^ordinal serve: both WEBHOOK_JWKS and WEBHOOK_JWKS_FILE are set: unset one$/],
  ])("refuses %j at start: exit 2, one line naming the variable", async (env, message) => {
    const err: string[] = [];
    vi.spyOn(console, "error").mockImplementation(() => {});
    const ctx = { ...nodeContext(), env: { ...env, KUBECONFIG: "" }, err: (l: string) => err.push(l) };
    expect(await main(["serve", "--simulate", "--port", "0", "--exit-after-ms", "1"], ctx)).toBe(2);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(message);
  });

  it("--help prints usage and exits 0 without serving", async () => {
    const out: string[] = [];
    const ctx = { ...nodeContext(), out: (l: string) => out.push(l) };
    expect(await main(["serve", "--help"], ctx)).toBe(0);
    expect(out.join("\n")).toMatch(/^usage: ordinal serve/);
  });

  it("a replica's identity (Leases, User-Agent) is POD_NAME and 8 hex digits new at each start; node-… without POD_NAME", () => {
    expect(replicaIdentity("chaos-a")).toMatch(/^chaos-a-[0-9a-f]{8}$/);
    expect(replicaIdentity("chaos-a")).not.toBe(replicaIdentity("chaos-a"));
    expect(replicaIdentity(undefined)).toMatch(/^node-[0-9a-f]{8}$/);
  });

  it("npm start (the simulation) prints the URL its webhooks answer on, with the port it bound", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((l: unknown) => void lines.push(String(l)));
    vi.spyOn(console, "error").mockImplementation(() => {});
    expect(await serveCommand({ simulate: true, port: 0, host: "127.0.0.1", intervalMs: 10_000, exitAfterMs: 1 })).toBe(0);
    expect(lines.find((l) => l.startsWith("webhooks: "))).toMatch(/^webhooks: http:\/\/127\.0\.0\.1:[1-9]\d* /);
  }, 20_000);

  it("a garbage WEBHOOK_PUBLIC_KEY stops it at start with a clear error (a SettingError: exit 2)", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const env = { WEBHOOK_PUBLIC_KEY: "not a key" };
    await expect(serveCommand({ simulate: true, port: 0, host: "127.0.0.1", intervalMs: 10_000, exitAfterMs: 1 }, env)).rejects.toThrow(SettingError);
    await expect(serveCommand({ simulate: true, port: 0, host: "127.0.0.1", intervalMs: 10_000, exitAfterMs: 1 }, env)).rejects.toThrow(/webhook public key is unusable.*WEBHOOK_PUBLIC_KEY\) is not a PEM SPKI key/);
  });
});
