/**
 * runLocal (`ordinal local`) on the fake apiserver (Kubernetes 1.20.2), with the server it starts
 * played by a fake child process: what it registers, the server's environment (the ServiceAccount's
 * own token, the local certificate, no kubeconfig), and that everything it added is gone after.
 */
import { EventEmitter } from "node:events";
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createKubeClient } from "../../src/kube/http.ts";
import type { KubeClient } from "../../src/kube/client.ts";
import { R } from "../../src/kube/resources.ts";
import { foreignTarget, runLocal } from "../../src/node/local-run.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";

const SA_TOKEN = "header.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6b3JkaW5hbC1zeXN0ZW06b3JkaW5hbC1yZWNvbmNpbGVyIn0.sig";

async function world(o: { serviceAccount?: boolean } = {}) {
  const fake = createFakeApiServer({ namespaces: ["default", "ordinal-system", "kube-system"] });
  const base = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
  const tokenRequests: unknown[] = [];
  // The fake has no TokenRequest API: answered here, as the apiserver answers serviceaccounts/NAME/token.
  const admin: KubeClient = Object.assign(Object.create(base) as KubeClient, {
    createSubresource: async <T extends object>(r: typeof R.pods, ns: string | undefined, name: string, sub: string, obj: object) => {
      if (r.resource === "serviceaccounts" && sub === "token") {
        tokenRequests.push({ ns, name, obj });
        return { status: { token: SA_TOKEN } } as T;
      }
      return base.createSubresource<T>(r, ns, name, sub, obj);
    },
  });
  if (o.serviceAccount !== false) await admin.create(R.serviceAccounts, "ordinal-system", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "ordinal-reconciler", namespace: "ordinal-system" } });
  const out: string[] = [];
  const err: string[] = [];
  const started: { program: string; args: string[]; env: Record<string, string | undefined>; files: Record<string, string> }[] = [];
  /** What the server saw while it ran: the configurations and kube-system's labels. */
  const seen: { urls?: string[]; caBundle?: string; kubeSystem?: Record<string, string> } = {};
  const startServer = (program: "ordinal" | "wrangler", args: string[], env: Record<string, string | undefined>): ChildProcess => {
    const flag = (f: string) => args[args.indexOf(f) + 1];
    started.push({ program, args, env, files: { cert: readFileSync(flag("--tls-cert") ?? flag("--https-cert-path"), "utf8"), ca: env.KUBE_CA_FILE ? readFileSync(env.KUBE_CA_FILE, "utf8") : "" } });
    const child = new EventEmitter();
    void (async () => {
      const hooks = await admin.get<{ webhooks: { clientConfig: { url: string; caBundle: string } }[] }>(R.mutatingWebhooks, undefined, "ordinal");
      seen.urls = hooks?.webhooks.map((w) => w.clientConfig.url);
      seen.caBundle = hooks?.webhooks[0]?.clientConfig.caBundle;
      seen.kubeSystem = (await admin.get<{ metadata: { labels?: Record<string, string> } }>(R.namespaces, undefined, "kube-system"))?.metadata.labels;
      child.emit("exit", 0, null); // the server stops (Ctrl-C)
    })();
    return Object.assign(child, { kill: () => true }) as unknown as ChildProcess;
  };
  const cluster = { server: "https://10.0.0.1:6443", ca: "-----BEGIN CERTIFICATE-----\nCLUSTER\n-----END CERTIFICATE-----\n", source: "test kubeconfig" };
  const run = (worker = false) => runLocal(cluster, admin, { port: 28445, worker, tokenSeconds: 3600, out: (l) => out.push(l), err: (l) => err.push(l), env: { KUBECONFIG: "/home/me/.kube/config", PATH: "/bin" }, startServer });
  return { admin, run, out, err, started, seen, tokenRequests };
}

