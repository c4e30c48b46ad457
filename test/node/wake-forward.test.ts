/**
 * Wakes between serve's replicas (src/node/wake-forward.ts): the settings a replica derives, the
 * leader's endpoint that checks the signature and the wake's names, and a standby's forward over
 * real HTTPS to it (a certificate of the shared CA that does not name the pod IP).
 */
import { createHmac } from "node:crypto";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SetWake } from "../../src/schedule/scheduler.ts";
import { generateServingCert } from "../../src/node/serving-cert.ts";
import { MAX_FORWARDS_IN_FLIGHT, receiveForwardedWake, WAKE_FORWARD_PATH, wakeForwarder, wakeForwarding } from "../../src/node/wake-forward.ts";

const cert = generateServingCert(["ordinal-webhooks.ordinal-system.svc"]);
const tls = { key: cert.key, ca: cert.ca };

describe("wakeForwarding", () => {
  it("needs a pod IP and a TLS key; the endpoint is the pod's, IPv6 in brackets", () => {
    expect(wakeForwarding(undefined, 8443, tls)).toBeUndefined();
    expect(wakeForwarding("10.0.0.7", 8443, undefined)).toBeUndefined();
    expect(wakeForwarding("10.0.0.7", 8443, tls)?.endpoint).toBe(`https://10.0.0.7:8443${WAKE_FORWARD_PATH}`);
    expect(wakeForwarding("fd00::7", 8443, tls)?.endpoint).toBe(`https://[fd00::7]:8443${WAKE_FORWARD_PATH}`);
    // The key is a hash of the serving key, the same on every replica, never the key itself.
    expect(wakeForwarding("10.0.0.8", 8443, tls)?.key).toBe(wakeForwarding("10.0.0.7", 8443, tls)?.key);
    expect(wakeForwarding("10.0.0.7", 8443, tls)?.key).not.toContain("PRIVATE");
  });
});

describe("forwarding a wake to the leader", () => {
  let close: (() => void) | undefined;
  afterEach(() => close?.());

  /** leader serves receiveForwardedWake over HTTPS on 127.0.0.1 with the shared certificate; returns its endpoint and the wakes it took. */
  async function leader(key: string) {
    const taken: SetWake[] = [];
    const server = createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const request = new Request(`https://leader${req.url}`, { method: req.method, headers: req.headers as Record<string, string>, body: Buffer.concat(chunks) });
        void receiveForwardedWake(request, key, (w) => taken.push(w)).then((r) => {
          res.writeHead(r.status);
          res.end();
        });
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    close = () => server.close();
    return { endpoint: `https://127.0.0.1:${(server.address() as AddressInfo).port}${WAKE_FORWARD_PATH}`, taken };
  }

  it("a standby's wake reaches the leader's scheduler, its announced write with it", async () => {
    const f = wakeForwarding("127.0.0.1", 1, tls)!;
    const l = await leader(f.key);
    const w: SetWake = { namespace: "default", name: "web", write: { resource: "pods", name: "web-0", operation: "UPDATE", resourceVersion: "42" } };
    await wakeForwarder(f)(l.endpoint, w);
    expect(l.taken).toEqual([w]);
  });

  it(`at most ${MAX_FORWARDS_IN_FLIGHT} forwards in flight, one per set: a flood of wakes at a standby opens no more requests to the leader`, async () => {
    const f = wakeForwarding("127.0.0.1", 1, tls)!;
    const arrived: string[] = [];
    const held: (() => void)[] = [];
    let answering = false;
    const server = createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        arrived.push((JSON.parse(Buffer.concat(chunks).toString()) as SetWake).name);
        const answer = () => (res.writeHead(204), res.end());
        if (answering) answer();
        else held.push(answer);
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    close = () => server.close();
    const endpoint = `https://127.0.0.1:${(server.address() as AddressInfo).port}${WAKE_FORWARD_PATH}`;
    const forward = wakeForwarder(f);
    const sent = [forward(endpoint, { namespace: "default", name: "same" }), forward(endpoint, { namespace: "default", name: "same" })];
    for (let i = 0; i < 50; i++) sent.push(forward(endpoint, { namespace: "default", name: `s${i}` }));
    await vi.waitFor(() => expect(arrived).toHaveLength(MAX_FORWARDS_IN_FLIGHT), { timeout: 5_000 });
    await new Promise((r) => setTimeout(r, 100));
    expect(arrived).toEqual(["same", ...Array.from({ length: MAX_FORWARDS_IN_FLIGHT - 1 }, (_, i) => `s${i}`)]);
    answering = true;
    for (const answer of held) answer();
    await Promise.all(sent);
    // Once answered, the next forwards go out.
    await forward(endpoint, { namespace: "default", name: "same" });
    expect(arrived).toHaveLength(MAX_FORWARDS_IN_FLIGHT + 1);
  });

  it("the leader refuses a wake signed with another key (401), and the forward fails", async () => {
    const f = wakeForwarding("127.0.0.1", 1, tls)!;
    const l = await leader(f.key);
    const other = wakeForwarding("127.0.0.1", 1, { key: "another key", ca: cert.ca })!;
    await expect(wakeForwarder(other)(l.endpoint, { namespace: "default", name: "web" })).rejects.toThrow(/401/);
    expect(l.taken).toEqual([]);
  });
});

describe("receiveForwardedWake", () => {
  const key = wakeForwarding("10.0.0.7", 8443, tls)!.key;
  /** signed returns a request with `body` signed as wakeForwarder signs it (HMAC-SHA256 of the body with the shared key). */
  const signed = (body: string) =>
    new Request("https://leader/internal/wake", { method: "POST", body, headers: { "x-ordinal-wake-signature": createHmac("sha256", Buffer.from(key, "hex")).update(body).digest("hex") } });
  it.each([
    ["a namespace that is not a DNS label", JSON.stringify({ namespace: "Bad_NS", name: "web" }), 400],
    ["a set name with selector syntax", JSON.stringify({ namespace: "default", name: "web,x=y" }), 400],
    ["not JSON", "{", 400],
    ["a wake of the namespace's ImageLists", JSON.stringify({ namespace: "team", name: "" }), 204],
  ])("%s → %d", async (_, body, status) => {
    const taken: SetWake[] = [];
    const r = await receiveForwardedWake(signed(body), key, (w) => taken.push(w));
    expect(r.status).toBe(status);
    expect(taken).toHaveLength(status === 204 ? 1 : 0);
  });
  it("a malformed announced write is dropped, the wake kept", async () => {
    const taken: SetWake[] = [];
    const body = JSON.stringify({ namespace: "default", name: "web", write: { resource: "secrets", name: "x", operation: "UPDATE" } });
    expect((await receiveForwardedWake(signed(body), key, (w) => taken.push(w))).status).toBe(204);
    expect(taken).toEqual([{ namespace: "default", name: "web" }]);
  });
  it("no signature, or a body too large: refused unread", async () => {
    expect((await receiveForwardedWake(new Request("https://leader/internal/wake", { method: "POST", body: "{}" }), key, () => {})).status).toBe(401);
    expect((await receiveForwardedWake(signed("x".repeat(5000)), key, () => {})).status).toBe(413);
  });
});
