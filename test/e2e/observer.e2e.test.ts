/**
 * The chaos run's observer (test/chaos/observer/) on the real apiserver: its watches, their
 * resourceVersion order and the audit log's format are the apiserver's, not a fake's. A test
 * plays two writers with Ordinal's user agent: one holding the namespace's Lease that creates
 * pods in order (no violation), and a rogue one without it that creates a pod outside the range
 * (two violations: the range, and a write without the Lease). Webhooks are off in the namespace:
 * nothing but this test writes there.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { R } from "../../src/kube/resources.ts";
import { clientFor } from "../../src/node/kubeconfig.ts";
import { startObserver } from "../chaos/observer/index.ts";
import { admin, adminConfig, env, newNamespace, setupCluster, sleep } from "./support.ts";

let ns: string;
beforeAll(async () => {
  await setupCluster();
  ns = await newNamespace("observer");
  await admin.patch(R.namespaces, undefined, ns, { metadata: { labels: { "ordinal.dev/webhooks": "disabled" } } }, "merge");
});
afterAll(async () => {
  await admin.delete(R.namespaces, undefined, ns).catch(() => undefined);
});

/** podOf returns pod `app-<o>` controlled by the set. */
const podOf = (o: number, uid: string): Pod => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: `app-${o}`, namespace: ns, ownerReferences: [{ apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet", name: "app", uid, controller: true }] },
  spec: { containers: [{ name: "app", image: "registry.example/app:1" }] },
});

describe("the chaos observer on the real apiserver", () => {
  it("judges pods in order and replicas' writes against the namespace's Lease, from the watches and the audit log", async () => {
    const auditLogPath = process.env.ORDINAL_AUDIT_LOG;
    expect(auditLogPath, "run through npm run e2e (it sets ORDINAL_AUDIT_LOG)").toBeTruthy();
    const obs = startObserver({ apiUrl: env.KUBE_API_URL, token: env.KUBE_TOKEN, caFile: env.KUBE_CA_FILE, namespaces: [ns], auditLogPath, leaseNamespace: ns, injected: () => [], settleMs: 300 });
    try {
      const holder = clientFor(adminConfig, "ordinal/e2e-holder");
      const rogue = clientFor(adminConfig, "ordinal/e2e-rogue");
      const now = new Date().toISOString().replace("Z", "000Z");
      await admin.create(R.leases, ns, { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "ordinal-reconciler", namespace: ns }, spec: { holderIdentity: "e2e-holder", leaseDurationSeconds: 30, renewTime: now, acquireTime: now } });
      const set = await admin.create<{ apiVersion: string; kind: string; metadata?: { name?: string; namespace?: string; uid?: string }; spec: unknown }>(R.statefulSets, ns, {
        apiVersion: "apps.ordinal.dev/v1",
        kind: "StatefulSet",
        metadata: { name: "app", namespace: ns },
        spec: { replicas: 2, serviceName: "app", selector: { matchLabels: { app: "app" } }, template: { metadata: { labels: { app: "app" } }, spec: { containers: [{ name: "app", image: "registry.example/app:1" }] } } },
      });
      const uid = set.metadata!.uid!;
      // The watches must have listed before the writes they judge: wait for the set to be seen.
      await sleep(2000);
      await holder.create(R.pods, ns, podOf(0, uid));
      const ready = { phase: "Running", conditions: [{ type: "Ready", status: "True", lastTransitionTime: new Date().toISOString() }] };
      await holder.patch(R.pods, ns, "app-0", { status: ready }, "merge", "status");
      await holder.create(R.pods, ns, podOf(1, uid));
      await holder.patch(R.pods, ns, "app-1", { status: ready }, "merge", "status");
      await rogue.create(R.pods, ns, podOf(2, uid));
      await sleep(1500);
    } finally {
      const report = await obs.stop();
      expect(report.violations.map((v) => [v.rule, v.object])).toEqual([
        ["pod-outside-range", `${ns}/app-2`],
        ["write-without-lease", `pods ${ns}/app-2`],
      ]);
      expect(report.checks?.["ordered-ready-create"]).toBe(3);
      // app-0's and app-1's creates and statuses by the holder; app-2's create by the rogue.
      expect(report.auditWrites).toBe(5);
    }
  });
});
