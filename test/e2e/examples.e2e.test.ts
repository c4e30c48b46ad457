/**
 * The local recipe and examples/ on the real apiserver, as a person runs them: `ordinal local`
 * (the kubeconfig's admin registers; the server runs as the ordinal-reconciler ServiceAccount with
 * a TokenRequest token) serves the webhooks and the reconciler; every manifest in examples/ is
 * applied with kubectl into a namespace of its own and must converge (the test plays the
 * kubelet); an in-place image change keeps the pods; Ctrl-C removes the webhook configurations.
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { R } from "../../src/kube/resources.ts";
import { fetchFor } from "../../src/node/kubeconfig.ts";
import { unregisterWebhooks } from "./servers.ts";
import { admin, env, kubectl, kubeletFor, listPods, newNamespace, setupCluster, sleep } from "./support.ts";

const PORT = 28445;
const URL = `https://127.0.0.1:${PORT}`;
const EXAMPLES = readdirSync("examples").filter((f) => f.endsWith(".yaml")).sort();

type Hooks = { webhooks: { clientConfig: { url?: string; caBundle?: string } }[] };
let local: ReturnType<typeof spawn>;
let output = "";

/** until polls f every 300 ms until it returns a value, or fails naming `what` with the server's output. */
async function until<T>(what: string, f: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const v = await f();
    if (v !== undefined) return v;
    if (local.exitCode !== null) break;
    await sleep(300);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms\n${output.slice(-4000)}`);
}

/** converge plays the kubelet in `ns` until the set `name` reports every replica ready and updated at one revision. */
async function converge(ns: string, name: string): Promise<StatefulSet> {
  const kubelet = kubeletFor(ns);
  return until(`${ns}/${name} converged`, async () => {
    await kubelet.step();
    const set = await admin.get<StatefulSet>(R.statefulSets, ns, name);
    const s = set?.status;
    const done = set && s && s.observedGeneration === set.metadata.generation && s.readyReplicas === set.spec.replicas && s.updatedReplicas === set.spec.replicas && s.currentRevision === s.updateRevision;
    return done ? set : undefined;
  });
}

beforeAll(async () => {
  await setupCluster();
  unregisterWebhooks();
  // Leases an earlier file's server left would hold this reconciler back for their 30 s.
  const leases = kubectl(["-n", "ordinal-system", "get", "leases", "-o", "name"]).split("\n").filter((n) => n.includes("ordinal-reconciler"));
  if (leases.length) kubectl(["-n", "ordinal-system", "delete", ...leases, "--ignore-not-found"]);
  // The documented command, as a person runs it: only a kubeconfig (the admin's) in the environment.
  local = spawn("node", ["src/cli/bin.mjs", "local", "--port", String(PORT)], {
    env: { ...process.env, KUBECONFIG: env.KUBECONFIG, KUBE_API_URL: "", KUBE_TOKEN: "", KUBE_CA_FILE: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  local.stdout!.on("data", (d) => (output += String(d)));
  local.stderr!.on("data", (d) => (output += String(d)));
  const hooks = await until("the webhooks registered at the local URL", async () => {
    const h = await admin.get<Hooks>(R.mutatingWebhooks, undefined, "ordinal");
    return h?.webhooks.every((w) => w.clientConfig.url?.startsWith(`${URL}/`)) ? h : undefined;
  });
  // The server's certificate is signed by the CA it registered: /readyz through it, as the apiserver connects.
  const ca = Buffer.from(hooks.webhooks[0].clientConfig.caBundle ?? "", "base64").toString();
  const fetch = fetchFor({ server: URL, ca, source: "ordinal local" });
  await until("/readyz 200", async () => {
    try {
      return (await fetch(`${URL}/readyz`)).status === 200 ? true : undefined;
    } catch {
      return undefined;
    }
  });
});

afterAll(async () => {
  if (local && local.exitCode === null) {
    local.kill("SIGINT");
    await new Promise((r) => local.once("exit", r));
  }
  unregisterWebhooks();
});

describe("examples/, applied through `ordinal local`", () => {
  it("has the five documented examples", () => {
    expect(EXAMPLES).toEqual(["claims-grow.yaml", "in-place-rollback.yaml", "lifecycle-hooks.yaml", "plain.yaml", "prewarm.yaml"]);
  });

  it.each(EXAMPLES)("%s: kubectl apply, then every replica Ready at one revision", async (file) => {
    const ns = await newNamespace("example");
    const applied = kubectl(["apply", "-n", ns, "-f", `examples/${file}`]);
    const name = /statefulset\.apps\.ordinal\.dev\/(\S+)/.exec(applied)?.[1];
    expect(name, applied).toBeDefined();
    const set = await converge(ns, name!);
    const pods = await listPods(ns);
    expect(pods.map((p) => p.metadata?.name)).toEqual(Array.from({ length: set.spec.replicas ?? 1 }, (_, i) => `${name}-${i}`));
    // Identity from Ordinal's webhook, on every pod.
    for (const p of pods) expect(p.metadata?.labels?.["statefulset.kubernetes.io/pod-name"]).toBe(p.metadata?.name);
  });

  it("in-place-rollback.yaml: a new image is rolled out in place (the same pods), not recreated", async () => {
    const ns = await newNamespace("example");
    kubectl(["apply", "-n", ns, "-f", "examples/in-place-rollback.yaml"]);
    await converge(ns, "db");
    const uids = (await listPods(ns)).map((p: Pod) => p.metadata?.uid);
    kubectl(["-n", ns, "patch", "statefulsets.apps.ordinal.dev", "db", "--type=json", "-p", '[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:1.28"}]']);
    await until("every pod at nginx:1.28", async () => {
      const set = await converge(ns, "db");
      const pods = await listPods(ns);
      return set.status?.updateRevision && pods.every((p) => p.spec?.containers[0].image === "nginx:1.28") ? true : undefined;
    });
    expect((await listPods(ns)).map((p: Pod) => p.metadata?.uid)).toEqual(uids);
  });

  it("Ctrl-C: the server stops and the webhook configurations are gone", async () => {
    local.kill("SIGINT");
    const code = await new Promise((r) => local.once("exit", r));
    expect(code, output.slice(-2000)).toBe(0);
    expect(await admin.get(R.mutatingWebhooks, undefined, "ordinal")).toBeUndefined();
    expect(await admin.get(R.validatingWebhooks, undefined, "ordinal")).toBeUndefined();
    expect(output).toContain("MutatingWebhookConfiguration/ordinal deleted");
  });
});
