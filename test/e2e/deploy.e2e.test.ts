/**
 * deploy/ as a user applies it, with the shipped defaults, on the real kube-apiserver: the
 * kustomization (CRDs, namespace, ServiceAccount, RBAC, server, webhook configurations), then the
 * built server (dist/node/ordinal.mjs, what the image runs) with the Deployment's own environment
 * and the ServiceAccount's own token — no kubelet here, so the test runs the server's container
 * command as a process and changes only what cannot work off-cluster: the listen address, and a
 * URL the apiserver can reach instead of the Service. Then a new user's path: a set adopts an
 * existing pod (label repair through the validating webhook), `kubectl scale`, `ordinal set
 * image`, `ordinal rollout status` to the end, pause/resume, undo, `kubectl get osts`, explain.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { SET_NAME_LABEL } from "../../src/objects/constants.ts";
import type { KubeObject } from "../../src/kube/client.ts";
import { R } from "../../src/kube/resources.ts";
import { waitHealthy, type Running } from "./servers.ts";
import { admin, env, kubectl, kubectlResult, kubeletFor, listPods, newNamespace, sleep } from "./support.ts";

const BIN = "dist/node/ordinal.mjs";
const URL = "https://127.0.0.1:28443";

/** ordinal runs the built CLI as the admin user (a person at a terminal), returning code and output. */
function ordinal(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const p = spawn("node", [BIN, ...args], { env: { ...process.env, KUBECONFIG: env.KUBECONFIG, KUBE_API_URL: "", KUBE_TOKEN: "" } });
    let out = "";
    p.stdout.on("data", (d) => (out += String(d)));
    p.stderr.on("data", (d) => (out += String(d)));
    p.on("exit", (code) => resolve({ code: code ?? 1, out }));
  });
}

/** whileRunning steps the kubelet until the promise settles (the CLI polls while pods progress). */
async function whileRunning<T>(p: Promise<T>, ns: string): Promise<T> {
  let done = false;
  void p.finally(() => (done = true));
  const kubelet = kubeletFor(ns);
  while (!done) {
    await kubelet.step();
    await sleep(300);
  }
  return p;
}

async function waitFor(what: string, ns: string, ok: () => Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const kubelet = kubeletFor(ns);
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await ok()) return;
    await kubelet.step();
    await sleep(300);
  }
  const pods = await listPods(ns);
  throw new Error(`${what}: not after ${timeoutMs} ms; pods ${pods.map((p) => `${p.metadata!.name}:${p.status?.phase}`).join(", ")}\n${server?.output().slice(-3000)}`);
}

let server: Running | undefined;
let ns: string;
const getWeb = async () => (await admin.get<StatefulSet>(R.statefulSets, ns, "web"))!;

