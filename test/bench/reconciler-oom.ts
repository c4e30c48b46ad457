/**
 * Measures issue 19's "a reconciler failure can never take admission down with it": runs the built
 * `ordinal serve` (dist/node/ordinal.mjs; `npm run build:node` first) against the fake apiserver
 * served over HTTP, holding more managed pods than the reconciler's heap can list, and asks the
 * webhooks for a decision every 100 ms for 20 s. Side by side in one run:
 * - the reconciler in its heap-bounded thread (RECONCILE_HEAP_MB=24): the thread dies of OOM and
 *   is restarted, admission keeps answering;
 * - the reconciler in the serving thread (RECONCILE_HEAP_MB=0, the process capped at the same
 *   heap with --max-old-space-size): the process dies, admission stops.
 * Usage: npm run bench:oom
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

const HEAP_MB = 24;
const PODS = 60_000;
const SECONDS = 20;

/** serveFake serves a fake apiserver holding one set and PODS of its pods on `port` (in its own process: see below). */
async function serveFake(port: number): Promise<void> {
  const fake = createFakeApiServer({ namespaces: ["default", "ordinal-system"] });
  fake.seed(setManifest({ name: "big", replicas: PODS, policy: "Parallel" }));
  const padding = "x".repeat(200);
  for (let i = 0; i < PODS; i++) {
    fake.seed({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: `big-${i}`, namespace: "default", labels: { app: "big", "ordinal.dev/statefulset": "big" }, annotations: { note: padding } },
      spec: { containers: [{ name: "c", image: "nginx:1.25" }] },
    });
  }
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const r = await fake.fetch(`https://fake${req.url}`, { method: req.method, headers: req.headers as Record<string, string>, body: chunks.length ? Buffer.concat(chunks) : undefined });
    res.writeHead(r.status, { "content-type": "application/json" });
    res.end(Buffer.from(await r.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  console.log("ready");
}

/** fakeOverHttp starts serveFake in a child process (so its long lists never stall the measuring loop) and returns its URL. */
async function fakeOverHttp(): Promise<{ url: string; close: () => void }> {
  const port = 18930;
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1], "--api", String(port)], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve) => child.stdout.on("data", (d: Buffer) => d.toString().includes("ready") && resolve()));
  return { url: `http://127.0.0.1:${port}`, close: () => child.kill("SIGKILL") };
}

const review = JSON.stringify({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: {
    uid: "u1",
    kind: { group: "apps.ordinal.dev", version: "v1", kind: "StatefulSet" },
    resource: { group: "apps.ordinal.dev", version: "v1", resource: "statefulsets" },
    operation: "CREATE",
    namespace: "default",
    userInfo: { username: "admin" },
    object: setManifest({ name: "web", replicas: 1 }),
  },
});

/** run starts serve with `env`, asks for decisions for SECONDS, and returns what happened. */
async function run(label: string, apiUrl: string, port: number, env: Record<string, string>, nodeArgs: string[]) {
  const child = spawn(process.execPath, [...nodeArgs, "dist/node/ordinal.mjs", "serve", "--port", String(port), "--host", "127.0.0.1"], {
    env: { ...process.env, KUBECONFIG: "", KUBE_API_URL: apiUrl, KUBE_TOKEN: "t", WEBHOOK_AUTH: "none", RECONCILER_USERNAME: "ordinal", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  let diedAt: number | undefined;
  child.on("exit", () => (diedAt = Date.now() - t0));
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, 1500));
  let ok = 0;
  let failed = 0;
  while (Date.now() - t0 < SECONDS * 1000) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/validate/statefulsets`, { method: "POST", headers: { "content-type": "application/json" }, body: review, signal: AbortSignal.timeout(2000) });
      if (res.status === 200 && ((await res.json()) as { response?: { allowed?: boolean } }).response?.allowed === true) ok++;
      else failed++;
    } catch {
      failed++;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const died = diedAt;
  child.kill("SIGKILL");
  const ooms = (stderr.match(/reconcile thread failed/g) ?? []).length;
  console.log(
    `  ${label.padEnd(46)} admission answered ${String(ok).padStart(3)}/${ok + failed}` +
      `; reconcile thread OOMs (thread restarted): ${ooms}; serve process died: ${died === undefined ? "no" : `yes, at ${(died / 1000).toFixed(1)} s`}`,
  );
}

if (process.argv[2] === "--api") {
  await serveFake(Number(process.argv[3]));
  await new Promise(() => {});
}
const api = await fakeOverHttp();
console.log(`== issue 19: the reconciler runs out of heap (${PODS} managed pods, ${HEAP_MB} MB for it); webhooks asked every 100 ms for ${SECONDS} s`);
await run(`reconciler in a thread (RECONCILE_HEAP_MB=${HEAP_MB})`, api.url, 18931, { RECONCILE_HEAP_MB: String(HEAP_MB) }, []);
await run(`reconciler in-process (--max-old-space-size=${HEAP_MB})`, api.url, 18932, { RECONCILE_HEAP_MB: "0" }, [`--max-old-space-size=${HEAP_MB}`]);
api.close();
