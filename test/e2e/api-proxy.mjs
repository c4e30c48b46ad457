// A plain-HTTP forwarder to the test apiserver (TLS with its CA), run as its own process so that
// synchronous kubectl calls in the test process cannot stall it. Usage: node api-proxy.mjs PORT
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { Agent, fetch } from "undici";

const port = Number(process.argv[2]);
const target = process.env.KUBE_API_URL;
const dispatcher = new Agent({ connect: { ca: readFileSync(process.env.KUBE_CA_FILE, "utf8") } });
// A client that goes away mid-request (a Worker killed with SIGKILL: worker-restart.e2e.test.ts)
// ends that request only: reading its body or writing the answer fails, and the proxy goes on
// (before, the rejection ended the proxy and every later request of the restarted Worker failed).
createServer(async (req, res) => {
  try {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const headers = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && !["host", "connection", "content-length"].includes(k)) headers[k] = v;
    const upstream = await fetch(`${target}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined, dispatcher });
    const body = Buffer.from(await upstream.arrayBuffer());
    res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" });
    res.end(body);
  } catch (e) {
    if (res.destroyed) return;
    if (!res.headersSent) res.writeHead(502);
    res.end(String(e));
  }
}).listen(port, "127.0.0.1", () => console.log(`proxy on ${port}`));
