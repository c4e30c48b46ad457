/**
 * The admission webhooks against the real kube-apiserver: registered with a caBundle, called
 * over https with the JWT from the apiserver's admission config, once served by `ordinal serve`
 * on Node and once by the Worker under `wrangler dev`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { R } from "../../src/kube/resources.ts";
import { unregisterWebhooks, caBundle, KEYS, NODE_URL, startApiProxy, startNodeServer, startWorker, waitHealthy, webhookFetch, WORKER_URL, type Running } from "./servers.ts";
import { admin, kubectl, kubectlResult, newNamespace, setupCluster, sleep } from "./support.ts";

const setYaml = (ns: string, extra = "") => `
apiVersion: apps.ordinal.dev/v1
kind: StatefulSet
metadata: {name: web, namespace: ${ns}}
spec:
  replicas: 2
  serviceName: web
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: nginx, image: "nginx:1.25"}]
  volumeClaimTemplates:
  - metadata: {name: www}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
${extra}`;

const badSetYaml = (ns: string) => `
apiVersion: apps.ordinal.dev/v1
kind: StatefulSet
metadata: {name: bad, namespace: ${ns}}
spec:
  replicas: 1
  serviceName: bad
  selector: {matchLabels: {app: bad}}
  template:
    metadata: {labels: {app: other}}
    spec:
      containers: [{name: Bad_Name, image: "nginx 1.25"}]
`;

const handPod = (ns: string) => `
apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: ${ns}
  labels: {app: web, ordinal.dev/statefulset: web}
spec:
  containers: [{name: nginx, image: "nginx:1.25"}]
  volumes: [{name: www, emptyDir: {}}]
`;

/** The checks every webhook server must pass, in a fresh namespace. */
function webhookChecks(label: string) {
  let ns: string;
  beforeAll(async () => {
    ns = await newNamespace(`wh-${label}`);
    kubectl(["apply", "-f", "-"], setYaml(ns));
  });

  it("kubectl apply of a bad spec prints our field errors", () => {
    const r = kubectlResult(["apply", "-f", "-"], badSetYaml(ns));
    expect(r.code).not.toBe(0);
    // A 422 with causes: kubectl lists them as it does for the apiserver's own validation.
    expect(r.stderr).toContain('The StatefulSet "bad" is invalid');
    expect(r.stderr).toContain("`selector` does not match template `labels`");
    expect(r.stderr).toContain("spec.template.spec.containers[0].name");
  });

  it("a hand-created pod for ordinal 1 gets identity labels, hostname, its PVC volume and the readiness gate", () => {
    const pod = JSON.parse(kubectl(["create", "-o", "json", "-f", "-"], handPod(ns))) as Pod;
    expect(pod.metadata!.labels).toMatchObject({ "statefulset.kubernetes.io/pod-name": "web-1", "apps.kubernetes.io/pod-index": "1" });
    expect(pod.spec).toMatchObject({ hostname: "web-1", subdomain: "web" });
    expect(pod.spec!.volumes!.find((v) => v.name === "www")).toMatchObject({ persistentVolumeClaim: { claimName: "www-web-1" } });
    expect(pod.spec!.volumes!.find((v) => v.name === "www")!.emptyDir).toBeUndefined();
    expect(pod.spec!.readinessGates).toContainEqual({ conditionType: "InPlaceUpdateReady" });
  });

  it("kubectl patch of a managed pod's env is denied", () => {
    // The apiserver's own pod-update validation runs before validating webhooks and refuses
    // this first; our hook would name /spec/containers/0/env (unit-tested).
    const r = kubectlResult(["-n", ns, "patch", "pod", "web-1", "--type", "json", "-p", '[{"op":"add","path":"/spec/containers/0/env","value":[{"name":"A","value":"1"}]}]']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('The Pod "web-1" is invalid');
  });

  it("a spec change the apiserver allows but in-place rules do not is denied with our message and JSON path", () => {
    const r = kubectlResult(["-n", ns, "patch", "pod", "web-1", "--type", "json", "-p", '[{"op":"add","path":"/spec/tolerations/-","value":{"key":"x","operator":"Exists","effect":"NoSchedule"}}]']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('a pod of Ordinal StatefulSet "web" may change only spec.containers[*].image');
    expect(r.stderr).toContain("/spec/tolerations/");
  });

  it("an image-only patch passes", async () => {
    kubectl(["-n", ns, "patch", "pod", "web-1", "--type", "json", "-p", '[{"op":"replace","path":"/spec/containers/0/image","value":"nginx:1.26"}]']);
    const pod = await admin.get<Pod>(R.pods, ns, "web-1");
    expect(pod!.spec!.containers[0].image).toBe("nginx:1.26");
  });

  it("removing an identity label is denied for anyone but the reconciler", () => {
    const r = kubectlResult(["-n", ns, "label", "pod", "web-1", "apps.kubernetes.io/pod-index-"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("apps.kubernetes.io/pod-index");
  });

  it("a switchover request (ordinal.dev/switchover-requested) is denied for anyone but the reconciler", () => {
    const r = kubectlResult(["-n", ns, "annotate", "pod", "web-1", "ordinal.dev/switchover-requested=2026-12-05T01:00:00Z"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("ordinal.dev/switchover-requested");
    expect(r.stderr).toContain("the application answers by moving the role label");
  });
}

beforeAll(setupCluster);

describe("webhooks served by `ordinal serve` on Node (https://127.0.0.1:28443)", () => {
  let server: Running;
  beforeAll(async () => {
    // The server's own reconcile passes register the webhooks (and repair drift).
    server = startNodeServer({ WEBHOOK_URL: NODE_URL, WEBHOOK_CA_BUNDLE: caBundle() });
    await waitHealthy(NODE_URL, server);
    for (let i = 0; i < 60; i++) {
      const m = await admin.get(R.mutatingWebhooks, undefined, "ordinal");
      if (m) break;
      await sleep(500);
    }
    expect(await admin.get(R.mutatingWebhooks, undefined, "ordinal")).toBeDefined();
  });
  afterAll(async () => {
    await server?.stop();
  });

  webhookChecks("node");

  it("a reconcile pass repairs a deleted webhook configuration", async () => {
    await admin.delete(R.validatingWebhooks, undefined, "ordinal");
    let back = false;
    for (let i = 0; i < 60 && !back; i++) {
      await sleep(500);
      back = !!(await admin.get(R.validatingWebhooks, undefined, "ordinal"));
    }
    expect(back).toBe(true);
  });

  it("requests without the JWT are refused with 401", async () => {
    const res = await webhookFetch(`${NODE_URL}/validate/statefulsets`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(res.status).toBe(401);
  });
});

describe("webhooks served by the Worker under wrangler dev (https://127.0.0.1:28787)", () => {
  let worker: Running;
  let proxy: Running;
  beforeAll(async () => {
    proxy = startApiProxy(28788);
    worker = startWorker("http://127.0.0.1:28788");
    await waitHealthy(WORKER_URL, worker, 120_000);
    kubectl(["delete", "mutatingwebhookconfiguration", "ordinal", "--ignore-not-found"]);
    kubectl(["delete", "validatingwebhookconfiguration", "ordinal", "--ignore-not-found"]);
    const out = kubectl(["version", "--client"]);
    expect(out).toBeTruthy();
    const { execFileSync } = await import("node:child_process");
    const { env } = await import("./support.ts");
    execFileSync("node", ["src/cli/bin.mjs", "register", "--url", WORKER_URL, "--ca-bundle", `${KEYS}/tls.crt`], {
      env: { ...process.env, KUBE_API_URL: env.KUBE_API_URL, KUBE_TOKEN: env.KUBE_TOKEN, KUBE_CA_FILE: env.KUBE_CA_FILE, KUBECONFIG: "" },
      encoding: "utf8",
    });
  }, 180_000);
  afterAll(async () => {
    await worker?.stop();
    await proxy?.stop();
    unregisterWebhooks();
  });

  webhookChecks("worker");

  it("a new set's pods come from the wakes its admissions send the shard's Durable Object, with no cron tick", async () => {
    // The Node server of the describe above is stopped; its Lease must not make the Worker wait for its expiry.
    kubectl(["-n", "ordinal-system", "delete", "lease", "ordinal-reconciler", "--ignore-not-found"]);
    const ns = await newNamespace("wh-wake");
    const applied = Date.now();
    kubectl(["apply", "-f", "-"], setYaml(ns).replace("replicas: 2", "replicas: 1"));
    let pod: Pod | undefined;
    // Well within the shard's safety interval (60 s) and the cron's minute: only a wake makes it this soon.
    for (let i = 0; i < 40 && !pod; i++) {
      await sleep(250);
      pod = await admin.get<Pod>(R.pods, ns, "web-0");
    }
    expect(pod?.metadata?.labels?.["controller-revision-hash"] ?? "no pod", worker.output().slice(-3000)).toMatch(/^web-/);
    console.log(`[worker] apply -> first pod seen: ${Date.now() - applied} ms`);
  });

  it("/__scheduled runs a reconcile pass of the Worker against the real apiserver", async () => {
    const ns = await newNamespace("wh-cron");
    kubectl(["apply", "-f", "-"], setYaml(ns).replace("replicas: 2", "replicas: 1"));
    // A kept-alive socket that wrangler dev closed while idle fails the first request with "other
    // side closed"; a pass is idempotent, so that one is sent again on a new connection.
    const scheduled = () => webhookFetch(`${WORKER_URL}/__scheduled?cron=*+*+*+*+*`);
    const res = await scheduled()
      .catch((e: unknown) => ((e as { cause?: { code?: string } }).cause?.code === "UND_ERR_SOCKET" ? scheduled() : Promise.reject(e)))
      .catch((e: unknown) => {
        throw new Error(`/__scheduled failed: ${String(e)}\n${worker.output().slice(-3000)}`);
      });
    expect(res.status, worker.output().slice(-3000)).toBe(200);
    let pod: Pod | undefined;
    for (let i = 0; i < 40 && !pod; i++) {
      await sleep(500);
      pod = await admin.get<Pod>(R.pods, ns, "web-0");
    }
    expect(pod?.metadata?.labels?.["controller-revision-hash"], worker.output().slice(-3000)).toMatch(/^web-/);
    expect(await admin.get(R.pvcs, ns, "www-web-0")).toBeDefined();
  });
});
