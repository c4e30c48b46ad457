/**
 * The server half of test/bench/admission.ts, in its own process so the load generator does not
 * share its event loop: Ordinal's hono app (ES256 JWT, the set lookup answered from memory) and a
 * bare hono echo of the same body, each on its own port, plus a control port reporting the
 * longest event-loop block since the last reset, the process's CPU time and the requests each
 * app answered (so the bench can divide). Prints {"ordinal","echo","control","token"}.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { benchApps } from "./admission-apps.ts";

const { app, echo, token } = await benchApps();

const listen = (fetch: (r: Request) => Response | Promise<Response>) =>
  new Promise<number>((resolve) => {
    const s = serve({ fetch, port: 0, hostname: "127.0.0.1" }, (info) => resolve(info.port));
    void s;
  });
/** Requests each app answered, for the server's CPU per request (see the control port). */
const served = { ordinal: 0, echo: 0 };
const counted = (name: keyof typeof served, fetch: (r: Request) => Response | Promise<Response>) => (r: Request) => {
  served[name]++;
  return fetch(r);
};
const ordinal = await listen(counted("ordinal", app.fetch));
const echoPort = await listen(counted("echo", echo.fetch));

const eld = monitorEventLoopDelay({ resolution: 5 });
eld.enable();
const control = createServer((req, res) => {
  if (req.url === "/reset") eld.reset();
  const cpu = process.cpuUsage();
  // No keep-alive: the bench may leave a pooled connection idle past the server's timeout.
  res.setHeader("connection", "close");
  res.end(JSON.stringify({ maxBlockMs: eld.max / 1e6, cpuUs: cpu.user + cpu.system, served }));
});
await new Promise<void>((r) => control.listen(0, "127.0.0.1", () => r()));
console.log(JSON.stringify({ ordinal, echo: echoPort, control: (control.address() as AddressInfo).port, token }));
