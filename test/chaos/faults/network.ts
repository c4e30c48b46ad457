/**
 * The chaos run's network, a child process of its own (so the runner's work never stalls it):
 * - one plain-HTTP proxy per `ordinal serve` replica in front of the apiserver, re-originating TLS
 *   with the test CA and streaming both ways (watches included); in a fault window it resets
 *   connections, delays requests, or answers 429 (Retry-After), 500 or 504 as the apiserver would;
 * - the webhook "Service": a TCP front that hands each connection to a live replica's port
 *   (round-robin, the next one on a refused connect), or refuses all of them while it is "down".
 * Controlled by JSON lines on stdin (NetworkCommand); prints "ready" once everything listens, and
 * on "stats" one JSON line: the requests each proxy received, by second.
 * Usage: node --import tsx test/chaos/faults/network.ts '<NetworkConfig JSON>'
 */
import { readFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { connect, createServer as createTcpServer, type Server, type Socket } from "node:net";
import { createInterface } from "node:readline";
import { Agent, request } from "undici";
import { mulberry32 } from "../../../src/sim/fake-apiserver/random.ts";
import type { NetworkCommand, NetworkConfig, ProxyMode } from "./network-types.ts";

const config = JSON.parse(process.argv[2]) as NetworkConfig;
const random = mulberry32(config.seed);
const dispatcher = new Agent({ connect: { ca: readFileSync(config.caFile, "utf8") }, bodyTimeout: 0, headersTimeout: 60_000 });
const target = config.apiUrl.replace(/\/+$/, "");

/** status returns the apiserver's Status body for an error `code`. */
function status(code: number): string {
  const reason = code === 429 ? "TooManyRequests" : code === 504 ? "Timeout" : "InternalError";
  const message = code === 429 ? "Too many requests, please try again later." : code === 504 ? "Timeout: request did not complete within the allotted timeout" : "Internal error occurred: chaos";
  return JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code });
}

const HOP = new Set(["host", "connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection"]);

/** startProxy serves one replica's apiserver proxy; returns the function that sets its fault mode. */
function startProxy(name: string, port: number): (m: ProxyMode) => void {
  let mode: ProxyMode = { kind: "none" };
  const sockets = new Set<Socket>();
  const perSecond = new Map<number, number>();
  counts.set(name, perSecond);
  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const sec = Math.floor(Date.now() / 1000);
    perSecond.set(sec, (perSecond.get(sec) ?? 0) + 1);
    const m = mode;
    const hit = m.kind !== "none" && random() < m.share;
    if (hit && m.kind === "reset") return res.destroy();
    if (hit && m.kind === "status") {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (m.code === 429) headers["retry-after"] = String(m.retryAfter ?? 1);
      res.writeHead(m.code, headers);
      return res.end(status(m.code));
    }
    if (hit && m.kind === "delay") await new Promise((r) => setTimeout(r, m.ms));
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && !HOP.has(k)) headers[k] = v;
    try {
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const up = await request(`${target}${req.url}`, { method: req.method as "GET", headers, body: hasBody ? req : undefined, dispatcher });
      const out: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !HOP.has(k)) out[k] = v;
      res.writeHead(up.statusCode, out);
      up.body.on("error", () => res.destroy());
      res.on("close", () => up.body.destroy());
      up.body.pipe(res);
    } catch {
      // The apiserver is unreachable (restarting): the client sees its connection cut, as without a proxy.
      res.destroy();
    }
  };
  const server = createHttpServer((req, res) => void forward(req, res).catch(() => res.destroy()));
  server.keepAliveTimeout = 30_000;
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.listen(port, "127.0.0.1");
  return (m) => {
    mode = m;
    // A reset window also cuts the connections already open (watches, kept-alive requests).
    if (m.kind === "reset") for (const s of sockets) s.destroy();
  };
}

/** startFront serves the webhook "Service"; returns its controls. */
function startFront(port: number, backends: number[]) {
  const enabled = new Set(backends);
  const sockets = new Set<Socket>();
  let next = 0;
  let server: Server | undefined;
  const pipeTo = (client: Socket, tried: number) => {
    const live = backends.filter((b) => enabled.has(b));
    if (tried >= live.length) return client.destroy();
    const port = live[next++ % live.length];
    const up = connect(port, "127.0.0.1");
    up.once("connect", () => {
      client.pipe(up).pipe(client);
      client.resume();
    });
    up.once("error", () => (up.readyState === "opening" ? pipeTo(client, tried + 1) : client.destroy()));
    client.once("error", () => up.destroy());
    client.once("close", () => up.destroy());
  };
  const up = () => {
    if (server) return;
    server = createTcpServer({ pauseOnConnect: true }, (c) => {
      sockets.add(c);
      c.on("close", () => sockets.delete(c));
      pipeTo(c, 0);
    });
    server.listen(port, "127.0.0.1");
  };
  const down = () => {
    server?.close();
    server = undefined;
    for (const s of sockets) s.destroy();
  };
  up();
  return { up, down, enable: (b: number, on: boolean) => (on ? enabled.add(b) : enabled.delete(b)) };
}

/** Requests each proxy received, by second (epoch): what the replica sent, answered by the apiserver or by a fault. */
const counts = new Map<string, Map<number, number>>();
const proxies = new Map(config.proxies.map((p) => [p.name, startProxy(p.name, p.port)]));
const front = startFront(config.front.port, config.front.backends);

createInterface({ input: process.stdin }).on("line", (line) => {
  const c = JSON.parse(line) as NetworkCommand;
  if (c.type === "proxy") proxies.get(c.name)?.(c.mode);
  else if (c.type === "stats") console.log(JSON.stringify({ stats: Object.fromEntries([...counts].map(([n, m]) => [n, Object.fromEntries(m)])) }));
  else if (c.type === "front") (c.up ? front.up : front.down)();
  else front.enable(c.port, c.enabled);
});
process.stdin.on("end", () => process.exit(0));
// A connection cut mid-stream is what this process is for: never let one end it.
process.on("uncaughtException", (e) => console.error(`[chaos network] ${String(e)}`));
console.log("ready");