beforeAll(async () => {
  // A pod that already exists before Ordinal is installed (as after `--cascade=orphan` of a set):
  // it has the set's template labels but none of the identity labels Ordinal adds.
  ns = await newNamespace("deploy");
  kubectl(["apply", "-f", "-"], `apiVersion: v1\nkind: Pod\nmetadata: {name: web-0, namespace: ${ns}, labels: {app: web}}\nspec: {containers: [{name: nginx, image: "nginx:1.25"}]}\n`);

  // The one command. kube-apiserver 1.20 predates policy/v1 PodDisruptionBudget (1.21): the only change.
  const built = kubectl(["kustomize", "deploy/"]).replace(/apiVersion: policy\/v1\nkind: PodDisruptionBudget/, "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget");
  kubectl(["apply", "-f", "-"], built);
  kubectl(["wait", "--for=condition=Established", "crd/statefulsets.apps.ordinal.dev", "crd/imagelists.apps.ordinal.dev", "--timeout=30s"]);

  // The Deployment's container, run as a process with the ServiceAccount's own token.
  const docs = parseAllDocuments(readFileSync("deploy/server.yaml", "utf8")).map((d) => d.toJSON() as KubeObject & { spec?: { template?: { spec?: { containers?: { args: string[]; env: { name: string; value: string }[] }[] } } } });
  const container = docs.find((d) => d.kind === "Deployment")!.spec!.template!.spec!.containers![0];
  let token = "";
  for (let i = 0; i < 50 && !token; i++) {
    const sa = await admin.get<KubeObject & { secrets?: { name: string }[] }>(R.serviceAccounts, "ordinal-system", "ordinal-reconciler");
    const secret = sa?.secrets?.[0] && (await admin.get<KubeObject & { data?: { token?: string } }>(R.secrets, "ordinal-system", sa.secrets[0].name));
    token = secret && secret.data?.token ? Buffer.from(secret.data.token, "base64").toString("utf8") : "";
    if (!token) await sleep(200);
  }
  expect(token, "ServiceAccount ordinal-system/ordinal-reconciler got a token").not.toBe("");
  const vars: Record<string, string> = Object.fromEntries(container.env.map((e) => [e.name, e.value]));
  expect(vars.RECONCILER_USERNAME, "the shipped Deployment relies on the default identity").toBeUndefined();
  let out = "";
  const proc: ChildProcess = spawn("node", [BIN, ...container.args, "--interval-ms", "1000"], {
    env: {
      PATH: process.env.PATH,
      ...vars,
      HOST: "127.0.0.1",
      PORT: "28443",
      WEBHOOK_URL: URL,
      WEBHOOK_CERT_HOSTS: "127.0.0.1",
      KUBE_API_URL: env.KUBE_API_URL,
      KUBE_TOKEN: token,
      KUBE_CA_FILE: env.KUBE_CA_FILE,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  proc.stdout!.on("data", (d) => (out += String(d)));
  proc.stderr!.on("data", (d) => (out += String(d)));
  server = {
    proc,
    output: () => out,
    stop: async () => {
      if (proc.exitCode !== null) return;
      process.kill(-proc.pid!, "SIGTERM");
      await new Promise((r) => {
        const t = setTimeout(r, 10_000);
        proc.once("exit", () => (clearTimeout(t), r(undefined)));
      });
    },
  };
  // The server's certificate is in the Secret it made; trust its CA to poll /healthz.
  await waitFor("the Secret with the serving certificate", ns, async () => !!(await admin.get(R.secrets, "ordinal-system", "ordinal-webhook-tls")));
  const secret = (await admin.get<KubeObject & { data: Record<string, string> }>(R.secrets, "ordinal-system", "ordinal-webhook-tls"))!;
  const { fetchFor } = await import("../../src/node/kubeconfig.ts");
  const f = fetchFor({ server: URL, ca: Buffer.from(secret.data["ca.crt"], "base64").toString(), source: "e2e" });
  for (let i = 0; ; i++) {
    const ok = await f(`${URL}/healthz`).then((r) => r.ok, () => false);
    if (ok) break;
    if (i > 100 || proc.exitCode !== null) throw new Error(`server not healthy:\n${out}`);
    await sleep(300);
  }
  void waitHealthy;
}, 180_000);

afterAll(async () => {
  await server?.stop();
  // Leave the cluster as the other e2e files expect it: no webhook configurations pointing here.
  for (const r of [R.mutatingWebhooks, R.validatingWebhooks]) for (const n of ["ordinal", "ordinal-apps-v1"]) await admin.delete(r, undefined, n).catch(() => false);
});

describe("kubectl apply -k deploy/ with the shipped defaults", () => {
  it("the server registered the webhooks with its CA and identifies as the ServiceAccount", async () => {
    type Cfg = KubeObject & { webhooks: { clientConfig: { url?: string; caBundle?: string } }[] };
    let cfg: Cfg | undefined;
    // Registration is repaired before each pass: wait for the first one.
    for (let i = 0; i < 100 && !(cfg = await admin.get<Cfg>(R.mutatingWebhooks, undefined, "ordinal"))?.webhooks[0].clientConfig.url; i++) await sleep(300);
    expect(cfg!.webhooks[0].clientConfig.url).toBe(`${URL}/mutate/pods`);
    expect(cfg!.webhooks[0].clientConfig.caBundle).toBeTruthy();
    expect(server!.output()).toContain('"reconcilerUsername":"system:serviceaccount:ordinal-system:ordinal-reconciler"');
  });

  it("GET /metrics answers Prometheus text with the reconcile and apiserver counters", async () => {
    const secret = (await admin.get<KubeObject & { data: Record<string, string> }>(R.secrets, "ordinal-system", "ordinal-webhook-tls"))!;
    const { fetchFor } = await import("../../src/node/kubeconfig.ts");
    const f = fetchFor({ server: URL, ca: Buffer.from(secret.data["ca.crt"], "base64").toString(), source: "e2e" });
    let text = "";
    for (let i = 0; i < 50 && !/^ordinal_reconcile_passes_total \d+$/m.test(text); i++) {
      text = await (await f(`${URL}/metrics`)).text();
      await sleep(200);
    }
    expect(text).toMatch(/^ordinal_reconcile_passes_total \d+$/m);
    // A pass's first read: with shards (deploy/ ships 8), the namespaces (then its own namespaces' sets).
    expect(text).toMatch(/^ordinal_apiserver_requests_total\{code="200",resource="namespaces",verb="LIST"\} \d+$/m);
    // The reconcile thread's registry and the main thread's (webhook lookups, the identity probe)
    // are served as one: each family's HELP and TYPE once.
    const heads = text.split("\n").filter((l) => l.startsWith("# "));
    expect(heads.filter((l, i) => heads.indexOf(l) !== i)).toEqual([]);
    expect(heads).toContain("# TYPE ordinal_apiserver_requests_total counter");
  });

  it("a new set adopts the existing pod (identity labels repaired through the webhook) and converges", async () => {
    const before = (await admin.get<Pod>(R.pods, ns, "web-0"))!;
    kubectl(["apply", "-f", "-"], `apiVersion: apps.ordinal.dev/v1
kind: StatefulSet
metadata: {name: web, namespace: ${ns}}
spec:
  replicas: 3
  serviceName: web
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: "nginx:1.25"}]}
`);
    let after: Pod | undefined;
    await waitFor("web-0 adopted with its identity labels", ns, async () => {
      after = await admin.get<Pod>(R.pods, ns, "web-0");
      return !!after?.metadata?.ownerReferences?.length && after.metadata.labels?.[SET_NAME_LABEL] === "web";
    });
    expect(after!.metadata!.uid).toBe(before.metadata!.uid);
    expect(after!.metadata!.labels).toMatchObject({ [SET_NAME_LABEL]: "web", "statefulset.kubernetes.io/pod-name": "web-0" });
    expect(after!.metadata!.ownerReferences?.[0]).toMatchObject({ kind: "StatefulSet", name: "web", controller: true });
    // A pod without the set's revision label is at no revision: upstream replaces it, so does Ordinal.
    await waitFor("3 ready replicas", ns, async () => {
      const s = await getWeb();
      return s.status?.readyReplicas === 3 && s.status.updatedReplicas === 3 && s.status.observedGeneration === s.metadata.generation;
    });
  });

  it("kubectl scale osts/web --replicas=4 goes through the scale subresource", async () => {
    kubectl(["scale", "osts/web", "--replicas=4", "-n", ns]);
    await waitFor("4 ready replicas", ns, async () => (await getWeb()).status?.readyReplicas === 4);
    const status = (await getWeb()).status!;
    expect(status.labelSelector).toBe("app=web");
  });

  it("ordinal set image, then ordinal rollout status follows the rollout to the end (exit 0)", async () => {
    const set = await ordinal(["set", "image", "web", "nginx=nginx:1.26", "-n", ns]);
    expect(set).toEqual({ code: 0, out: "statefulset.apps.ordinal.dev/web image updated\n" });
    const status = await whileRunning(ordinal(["rollout", "status", "web", "-n", ns, "--timeout", "3m"]), ns);
    expect(status.code, status.out).toBe(0);
    expect(status.out.split("\n")[0]).toMatch(/^(Waiting|waiting) /); // live: the first line is a wait, not "complete"
    const s = await getWeb();
    expect(status.out.trim().split("\n").at(-1)).toBe(`statefulset rolling update complete 4 pods at revision ${s.status!.updateRevision}...`);
    const pods = await listPods(ns);
    expect(pods.map((p) => p.spec!.containers[0].image)).toEqual(["nginx:1.26", "nginx:1.26", "nginx:1.26", "nginx:1.26"]);
  });

  it("pause and resume write spec.updateStrategy.rollingUpdate.paused; undo rolls back to nginx:1.25", async () => {
    expect((await ordinal(["rollout", "pause", "web", "-n", ns])).code).toBe(0);
    expect((await getWeb()).spec.updateStrategy.rollingUpdate?.paused).toBe(true);
    expect((await ordinal(["rollout", "pause", "web", "-n", ns])).code).toBe(1);
    expect((await ordinal(["rollout", "resume", "web", "-n", ns])).code).toBe(0);
    expect((await getWeb()).spec.updateStrategy.rollingUpdate?.paused).toBe(false);
    const history = await ordinal(["rollout", "history", "web", "-n", ns]);
    expect(history.out).toContain("REVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n");
    const undo = await ordinal(["rollout", "undo", "web", "-n", ns]);
    expect(undo.code, undo.out).toBe(0);
    const status = await whileRunning(ordinal(["rollout", "status", "web", "-n", ns, "--timeout", "3m"]), ns);
    expect(status.code, status.out).toBe(0);
    expect((await listPods(ns)).map((p) => p.spec!.containers[0].image)).toEqual(["nginx:1.25", "nginx:1.25", "nginx:1.25", "nginx:1.25"]);
  });

  it("kubectl get osts shows Kruise's columns; kubectl explain describes Ordinal's fields", () => {
    const table = kubectl(["get", "osts", "-n", ns]).trim().split("\n");
    expect(table[0].split(/\s+/)).toEqual(["NAME", "DESIRED", "CURRENT", "UPDATED", "READY", "AVAILABLE", "PAUSED", "AGE"]);
    expect(table[1].split(/\s+/).slice(0, 7)).toEqual(["web", "4", "4", "4", "4", "4", "false"]);
    expect(kubectl(["get", "osts", "-n", ns, "-o", "wide"])).toMatch(/IMAGES[\s\S]*nginx:1\.25/);
    expect(kubectl(["explain", "osts.spec.updateStrategy.rollingUpdate.paused", "--api-version=apps.ordinal.dev/v1"])).toMatch(/Stops the rollout/);
    expect(kubectl(["explain", "osts.spec.replicas", "--api-version=apps.ordinal.dev/v1"])).toMatch(/kubectl\s+scale/);
  });
  it("a set written with updateStrategy {type: RollingUpdate} alone shows PAUSED false (the mutating hook's defaults); applied with OnDelete later, it drops them", async () => {
    const typed = (strategy: string) => `apiVersion: apps.ordinal.dev/v1
kind: StatefulSet
metadata: {name: typed, namespace: ${ns}}
spec:
  replicas: 0
  serviceName: typed
  selector: {matchLabels: {app: typed}}
  updateStrategy: ${strategy}
  template:
    metadata: {labels: {app: typed}}
    spec: {containers: [{name: nginx, image: "nginx:1.25"}]}
`;
    kubectl(["apply", "-f", "-"], typed("{type: RollingUpdate}"));
    const getTyped = async () => (await admin.get<StatefulSet>(R.statefulSets, ns, "typed"))!;
    expect((await getTyped()).spec.updateStrategy).toEqual({ type: "RollingUpdate", rollingUpdate: { partition: 0, paused: false, podUpdatePolicy: "ReCreate" } });
    const paused = () => {
      const [header, row] = kubectl(["get", "osts", "typed", "-n", ns]).split("\n");
      return row.slice(header.indexOf("PAUSED")).split(/\s+/)[0];
    };
    expect(paused()).toBe("false");
    // kubectl apply merges into the stored strategy (a CRD has no retainKeys): the hook drops the
    // rollingUpdate carried over, which OnDelete must not have, as apps/v1's apply does.
    const onDelete = kubectlResult(["apply", "-f", "-"], typed("{type: OnDelete}"));
    expect(onDelete.code, onDelete.stderr).toBe(0);
    expect((await getTyped()).spec.updateStrategy).toEqual({ type: "OnDelete" });
    expect(paused()).toBe(""); // an empty cell, as README says
  });
});

describe("registration without create RBAC (issue 19.7), with the shipped defaults", () => {
  const SA = "system:serviceaccount:ordinal-system:ordinal-reconciler";
  type Cfg = KubeObject & { webhooks: { name: string; clientConfig: { url?: string } }[] };
  /** until polls `ok` (300 ms apart, up to 30 s) and fails with the server's output. */
  const until = async (what: string, ok: () => Promise<boolean> | boolean) => {
    for (let i = 0; i < 100; i++) {
      if (await ok()) return;
      await sleep(300);
    }
    throw new Error(`${what}: not within 30 s\n${server?.output().slice(-3000)}`);
  };
  const mutatingUrl = async () => (await admin.get<Cfg>(R.mutatingWebhooks, undefined, "ordinal"))?.webhooks[0].clientConfig.url;

  it("the ServiceAccount may update Ordinal's configurations by name but create none (kubectl auth can-i)", () => {
    expect(kubectl(["auth", "can-i", "update", "mutatingwebhookconfigurations/ordinal", `--as=${SA}`]).trim()).toBe("yes");
    for (const r of ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"]) {
      const res = kubectlResult(["auth", "can-i", "create", r, `--as=${SA}`]);
      expect(res.stdout.trim(), r).toBe("no");
    }
    // What the server ran with: the Deployment's own setting.
    expect(readFileSync("deploy/server.yaml", "utf8")).toMatch(/name: WEBHOOK_REGISTRATION\n\s+value: update\n/);
  });

  it("a configuration annotated ordinal.dev/registration=off is left as the operator has it; removing the annotation hands it back", async () => {
    kubectl(["annotate", "mutatingwebhookconfiguration", "ordinal", "ordinal.dev/registration=off"]);
    kubectl(["patch", "mutatingwebhookconfiguration", "ordinal", "--type=json", "-p", '[{"op":"replace","path":"/webhooks/0/clientConfig/url","value":"https://127.0.0.1:1/mutate/pods"}]']);
    await until("the server reports the configuration left alone", () => server!.output().includes("webhook configuration left alone"));
    // Passes ran after it saw the annotation (1 s apart): still the operator's url.
    await sleep(3000);
    expect(await mutatingUrl()).toBe("https://127.0.0.1:1/mutate/pods");
    kubectl(["annotate", "mutatingwebhookconfiguration", "ordinal", "ordinal.dev/registration-"]);
    await until("the url is repaired once the annotation is gone", async () => (await mutatingUrl()) === `${URL}/mutate/pods`);
  });

  it("a deleted configuration is not re-created (no create RBAC, WEBHOOK_REGISTRATION=update); the server says so", async () => {
    kubectl(["delete", "validatingwebhookconfiguration", "ordinal"]);
    await until("the server reports the missing configuration", () => server!.output().includes("webhook configuration missing; not re-created"));
    await sleep(3000);
    expect(await admin.get(R.validatingWebhooks, undefined, "ordinal")).toBeUndefined();
    expect(server!.output()).not.toMatch(/forbidden[^\n]*webhookconfigurations/i);
  });
});

describe("ordinal manifests --kube-version 1.20 on this 1.20 apiserver (docs/install.md's path for clusters older than 1.21)", () => {
  it("every object is accepted (server-side dry run); without the flag the policy/v1 PodDisruptionBudget is not", async () => {
    const old = await ordinal(["manifests", "--kube-version", "1.20"]);
    expect(old.code, old.out).toBe(0);
    // Without the webhook configurations: they are deploy/'s own (applied for real in beforeAll), and
    // here the server points them at a URL instead of the Service, which kubectl's three-way merge
    // with the Service reference would refuse ("exactly one of url or service") in this stand-in only.
    const withoutWebhooks = (yaml: string) =>
      parseAllDocuments(yaml)
        .filter((d) => !/WebhookConfiguration$/.test(String((d.toJSON() as KubeObject).kind)))
        .map((d) => d.toString())
        .join("---\n");
    const applied = kubectlResult(["apply", "--dry-run=server", "-f", "-"], withoutWebhooks(old.out));
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/poddisruptionbudget\.policy\/ordinal (configured|unchanged|created) \(server dry run\)/);
    expect(applied.stdout).toMatch(/namespace\/kube-system configured \(server dry run\)/);
    const current = await ordinal(["manifests"]);
    const refused = kubectlResult(["apply", "--dry-run=server", "-f", "-"], withoutWebhooks(current.out));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/no matches for kind "PodDisruptionBudget" in version "policy\/v1"/);
  });
});
