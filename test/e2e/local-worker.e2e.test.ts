/**
 * The Worker's local recipe on the real apiserver, as a person runs it: `ordinal local --worker`
 * starts `wrangler dev` over https with the certificate it made and registered, the Worker
 * reaching the apiserver through the forwarder that presents the ordinal-reconciler
 * ServiceAccount's token. A set applied with kubectl (the admin's own identity) converges, and an
 * image change made by that person wakes the Worker at once (its wake, not the 60 s full pass);
 * Ctrl-C removes the webhook configurations.
 */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { R } from "../../src/kube/resources.ts";
import { fetchFor } from "../../src/node/kubeconfig.ts";
import { unregisterWebhooks } from "./servers.ts";
import { admin, env, kubectl, kubeletFor, listPods, newNamespace, setupCluster, sleep } from "./support.ts";

const PORT = 28446;
const URL = `https://127.0.0.1:${PORT}`;
type Hooks = { webhooks: { clientConfig: { url?: string; caBundle?: string } }[] };
let local: ReturnType<typeof spawn>;
let output = "";

async function until<T>(what: string, f: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const v = await f();
    if (v !== undefined) return v;
    if (local.exitCode !== null) break;
    await sleep(300);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms\n${output.slice(-4000)}`);
}

beforeAll(async () => {
  await setupCluster();
  unregisterWebhooks();
  const leases = kubectl(["-n", "ordinal-system", "get", "leases", "-o", "name"]).split("\n").filter((n) => n.includes("ordinal-reconciler"));
  if (leases.length) kubectl(["-n", "ordinal-system", "delete", ...leases, "--ignore-not-found"]);
  local = spawn("node", ["src/cli/bin.mjs", "local", "--worker", "--port", String(PORT)], {
    env: { ...process.env, KUBECONFIG: env.KUBECONFIG, KUBE_API_URL: "", KUBE_TOKEN: "", KUBE_CA_FILE: "", CI: "true" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  local.stdout!.on("data", (d) => (output += String(d)));
  local.stderr!.on("data", (d) => (output += String(d)));
  const hooks = await until("the webhooks registered at the local URL", async () => {
    const h = await admin.get<Hooks>(R.mutatingWebhooks, undefined, "ordinal");
    return h?.webhooks.every((w) => w.clientConfig.url?.startsWith(`${URL}/`)) ? h : undefined;
  });
  // wrangler dev serves https with the registered CA's certificate: /healthz through it.
  const fetch = fetchFor({ server: URL, ca: Buffer.from(hooks.webhooks[0].clientConfig.caBundle ?? "", "base64").toString(), source: "ordinal local --worker" });
  await until("wrangler dev answering /healthz over https", async () => {
    try {
      return (await fetch(`${URL}/healthz`)).ok ? true : undefined;
    } catch {
      return undefined;
    }
  });
}, 180_000);

afterAll(async () => {
  if (local && local.exitCode === null) {
    local.kill("SIGINT");
    await new Promise((r) => local.once("exit", r));
  }
  unregisterWebhooks();
});

describe("`ordinal local --worker`", () => {
  it("examples/plain.yaml converges; a person's image change is seen at once, in place of the next full pass", async () => {
    const ns = await newNamespace("worker-local");
    kubectl(["apply", "-n", ns, "-f", "examples/plain.yaml"]);
    const kubelet = kubeletFor(ns);
    const converged = async (image: string) => {
      await kubelet.step();
      const set = await admin.get<StatefulSet>(R.statefulSets, ns, "web");
      const s = set?.status;
      const pods = await listPods(ns);
      return set && s && s.observedGeneration === set.metadata.generation && s.readyReplicas === 3 && s.updatedReplicas === 3 && pods.length === 3 && pods.every((p) => p.spec?.containers[0].image === image) ? true : undefined;
    };
    await until("web converged at nginx:1.27", () => converged("nginx:1.27"));
    const changed = Date.now();
    kubectl(["-n", ns, "patch", "statefulsets.apps.ordinal.dev", "web", "--type=json", "-p", '[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:1.28"}]']);
    await until("the first pod recreated at nginx:1.28", async () => {
      await kubelet.step();
      return (await listPods(ns)).some((p) => p.spec?.containers[0].image === "nginx:1.28") ? true : undefined;
    }, 30_000);
    const seenMs = Date.now() - changed;
    console.log(`the Worker acted on the image change after ${seenMs} ms`);
    // Its full pass comes every 60 s (wrangler.toml): acting well before says the admission woke it.
    expect(seenMs).toBeLessThan(20_000);
    await until("web converged at nginx:1.28", () => converged("nginx:1.28"), 120_000);
  });

  it("Ctrl-C: wrangler dev stops and the webhook configurations are gone", async () => {
    local.kill("SIGINT");
    const code = await new Promise((r) => local.once("exit", r));
    expect(code, output.slice(-2000)).toBe(0);
    expect(await admin.get(R.mutatingWebhooks, undefined, "ordinal")).toBeUndefined();
    expect(await admin.get(R.validatingWebhooks, undefined, "ordinal")).toBeUndefined();
  });
});
