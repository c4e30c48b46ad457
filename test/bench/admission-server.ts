/**
 * The server half of test/bench/admission.ts, in its own process so the load generator does not
 * share its event loop: Ordinal's hono app (ES256 JWT, the set lookup answered from memory) and a
 * bare hono echo of the same body, each on its own port, plus a control port reporting the
 * longest event-loop block since the last reset. Prints {"ordinal","echo","control","token"}.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import type * as TokenModule from "../../src/auth/token.ts";

// The token module moved (src/admission → src/auth); the bench runs against either layout.
type Tokens = typeof TokenModule;
const tokens = (await import("../../src/auth/token.ts").catch(() => import(`../../src/admission/${"token.ts"}`))) as Tokens;
const { createApp } = await import("../../src/http/app.ts");
const { StatefulSetSchema } = await import("../../src/api/statefulset.ts");

const keys = await tokens.generateWebhookKeys("ES256");
const token = await tokens.issueWebhookToken({ privateKeyPem: keys.privateKeyPem, ttl: 3600 });
const set = StatefulSetSchema.parse({
  apiVersion: "apps.ordinal.dev/v1",
  kind: "StatefulSet",
  metadata: { name: "web", namespace: "default", uid: "uid-web" },
  spec: {
    replicas: 3,
    serviceName: "web",
    selector: { matchLabels: { app: "web" } },
    template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image: "nginx:1.25" }] } },
    volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
  },
});
const silent = { info() {}, warn() {}, error() {} };
const app = createApp({
  auth: { jwt: { jwks: keys.jwks } },
  reconcilerUsername: "ordinal-reconciler",
  validateAppsV1StatefulSets: false,
  lookupStatefulSet: async (ns: string, name: string) => (ns === "default" && name === "web" ? set : undefined),
  log: silent,
});
const echo = new Hono();
echo.post("/echo", async (c) => c.json(await c.req.json()));

const listen = (fetch: (r: Request) => Response | Promise<Response>) =>
  new Promise<number>((resolve) => {
    const s = serve({ fetch, port: 0, hostname: "127.0.0.1" }, (info) => resolve(info.port));
    void s;
  });
const ordinal = await listen(app.fetch);
const echoPort = await listen(echo.fetch);

const eld = monitorEventLoopDelay({ resolution: 5 });
eld.enable();
const control = createServer((req, res) => {
  if (req.url === "/reset") eld.reset();
  res.end(JSON.stringify({ maxBlockMs: eld.max / 1e6 }));
});
await new Promise<void>((r) => control.listen(0, "127.0.0.1", () => r()));
console.log(JSON.stringify({ ordinal, echo: echoPort, control: (control.address() as AddressInfo).port, token }));
