// The webhook body limit: 413 over the limit whether the length is declared or streamed (the
// BodyBudget counts a streamed one), on
// @hono/node-server as the Node runtime serves it and in-process (issue 11: the limit must not
// turn Node's lightweight request into a full web Request when the length is declared).
import { request as httpRequest } from "node:http";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { WEBHOOK_PATHS } from "../../src/webhook-config/webhook-configs.ts";
import { declaredLengthLimit } from "../../src/http/body-limit.ts";
import { nodeBody } from "../../src/node/node-body.ts";
import { handMadePod, request, review } from "../admission/helpers.ts";
import { testApp } from "../admission/test-app.ts";

const LIMIT = 8 * 1024;
const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

/** A pod CREATE review padded with an extra field to exactly `bytes` bytes of JSON. */
function reviewOfSize(bytes: number): string {
  const text = JSON.stringify(review(request({ object: handMadePod("web-1"), name: "web-1" })));
  const padding = bytes - text.length - `,"padding":""`.length;
  if (padding < 0) throw new Error("review larger than asked");
  return `${text.slice(0, -1)},"padding":"${"x".repeat(padding)}"}`;
}

/** postOverNode POSTs `body` to the app served by @hono/node-server, chunked or with a Content-Length; resolves to the status. */
async function postOverNode(fetch: (r: Request) => Response | Promise<Response>, token: string, body: string, chunked: boolean): Promise<number> {
  const port = await new Promise<number>((resolve) => {
    const server = serve({ fetch, port: 0, hostname: "127.0.0.1" }, (info) => resolve(info.port));
    closers.push(() => server.close());
  });
  return new Promise<number>((resolve, reject) => {
    const headers: Record<string, string | number> = { "content-type": "application/json", authorization: `Bearer ${token}` };
    if (!chunked) headers["content-length"] = Buffer.byteLength(body);
    const req = httpRequest({ host: "127.0.0.1", port, path: WEBHOOK_PATHS.mutatePods, method: "POST", headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    // Chunked: several writes, so the server sees the body arrive in pieces.
    for (let i = 0; i < body.length; i += 1000) req.write(body.slice(i, i + 1000));
    req.end();
  });
}

describe("createApp on @hono/node-server: body limit", () => {
  for (const [chunked, direct] of [[false, false], [true, false], [false, true], [true, true]]) {
    const how = `${chunked ? "chunked" : "with Content-Length"}, ${direct ? "read from the IncomingMessage (serve's nodeBody)" : "read from the web stream"}`;
    it(`serves a body at the limit and answers 413 one byte over (${how})`, async () => {
      const t = await testApp({ maxBodyBytes: LIMIT, ...(direct ? { bodySource: nodeBody } : {}) });
      expect(await postOverNode(t.app.fetch, t.token, reviewOfSize(LIMIT), chunked)).toBe(200);
      expect(await postOverNode(t.app.fetch, t.token, reviewOfSize(LIMIT + 1), chunked)).toBe(413);
      expect(t.log.lines.filter((e) => e.msg === "webhook request refused").map((e) => e.fields?.status)).toEqual([413]);
    });
  }
});

describe("declaredLengthLimit", () => {
  /** An app behind the limit that echoes the body's length, and counts reads of `request.body` (the stream). */
  const limited = () => {
    const app = new Hono();
    app.post("/", declaredLengthLimit({ maxSize: 10, onError: (c) => c.text("too large", 413) }), async (c) => c.text(String((await c.req.text()).length)));
    let bodyReads = 0;
    const send = (body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) => {
      const r = new Request("http://localhost/", { method: "POST", body, headers, duplex: "half" } as RequestInit);
      const watched = new Proxy(r, {
        get(target, key) {
          if (key === "body") bodyReads++;
          const v: unknown = Reflect.get(target, key, target);
          return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      });
      return app.fetch(watched);
    };
    return { send, bodyReads: () => bodyReads };
  };
  const stream = (text: string) =>
    new ReadableStream<Uint8Array>({
      start(ctrl) {
        for (const ch of text) ctrl.enqueue(new TextEncoder().encode(ch));
        ctrl.close();
      },
    });

  it("judges a declared length by the header alone, without touching the body stream", async () => {
    const l = limited();
    const ok = await l.send("0123456789", { "content-length": "10" });
    expect([ok.status, await ok.text()]).toEqual([200, "10"]);
    expect((await l.send("01234567890", { "content-length": "11" })).status).toBe(413);
    expect(l.bodyReads()).toBe(0);
  });

  it("lets a body without a declared length (or with Transfer-Encoding) through: the BodyBudget counts it", async () => {
    const l = limited();
    const ok = await l.send(stream("01234567890"));
    expect([ok.status, await ok.text()]).toEqual([200, "11"]);
    expect((await l.send(stream("01234567890"), { "transfer-encoding": "chunked" })).status).toBe(200);
  });
});