describe("runLocal", () => {
  it("registers the webhooks at https://127.0.0.1:PORT with its own CA, serves as the ServiceAccount, and removes what it added on exit", async () => {
    const w = await world();
    expect(await w.run()).toBe(0);
    expect(w.tokenRequests).toEqual([{ ns: "ordinal-system", name: "ordinal-reconciler", obj: expect.objectContaining({ kind: "TokenRequest", spec: { expirationSeconds: 3600 } }) }]);
    // While it served: every hook at the local URL, trusting the CA that signed the server's certificate.
    expect(w.seen.urls?.length).toBeGreaterThan(0);
    for (const u of w.seen.urls ?? []) expect(u.startsWith("https://127.0.0.1:28445/")).toBe(true);
    expect(Buffer.from(w.seen.caBundle ?? "", "base64").toString()).toMatch(/BEGIN CERTIFICATE/);
    expect(w.seen.kubeSystem).toMatchObject({ "ordinal.dev/webhooks": "disabled" });
    const [server] = w.started;
    expect(server.args).toEqual(["serve", "--host", "127.0.0.1", "--port", "28445", "--tls-cert", expect.any(String), "--tls-key", expect.any(String)]);
    expect(server.files.cert).toMatch(/BEGIN CERTIFICATE/);
    expect(server.files.ca).toContain("CLUSTER");
    expect(server.env).toMatchObject({ KUBE_API_URL: "https://10.0.0.1:6443", KUBE_TOKEN: SA_TOKEN, WEBHOOK_AUTH: "none", WEBHOOK_URL: "https://127.0.0.1:28445", WEBHOOK_REGISTRATION: "update", PATH: "/bin" });
    expect(server.env.KUBECONFIG).toBeUndefined();
    expect(server.env.RECONCILER_USERNAME).toBeUndefined();
    // After: no configuration, no label, and the certificate files gone.
    expect(await w.admin.get(R.mutatingWebhooks, undefined, "ordinal")).toBeUndefined();
    expect(await w.admin.get(R.validatingWebhooks, undefined, "ordinal")).toBeUndefined();
    expect((await w.admin.get<{ metadata: { labels?: Record<string, string> } }>(R.namespaces, undefined, "kube-system"))?.metadata.labels?.["ordinal.dev/webhooks"]).toBeUndefined();
    expect(() => readFileSync(server.args[6], "utf8")).toThrow(/ENOENT/);
    expect(w.out.join("\n")).toMatch(/MutatingWebhookConfiguration\/ordinal deleted/);
    expect(w.err).toEqual([]);
  });

  it("--worker: wrangler dev over https with the same certificate, reaching the apiserver through a forwarder that presents the ServiceAccount's token", async () => {
    const w = await world();
    let forwarded: { status: number; authorization?: string } | undefined;
    // The forwarder is tried while the Worker runs: it answers from the (unreachable) cluster with a 502, proving the route.
    const seenArgs: string[][] = [];
    const code = await runLocal({ server: "https://127.0.0.1:9", source: "test" }, w.admin, {
      port: 28446,
      worker: true,
      tokenSeconds: 3600,
      out: () => {},
      err: () => {},
      env: { PATH: "/bin" },
      startServer: (program, args, env) => {
        seenArgs.push([program, ...args]);
        expect(env.WRANGLER_SEND_METRICS).toBe("false");
        const child = new EventEmitter();
        const apiUrl = /^KUBE_API_URL:(.*)$/.exec(args.find((a) => a.startsWith("KUBE_API_URL:")) ?? "")?.[1] ?? "";
        void fetch(`${apiUrl}/version`, { headers: { authorization: "Bearer someone-else" } }).then((r) => {
          forwarded = { status: r.status };
          child.emit("exit", 0, null);
        });
        return Object.assign(child, { kill: () => true }) as unknown as ChildProcess;
      },
    });
    expect(code).toBe(0);
    const [args] = seenArgs;
    expect(args.slice(0, 11)).toEqual(["wrangler", "dev", "--ip", "127.0.0.1", "--port", "28446", "--local-protocol", "https", "--https-key-path", expect.any(String), "--https-cert-path"]);
    expect(args).toContain("KUBE_ANONYMOUS:true");
    expect(args).toContain("WEBHOOK_URL:https://127.0.0.1:28446");
    expect(args.join(" ")).not.toContain(SA_TOKEN);
    expect(forwarded?.status).toBe(502);
    expect(await w.admin.get(R.mutatingWebhooks, undefined, "ordinal")).toBeUndefined();
  });

  it("refuses to take over webhooks another install registered (a Service), and touches nothing", async () => {
    const w = await world();
    const other = { apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingWebhookConfiguration", metadata: { name: "ordinal" }, webhooks: [{ name: "pods.mutate.ordinal.dev", clientConfig: { service: { namespace: "ordinal-system", name: "ordinal-webhooks" } }, sideEffects: "None", admissionReviewVersions: ["v1"] }] };
    await w.admin.create(R.mutatingWebhooks, undefined, other);
    expect(await w.run()).toBe(1);
    expect(w.err.join("\n")).toMatch(/points at service ordinal-system\/ordinal-webhooks: another Ordinal serves this cluster/);
    expect(w.started).toEqual([]);
    expect(await w.admin.get(R.mutatingWebhooks, undefined, "ordinal")).toBeDefined();
  });

  it("without the ServiceAccount, says what to install first", async () => {
    const w = await world({ serviceAccount: false });
    await expect(w.run()).rejects.toThrow(/ordinal-system\/ordinal-reconciler does not exist: install the CRDs and RBAC first: kubectl apply -f deploy\/crds\//);
  });
});

describe("foreignTarget", () => {
  const cfg = (clientConfig: object) => ({ webhooks: [{ clientConfig }] });
  it.each([
    ["none registered", undefined, undefined],
    ["a local run's", cfg({ url: "https://127.0.0.1:8443/mutate/pods" }), undefined],
    ["localhost", cfg({ url: "https://localhost:9443/mutate/pods" }), undefined],
    ["the placeholder deploy/ writes", cfg({ url: "https://ordinal.invalid/mutate/pods" }), undefined],
    ["a Service", cfg({ service: { namespace: "ordinal-system", name: "ordinal-webhooks" } }), "service ordinal-system/ordinal-webhooks"],
    ["a Worker", cfg({ url: "https://ordinal.example.workers.dev/mutate/pods" }), "https://ordinal.example.workers.dev/mutate/pods"],
  ])("%s", (_, config, expected) => {
    expect(foreignTarget(config)).toBe(expected);
  });
});
