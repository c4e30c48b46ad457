/**
 * What Ordinal's binding hook (bindings.validate.ordinal.dev, issue 19 finding 6) costs every pod
 * binding in the cluster while the webhook server hangs: it accepts connections and never answers.
 * Measured on the real kube-apiserver (test/cluster), side by side in one run, warm-up then medians:
 *   - no webhook registered (the floor);
 *   - the hook as it was (timeoutSeconds 2);
 *   - the hook as shipped (timeoutSeconds 1, the smallest the API allows);
 *   - the hook as shipped, binding in kube-system labelled `ordinal.dev/webhooks=disabled` (what
 *     `ordinal manifests --kube-version 1.20` applies; from 1.21 the name label excludes it).
 * On 1.28+ the hook also carries matchConditions, so no Binding without the reserved annotation is
 * sent at all; this 1.20 apiserver cannot show that.
 *
 * Run (a throw-away cluster; serialized with the e2e suite):
 *   flock /tmp/ordinal-e2e.lock bash -c 'bash test/cluster/start.sh >/dev/null && npx tsx test/bench/binding-webhook.ts; bash test/cluster/stop.sh'
 */
import { readFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import type { KubeObject } from "../../src/kube/client.ts";
import { R } from "../../src/kube/resources.ts";
import { clientFor } from "../../src/node/kubeconfig.ts";
import { CONFIG_NAME, WEBHOOKS_OPT_OUT_LABEL, webhookConfigurations } from "../../src/webhook-config/webhook-configs.ts";

const dir = process.env.ORDINAL_CLUSTER_DIR ?? "/tmp/ordinal-cluster";
const env = JSON.parse(readFileSync(`${dir}/env.json`, "utf8")) as { KUBE_API_URL: string; KUBE_TOKEN: string; KUBE_CA_FILE: string };
const ca = readFileSync(env.KUBE_CA_FILE, "utf8");
const admin = clientFor({ server: env.KUBE_API_URL, token: env.KUBE_TOKEN, ca, source: "bench admin" });

const WARMUP = 1;
const SAMPLES = 5;
const BENCH_NS = "bench-binding";
const NODE = "bench-node";
const CONFIG = "ordinal-bench-binding";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** hungServer listens on 127.0.0.1 and holds every connection open without a byte of answer. */
async function hungServer(): Promise<{ port: number; close: () => void }> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on("error", () => sockets.delete(s));
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return { port, close: () => (sockets.forEach((s) => s.destroy()), server.close()) };
}

/** bindingHook returns the ValidatingWebhookConfiguration with only Ordinal's binding hook, pointing at `url`, with `overrides`. */
function bindingHook(url: string, overrides: Record<string, unknown>): KubeObject {
  const validating = webhookConfigurations({ url, caBundle: Buffer.from(ca).toString("base64") }).find((c) => c.object.kind === "ValidatingWebhookConfiguration" && c.object.metadata?.name === CONFIG_NAME)!;
  const hook = validating.object.webhooks!.find((w) => w.name === "bindings.validate.ordinal.dev")!;
  return { apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingWebhookConfiguration", metadata: { name: CONFIG }, webhooks: [{ ...hook, ...overrides }] };
}

/** bindOnce creates an unbound pod in `ns` and returns how long its POST pods/NAME/binding took (ms). */
async function bindOnce(ns: string, i: number): Promise<number> {
  const name = `bench-${i}`;
  await admin.create(R.pods, ns, { apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers: [{ name: "c", image: "busybox" }] } });
  const t0 = performance.now();
  await admin.createSubresource(R.pods, ns, name, "binding", { apiVersion: "v1", kind: "Binding", metadata: { name }, target: { apiVersion: "v1", kind: "Node", name: NODE } });
  const ms = performance.now() - t0;
  await admin.delete(R.pods, ns, name, { gracePeriodSeconds: 0 });
  return ms;
}

let counter = 0;
/** measure returns the median binding latency (ms) in `ns` after WARMUP unmeasured bindings. */
async function measure(ns: string): Promise<{ median: number; samples: number[] }> {
  for (let i = 0; i < WARMUP; i++) await bindOnce(ns, counter++);
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) samples.push(await bindOnce(ns, counter++));
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)], samples };
}

/** register replaces the bench configuration and waits until the apiserver's webhook source has it (a binding in `ns` slows down, or 3 s pass). */
async function register(obj: KubeObject | undefined): Promise<void> {
  await admin.delete(R.validatingWebhooks, undefined, CONFIG).catch(() => false);
  if (obj) await admin.create(R.validatingWebhooks, undefined, obj);
  // The apiserver reads webhook configurations through an informer: give it time to notice.
  await sleep(3000);
}

async function main(): Promise<void> {
  const hung = await hungServer();
  const url = `https://127.0.0.1:${hung.port}`;
  await admin.create(R.nodes, undefined, { apiVersion: "v1", kind: "Node", metadata: { name: NODE } }).catch(() => undefined);
  await admin.create(R.namespaces, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name: BENCH_NS } }).catch(() => undefined);
  // The default ServiceAccount must exist before pods are admitted.
  for (let i = 0; i < 50 && !(await admin.get(R.serviceAccounts, BENCH_NS, "default")); i++) await sleep(200);
  const rows: [string, { median: number; samples: number[] }][] = [];
  try {
    await register(undefined);
    rows.push(["no webhook", await measure(BENCH_NS)]);
    await register(bindingHook(url, { timeoutSeconds: 2 }));
    rows.push(["hung server, timeoutSeconds 2 (before)", await measure(BENCH_NS)]);
    await register(bindingHook(url, {}));
    rows.push(["hung server, as shipped (timeoutSeconds 1)", await measure(BENCH_NS)]);
    await admin.patch(R.namespaces, undefined, "kube-system", { metadata: { labels: { [WEBHOOKS_OPT_OUT_LABEL]: "disabled" } } }, "merge");
    await sleep(3000);
    rows.push([`hung server, as shipped, kube-system labelled ${WEBHOOKS_OPT_OUT_LABEL}=disabled`, await measure("kube-system")]);
  } finally {
    await register(undefined).catch(() => undefined);
    await admin.patch(R.namespaces, undefined, "kube-system", { metadata: { labels: { [WEBHOOKS_OPT_OUT_LABEL]: null } } }, "merge").catch(() => undefined);
    hung.close();
  }
  console.log(`pods/binding latency on kube-apiserver ${(await admin.serverVersion()).gitVersion} (median of ${SAMPLES} after ${WARMUP} warm-up; ms)`);
  for (const [what, r] of rows) console.log(`  ${what.padEnd(78)} ${r.median.toFixed(0).padStart(6)}   [${r.samples.map((s) => s.toFixed(0)).join(", ")}]`);
}

await main();
