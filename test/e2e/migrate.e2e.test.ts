/**
 * Migrating an apps/v1 StatefulSet to Ordinal on the real kube-apiserver without restarting its
 * pods. The apps/v1 controller is off in the test cluster, so the test writes what it would have
 * written (a ControllerRevision holding the apiserver-defaulted template, pods labelled with that
 * revision, their PVCs), then does what the README says: delete the apps/v1 set with
 * --cascade=orphan and apply the same spec as apps.ordinal.dev/v1. Ordinal adopts the pods and
 * the revision and keeps every pod (same UIDs, nothing deleted).
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { canonicalJson } from "../../src/core/hash.ts";
import type { KubeObject } from "../../src/kube/client.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { runReconcile } from "../../src/schedule/loop.ts";
import { allReady } from "./driver.ts";
import { admin, kubectl, kubeletFor, listPods, newNamespace, setupCluster, sleep } from "./support.ts";

const spec = `
  replicas: 2
  serviceName: web
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        ports: [{containerPort: 80, name: web}]
        volumeMounts: [{name: www, mountPath: /usr/share/nginx/html}]
      volumes: [{name: cfg, configMap: {name: web-config}}]
  volumeClaimTemplates:
  - metadata: {name: www}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}`;

describe("migrating an apps/v1 StatefulSet", () => {
  it("keeps every pod: Ordinal reuses the apps/v1 revision its pods are labelled with", async () => {
    await setupCluster();
    const ns = await newNamespace("migrate");
    kubectl(["apply", "-f", "-"], `apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: web, namespace: ${ns}}\nspec:${spec}\n`);
    const sts = (await admin.get<KubeObject & { spec: { template: Record<string, unknown> } }>(R.appsStatefulSets, ns, "web"))!;
    const owner = { apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: sts.metadata!.uid!, controller: true, blockOwnerDeletion: true };
    // What the apps/v1 controller writes: its revision (its own hash in the name), PVCs, pods.
    const revName = "web-5f8c7d9b6";
    await admin.create(R.controllerRevisions, ns, {
      apiVersion: "apps/v1",
      kind: "ControllerRevision",
      metadata: { name: revName, labels: { app: "web", "controller.kubernetes.io/hash": "5f8c7d9b6" }, ownerReferences: [owner] },
      // The controller's bytes have sorted keys (json.Marshal of a map): the GC's orphaning patch of
      // a ControllerRevision fails ("data: field is immutable") on 1.20 when they do not.
      data: JSON.parse(canonicalJson({ spec: { template: { ...sts.spec.template, $patch: "replace" } } })) as unknown,
      revision: 1,
    });
    const template = sts.spec.template as { metadata: { labels: Record<string, string> }; spec: { volumes: unknown[] } & Record<string, unknown> };
    for (const i of [0, 1]) {
      await admin.create(R.pvcs, ns, {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: { name: `www-web-${i}`, labels: { app: "web" } },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      });
      await admin.create(R.pods, ns, {
        apiVersion: "v1",
        kind: "Pod",
        metadata: {
          name: `web-${i}`,
          labels: { ...template.metadata.labels, "controller-revision-hash": revName, "statefulset.kubernetes.io/pod-name": `web-${i}` },
          ownerReferences: [owner],
        },
        spec: { ...template.spec, hostname: `web-${i}`, subdomain: "web", volumes: [...template.spec.volumes, { name: "www", persistentVolumeClaim: { claimName: `www-web-${i}` } }] },
      });
    }
    const kubelet = kubeletFor(ns);
    for (let i = 0; i < 6; i++) await kubelet.step();
    const before = await listPods(ns);
    expect(before.map((p) => p.metadata!.name)).toEqual(["web-0", "web-1"]);

    // docs/install.md's steps ("Migrating an apps/v1 StatefulSet").
    kubectl(["delete", "sts", "web", "-n", ns, "--cascade=orphan", "--timeout=60s"]);
    for (let i = 0; i < 100 && (await listPods(ns)).some((p) => p.metadata?.ownerReferences?.length); i++) await sleep(200);
    kubectl(["apply", "-f", "-"], `apiVersion: apps.ordinal.dev/v1\nkind: StatefulSet\nmetadata: {name: web, namespace: ${ns}}\nspec:${spec}\n`);

    // Reconcile with a Lease of this test's own namespace: another file's server may still hold
    // ordinal-system's for a few seconds after it stopped.
    const uids = new Set(before.map((p) => p.metadata!.uid));
    const converged = (pods: Pod[]) => allReady(2, revName)(pods) && pods.every((p) => p.metadata?.ownerReferences?.[0]?.kind === "StatefulSet");
    for (let i = 0; i < 40 && !converged(await listPods(ns)); i++) {
      await runReconcile(admin, { log: silentLogger, holder: "e2e-migrate", leaseNamespace: ns, budgetMs: 30_000, maxPasses: 1, namespace: ns });
      expect((await listPods(ns)).map((p) => p.metadata!.uid).filter((u) => !uids.has(u)), "no pod created or replaced").toEqual([]);
      await kubelet.step();
    }
    const after = await listPods(ns);
    expect(after.map((p) => p.metadata!.uid)).toEqual(before.map((p) => p.metadata!.uid));
    expect(after[0].metadata!.ownerReferences![0]).toMatchObject({ apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet", name: "web" });
    for (let i = 0; i < 10; i++) {
      const s = (await admin.get<StatefulSet>(R.statefulSets, ns, "web"))!;
      if (s.status?.currentRevision) {
        expect(s.status).toMatchObject({ currentRevision: revName, updateRevision: revName, replicas: 2 });
        return;
      }
      await runReconcile(admin, { log: silentLogger, holder: "e2e-migrate", leaseNamespace: ns, budgetMs: 30_000, maxPasses: 1, namespace: ns });
    }
    throw new Error("status never written");
  });
});
