/**
 * The Worker's way to a local cluster in `ordinal local --worker`: a plain-HTTP forwarder on
 * 127.0.0.1 to the apiserver that presents the reconciler's ServiceAccount token on every request.
 * workerd cannot trust a cluster's private CA, and the Worker then needs no token of its own
 * (KUBE_ANONYMOUS): its writes are the ServiceAccount's, and a person's edits, made under their own
 * kubeconfig identity, wake it. Whatever credentials a request carries are replaced.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { apiserverFetch } from "./apiserver-fetch.ts";

/** Request headers not forwarded: hop-by-hop ones, and any credentials the caller sent. */
const DROPPED = new Set(["host", "connection", "content-length", "authorization", "keep-alive", "transfer-encoding", "upgrade", "proxy-authorization"]);

/**
 * startApiForward listens on 127.0.0.1 (an ephemeral port) and forwards each request to `server`
 * (trusting `ca`) with `Authorization: Bearer <token>`; returns its URL and a close function.
 */
export async function startApiForward(server: string, token: string, ca?: string): Promise<{ url: string; close: () => Promise<void> }> {
  const fetch = apiserverFetch({ ca });
  const http: Server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && !DROPPED.has(k)) headers[k] = v;
      try {
        const upstream = await fetch(`${server}${req.url ?? "/"}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
        res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" });
        res.end(Buffer.from(await upstream.arrayBuffer()));
      } catch (e) {
        res.writeHead(502, { "content-type": "text/plain" });
        res.end(`ordinal local: the apiserver did not answer: ${e instanceof Error ? e.message : String(e)}`);
      }
    })();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => http.close(() => r())) };
}
