/**
 * A converged fake cluster in its own process, for the benches that must not count the apiserver's
 * heap and CPU as the reconciler's (shard-cost.ts): `tsx fake-process.ts <sets> <pods> <namespaces>`
 * builds convergedCluster(...) and serves it over HTTP on 127.0.0.1; it prints `{"port":N}` once
 * listening, answers `GET /__bench/stats` with its own CPU (µs) and the response bytes it served so
 * far (so the reconciler's side needs no meter around its reads), and exits when stdin closes (its
 * parent died or is done).
 */
import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import { convergedCluster } from "./pass-cost.ts";

const [sets, pods, namespaces] = process.argv.slice(2).map(Number);
if (![sets, pods, namespaces].every(Number.isInteger)) throw new Error("usage: fake-process.ts <sets> <pods> <namespaces>");
const fake = convergedCluster(sets, pods, 0, namespaces);
/** Response bytes served so far (what the reconciler read). */
let bytes = 0;
const server = serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: async (req) => {
    if (new URL(req.url).pathname === "/__bench/stats") {
      const c = process.cpuUsage();
      return Response.json({ us: c.user + c.system, bytes });
    }
    const res = await fake.fetch(req);
    const body = await res.arrayBuffer();
    bytes += body.byteLength;
    return new Response(body, res);
  },
});
server.once("listening", () => console.log(JSON.stringify({ port: (server.address() as AddressInfo).port })));
process.stdin.resume();
process.stdin.once("end", () => process.exit(0));
