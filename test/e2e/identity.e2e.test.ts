/**
 * The reconciler running as someone the webhooks do not take for the reconciler (issue 21):
 * `ordinal serve` with the admin's token while its webhooks expect "ordinal-reconciler". Against
 * the real kube-apiserver, which calls the webhooks with the caller's username, it must say so
 * loudly: an error line naming both identities and the fix, a Warning event on the set,
 * GET /readyz 503 and ordinal_reconciler_identity_refusals_total; at start too (the dry-run probe).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Event } from "../../src/api/k8s.ts";
import { R } from "../../src/kube/resources.ts";
import { setManifest } from "../support/fixtures.ts";
import { unregisterWebhooks, caBundle, NODE_URL, startNodeServer, waitHealthy, webhookFetch, type Running } from "./servers.ts";
import { admin, env, kubectl, kubeletFor, newNamespace, setupCluster, sleep } from "./support.ts";

/** The admin's token, the webhooks still expecting the e2e reconciler user. */
const asAdmin = () => startNodeServer({ KUBE_TOKEN: env.KUBE_TOKEN, WEBHOOK_URL: NODE_URL, WEBHOOK_CA_BUNDLE: caBundle() });

async function readyz(): Promise<[number, string]> {
  const res = await webhookFetch(`${NODE_URL}/readyz`);
  return [res.status, await res.text()];
}
const metric = async () => Number(/^ordinal_reconciler_identity_refusals_total (\d+)$/m.exec(await (await webhookFetch(`${NODE_URL}/metrics`)).text())?.[1] ?? 0);
/** errorLines returns the server's error-level JSON log lines. */
const errorLines = (r: Running) =>
  r
    .output()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.level === "error");

async function until<T>(what: string, f: () => Promise<T | undefined>, r: Running, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const v = await f();
    if (v !== undefined) return v;
    await sleep(500);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms\n${r.output().slice(-4000)}`);
}

beforeAll(setupCluster);

describe("`ordinal serve` as the admin while the webhooks expect ordinal-reconciler", () => {
  let server: Running;
  let ns: string;
  beforeAll(async () => {
    server = asAdmin();
    await waitHealthy(NODE_URL, server);
    await until("webhooks registered", async () => ((await admin.get(R.validatingWebhooks, undefined, "ordinal")) ? true : undefined), server);
  });
  afterAll(async () => {
    await server?.stop();
    unregisterWebhooks();
  });

  it("a refused write: an error line and a Warning event naming both identities, /readyz 503, the metric", async () => {
    ns = await newNamespace("identity");
    await admin.create(R.statefulSets, ns, setManifest({ namespace: ns, replicas: 1, image: "nginx:1.25", container: "nginx" }));
    const kubelet = kubeletFor(ns);
    const event = await until(
      "a ReconcilerIdentityMismatch event",
      async () => {
        await kubelet.step();
        return (await admin.list<Event>(R.events, ns)).find((e) => e.reason === "ReconcilerIdentityMismatch");
      },
      server,
    );
    expect(event).toMatchObject({ type: "Warning", involvedObject: { kind: "StatefulSet", name: "web" } });
    expect(event.message).toContain('the reconciler runs as "admin", the webhooks accept only "ordinal-reconciler" as the reconciler');
    expect(event.message).toContain("RECONCILER_USERNAME=admin");
    // Unready as soon as the pass that wrote the event ends (the invocation may go on).
    const [status, body] = await until("/readyz 503", async () => {
      const r = await readyz();
      return r[0] === 503 ? r : undefined;
    }, server, 10_000);
    expect(status).toBe(503);
    expect(body).toContain('runs as "admin"');
    expect((await webhookFetch(`${NODE_URL}/healthz`)).status).toBe(200);
    // Counted when the invocation ends.
    expect(await until("the metric", async () => ((await metric()) > 0 ? true : undefined), server, 30_000)).toBe(true);
    expect(errorLines(server)).toContainEqual(expect.objectContaining({ set: `${ns}/web`, reconciler: "admin", expected: "ordinal-reconciler" }));
  });

  it("at start, before any write: the dry-run probe finds it (no set involved)", async () => {
    kubectl(["delete", "namespace", ns, "--wait=false"]);
    await server.stop();
    // The webhook configurations stay registered at the same URL: the new process answers them.
    server = asAdmin();
    await waitHealthy(NODE_URL, server);
    const [status, body] = await until("/readyz 503", async () => {
      const r = await readyz();
      return r[0] === 503 ? r : undefined;
    }, server, 30_000);
    expect(status).toBe(503);
    expect(body).toContain('the webhooks accept only "ordinal-reconciler"');
    const probe = errorLines(server).find((l) => l.set === undefined && l.reconciler === "admin");
    expect(probe?.msg).toContain("Fix: run the reconciler with that identity's credentials");
    expect(await metric()).toBeGreaterThan(0);
  });
});
