/** startApiForward (`ordinal local --worker`): what reaches the apiserver carries the ServiceAccount's token, never the caller's credentials. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startApiForward } from "../../src/node/api-forward.ts";

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

describe("startApiForward", () => {
  it("forwards method, path, body and answer, with Authorization replaced by the ServiceAccount's token", async () => {
    const seen: { method?: string; url?: string; authorization?: string; body: string }[] = [];
    const upstream = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += String(d)));
      req.on("end", () => {
        seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization, body });
        res.writeHead(201, { "content-type": "application/json" });
        res.end('{"kind":"Pod"}');
      });
    });
    await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
    closers.push(() => new Promise((r) => upstream.close(r)));
    const forward = await startApiForward(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, "sa-token");
    closers.push(forward.close);
    const res = await fetch(`${forward.url}/api/v1/namespaces/default/pods?dryRun=All`, { method: "POST", headers: { authorization: "Bearer the-person", "content-type": "application/json" }, body: '{"kind":"Pod"}' });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ kind: "Pod" });
    expect(seen).toEqual([{ method: "POST", url: "/api/v1/namespaces/default/pods?dryRun=All", authorization: "Bearer sa-token", body: '{"kind":"Pod"}' }]);
  });

  it("answers 502 naming the cause when the apiserver does not answer", async () => {
    const forward = await startApiForward("http://127.0.0.1:9", "sa-token");
    closers.push(forward.close);
    const res = await fetch(`${forward.url}/version`);
    expect(res.status).toBe(502);
    expect(await res.text()).toMatch(/^ordinal local: the apiserver did not answer/);
  });
});
