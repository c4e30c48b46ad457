/**
 * Slow senders against a real local server (`listen` + the app + `nodeBody`, as `ordinal serve`
 * wires them): three connections declare 3 MiB bodies and trickle a byte; a small review is
 * answered while they are still open, and they are cut, each with one warn line and no stack,
 * once behind the pace (the budget's clock is a fake one, moved by the test). Before the
 * BodyBudget, the small review waited behind the third (8 MiB by declaration) until Node's 15 s
 * request timeout, and each aborted request logged an error with a stack.
 */
import type { Server } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.ts";
import { BodyBudget } from "../../src/http/bytes-in-flight.ts";
import { fakeBudgetClock as fakeClock } from "../support/budget-clock.ts";
import { nodeBody } from "../../src/node/node-body.ts";
import { listen, SERVER_LIMITS } from "../../src/node/serve.ts";
import { handMadePod, memoryLogger, RECONCILER, request, review } from "../admission/helpers.ts";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => (s.close(() => r()), s.closeAllConnections()))));
});

/** trickle opens a connection that declares `declared` bytes of body and sends one. */
async function trickle(port: number, declared: number): Promise<{ socket: Socket; closed: Promise<void>; isOpen(): boolean }> {
  const socket = connect(port, "127.0.0.1");
  await new Promise<void>((r) => socket.once("connect", () => r()));
  let open = true;
  const closed = new Promise<void>((r) => socket.once("close", () => ((open = false), r())));
  socket.on("error", () => undefined);
  socket.write(`POST /validate/pods HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n{`);
  return { socket, closed, isOpen: () => open };
}

describe("slow senders (ordinal serve's wiring)", () => {
  it("answers a small review while three 3 MiB trickles are open, then cuts them with one warn line each", async () => {
    const clock = fakeClock();
    const log = memoryLogger();
    const budget = new BodyBudget({ maxBody: 3 * 1024 * 1024, clock });
    const app = createApp({ auth: { unauthenticated: true }, reconcilerUsername: RECONCILER, validateAppsV1StatefulSets: false, log, bodySource: nodeBody, budget });
    const server = listen(app.fetch, { port: 0, host: "127.0.0.1" }, SERVER_LIMITS);
    servers.push(server as Server);
    await new Promise<void>((r) => (server.listening ? r() : server.once("listening", () => r())));
    const port = (server.address() as AddressInfo).port;

    const slow = await Promise.all([1, 2, 3].map(() => trickle(port, 3 * 1024 * 1024)));
    const pod = handMadePod("web-1");
    const res = await fetch(`http://127.0.0.1:${port}/validate/pods`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(review(request({ object: pod, name: pod.metadata?.name }))),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ kind: "AdmissionReview", response: { allowed: true } });
    expect(slow.map((s) => s.isOpen())).toEqual([true, true, true]);
    expect(budget.held).toBe(3); // what they sent, not the 9 MiB they declared

    clock.advance(1001);
    await Promise.all(slow.map((s) => s.closed));
    const lines = log.lines.filter((l) => l.level === "warn" || l.level === "error");
    expect(lines).toHaveLength(3);
    for (const l of lines) {
      expect(l).toMatchObject({ level: "warn", msg: "webhook request body not received", fields: { reason: "too slow", received: 1, status: 408 } });
      expect(JSON.stringify(l.fields)).not.toContain("stack");
    }
    expect(budget.held).toBe(0);
  });
});
