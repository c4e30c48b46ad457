import { createServer, type Server } from "node:http";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKubeClient } from "../../src/kube/http.ts";
import { networkCause } from "../../src/kube/network-error.ts";
import { R } from "../../src/kube/resources.ts";
import { apiserverFetch, WHOLE_BODY_MAX_BYTES } from "../../src/node/apiserver-fetch.ts";

/** A tiny apiserver: lists, a 204, a watch that sends one event and keeps the connection open. */
let server: Server;
let base = "";
const seen: { method: string; url: string; body: string; headers: Record<string, unknown> }[] = [];
/** /big: a list page larger than WHOLE_BODY_MAX_BYTES whose last part is sent only once `releaseBig` is called. */
let releaseBig: () => void = () => undefined;
const BIG_ITEM = "x".repeat(64 * 1024);
const BIG_ITEMS = Math.ceil((WHOLE_BODY_MAX_BYTES * 1.5) / BIG_ITEM.length);

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", body, headers: req.headers });
      if (/[?&]watch=(true|1|t)(&|$)/.test(req.url ?? "")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.write(JSON.stringify({ type: "ADDED", object: { metadata: { name: "p-0" } } }) + "\n");
        return; // never ends: a watch
      }
      if (req.url?.startsWith("/empty")) return void res.writeHead(204).end();
      if (req.url?.startsWith("/big")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.write(`{"kind":"PodList","metadata":{},"items":[`);
        for (let i = 0; i < BIG_ITEMS; i++) res.write(`${i ? "," : ""}{"metadata":{"name":"p-${i}","annotations":{"a":"${BIG_ITEM}"}}}`);
        releaseBig = () => res.end(`,{"metadata":{"name":"last"}}]}`);
        return;
      }
      if (req.url?.includes("/gateway/")) return void res.writeHead(502, { "content-type": "text/html" }).end("<html>upstream down</html>");
      if (req.method === "POST") return void res.writeHead(409, { "content-type": "application/json" }).end(JSON.stringify({ kind: "Status", reason: "AlreadyExists", message: "pods \"p-0\" already exists", code: 409 }));
      res.writeHead(200, { "content-type": "application/json", "set-cookie": ["a=1", "b=2"] });
      res.end(JSON.stringify({ kind: "PodList", metadata: { resourceVersion: "7" }, items: [{ metadata: { name: "p-0" } }, { metadata: { name: "p-1" } }] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe("apiserverFetch (the Node reconciler's transport)", () => {
  const client = () => createKubeClient({ baseUrl: base, fetch: apiserverFetch(), token: "t0k", sleep: async () => {} });

  it("answers a list whole, with the client's headers sent and every response header kept", async () => {
    const fetch = apiserverFetch();
    const res = await fetch(`${base}/api/v1/namespaces/a/pods`, { headers: { Accept: "application/json", Authorization: "Bearer x" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("set-cookie")).toBe("a=1, b=2");
    expect(((await res.json()) as { items: unknown[] }).items).toHaveLength(2);
    expect(seen.at(-1)?.headers.authorization).toBe("Bearer x");
    const items = await client().list(R.pods, "a");
    expect(items.map((p) => (p as { metadata: { name: string } }).metadata.name)).toEqual(["p-0", "p-1"]);
  });

  it("streams a body that outgrows WHOLE_BODY_MAX_BYTES: the Response comes before the body has ended, and reads whole and in order", async () => {
    // Before: every non-watch body was read whole first, so this await waited for the end that
    // releaseBig sends only afterwards (the test timed out), and a list of 1 MB pods was one buffer.
    const res = await apiserverFetch()(`${base}/big`);
    releaseBig();
    const body = (await res.json()) as { items: { metadata: { name: string } }[] };
    expect(body.items).toHaveLength(BIG_ITEMS + 1);
    expect(body.items.map((p) => p.metadata.name).slice(-2)).toEqual([`p-${BIG_ITEMS - 1}`, "last"]);
  });

  it("sends a write's body and hands the apiserver's Status to the client as an ApiError", async () => {
    await expect(client().create(R.pods, "a", { metadata: { name: "p-0" } })).rejects.toMatchObject({ code: 409, reason: "AlreadyExists" });
    expect(JSON.parse(seen.at(-1)?.body ?? "")).toEqual({ metadata: { name: "p-0" } });
  });

  it("keeps the status text a proxy's error answers with (the ApiError's reason when the body is no Status), as fetch did", async () => {
    const res = await apiserverFetch()(`${base}/gateway/x`);
    expect([res.status, res.statusText]).toEqual([502, "Bad Gateway"]);
    await expect(client().list(R.pods, "gateway")).rejects.toMatchObject({ code: 502, reason: "Bad Gateway", message: "<html>upstream down</html>" });
  });

  it("answers a status text the Response constructor refuses (a control character) without it, not as a failure", async () => {
    const raw = createNetServer((s) => s.once("data", () => s.end("HTTP/1.1 502 Bad\x01Gateway\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno")));
    await new Promise<void>((r) => raw.listen(0, "127.0.0.1", r));
    const res = await apiserverFetch()(`http://127.0.0.1:${(raw.address() as AddressInfo).port}/x`).finally(() => raw.close());
    expect([res.status, res.statusText, await res.text()]).toEqual([502, "", "no"]);
  });

  it("answers a 204 with no body", async () => {
    const res = await apiserverFetch()(`${base}/empty`, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
  });

  it("streams a watch: its first event is read while the response has not ended", async () => {
    const abort = new AbortController();
    const events = client().watch(R.pods, "a", { signal: abort.signal });
    const first = await events.next();
    expect(first.value).toMatchObject({ type: "ADDED", object: { metadata: { name: "p-0" } } });
    abort.abort();
    await events.return(undefined);
  });

  it("streams a watch asked as the apiserver reads a bool (watch=1, watch=t: latency bench's watches), not only watch=true", async () => {
    for (const v of ["1", "t", "true"]) {
      const abort = new AbortController();
      const res = await apiserverFetch()(`${base}/api/v1/namespaces/a/pods?watch=${v}`, { signal: abort.signal });
      const first = await res.body!.getReader().read();
      expect(new TextDecoder().decode(first.value)).toContain('"ADDED"');
      abort.abort();
    }
  });

    it("rejects with the system error's code (networkCause words it) and with the signal's reason on a timeout", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    const refused = await apiserverFetch()(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(networkCause(refused)).toMatch(/^connection refused/);
    const slow = await apiserverFetch()(`${base}/api/v1/watch-like?watch=true`, { signal: AbortSignal.timeout(1) }).then(async (r) => r.body?.getReader().read().then(() => r.body?.getReader().read())).catch((e: unknown) => e);
    expect(networkCause(slow)).toBe("no answer in time (request timed out)");
  });
});
