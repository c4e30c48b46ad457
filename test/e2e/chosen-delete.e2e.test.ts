/**
 * The chosen-deletion label on the real kube-apiserver 1.20 (issue 35, G8), with `ordinal serve`
 * registered as the webhooks and reconciling: a principal allowed to patch pods but not to delete
 * them is refused when it adds ordinal.dev/specified-delete (the webhook's SubjectAccessReview),
 * one that may delete is not; the reconciler then evicts the pod, so a PodDisruptionBudget holds it
 * until the budget allows a disruption (the disruption controller runs: test/cluster/start.sh).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { ApiError, type KubeClient, type KubeObject } from "../../src/kube/client.ts";
import { R } from "../../src/kube/resources.ts";
import { clientFor } from "../../src/node/kubeconfig.ts";
import { SPECIFIED_DELETE_LABEL } from "../../src/objects/constants.ts";
import { setManifest } from "../support/fixtures.ts";
import { startRegisteredServer, unregisterWebhooks, type Running } from "./servers.ts";
import { admin, adminConfig, kubectl, kubeletFor, listPods, newNamespace, setupCluster, sleep } from "./support.ts";

const LABEL = { metadata: { labels: { [SPECIFIED_DELETE_LABEL]: "true" } } };

/** accountClient creates ServiceAccount `name` in `ns` bound to a Role with `verbs` on pods, and returns a client with its token. */
async function accountClient(ns: string, name: string, verbs: string[], statusVerbs: string[] = []): Promise<KubeClient> {
  kubectl(
    ["apply", "-f", "-"],
    JSON.stringify({
      apiVersion: "v1",
      kind: "List",
      items: [
        { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace: ns } },
        { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name, namespace: ns }, rules: [{ apiGroups: [""], resources: ["pods"], verbs }, ...(statusVerbs.length ? [{ apiGroups: [""], resources: ["pods/status"], verbs: statusVerbs }] : [])] },
        {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: "RoleBinding",
          metadata: { name, namespace: ns },
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
          subjects: [{ kind: "ServiceAccount", name, namespace: ns }],
        },
      ],
    }),
  );
  for (let i = 0; i < 100; i++) {
    const sa = await admin.get<KubeObject & { secrets?: { name: string }[] }>(R.serviceAccounts, ns, name);
    const secret = sa?.secrets?.[0] && (await admin.get<KubeObject & { data?: { token?: string } }>(R.secrets, ns, sa.secrets[0].name));
    if (secret && secret.data?.token) return clientFor({ ...adminConfig, token: Buffer.from(secret.data.token, "base64").toString("utf8"), source: `e2e ${name}` });
    await sleep(200);
  }
  throw new Error(`ServiceAccount ${ns}/${name} got no token`);
}

/** until plays the kubelet while the server reconciles, until `done` holds (60 s at most). */
async function until(ns: string, done: (pods: Pod[]) => boolean | Promise<boolean>, what: string): Promise<Pod[]> {
  const kubelet = kubeletFor(ns);
  for (let i = 0; i < 200; i++) {
    await kubelet.step();
    const pods = await listPods(ns);
    if (await done(pods)) return pods;
    await sleep(300);
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify((await listPods(ns)).map((p) => [p.metadata?.name, p.status?.phase, p.metadata?.deletionTimestamp]))}`);
}

const ready = (pods: Pod[], n: number) => pods.length === n && pods.every((p) => !p.metadata?.deletionTimestamp && p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"));
const progressing = async (ns: string) => (await admin.get<StatefulSet>(R.statefulSets, ns, "web"))?.status?.conditions?.find((c) => c.type === "Progressing")?.message ?? "";

beforeAll(setupCluster);

describe("the chosen-deletion label (real apiserver, ordinal serve)", () => {
  let server: Running;
  let ns: string;
  beforeAll(async () => {
    server = await startRegisteredServer();
    ns = await newNamespace("chosen-rbac");
    await admin.create(R.statefulSets, ns, setManifest({ namespace: ns, replicas: 2, image: "nginx:1.25", container: "nginx" }));
    await until(ns, (pods) => ready(pods, 2), "2 ready pods");
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    unregisterWebhooks();
  });

  it("a principal with pods patch but no delete is refused by the webhook; one that may delete is not", async () => {
    const patcher = await accountClient(ns, "patcher", ["get", "list", "patch"], ["patch"]);
    const deleter = await accountClient(ns, "deleter", ["get", "list", "patch", "delete"]);
    // The apiserver itself refuses the patcher's delete: the label must not be a way around it.
    const del = await patcher.delete(R.pods, ns, "web-0").catch((e: unknown) => e);
    expect(del).toBeInstanceOf(ApiError);
    expect((del as ApiError).code).toBe(403);
    const refused = await patcher.patch(R.pods, ns, "web-0", LABEL, "merge").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe(403);
    expect((refused as ApiError).message).toContain('admission webhook "specified-delete.validate.ordinal.dev" denied the request: pods "web-0" is forbidden');
    expect((refused as ApiError).message).toContain(`user "system:serviceaccount:${ns}:patcher" cannot delete pods in the namespace "${ns}"`);
    // 1.20 lets a pods/status write change labels: the label is refused there too; another label is not.
    const viaStatus = await patcher.patch(R.pods, ns, "web-0", LABEL, "merge", "status").catch((e: unknown) => e);
    expect((viaStatus as ApiError).message).toContain('admission webhook "specified-delete.validate.ordinal.dev" denied the request');
    await patcher.patch(R.pods, ns, "web-0", { metadata: { labels: { other: "x" } } }, "merge", "status");
    expect((await admin.get<Pod>(R.pods, ns, "web-0"))?.metadata?.labels).toMatchObject({ other: "x" });
    expect((await admin.get<Pod>(R.pods, ns, "web-0"))?.metadata?.labels).not.toHaveProperty(SPECIFIED_DELETE_LABEL);
    // The deleter's label is admitted.
    const before = (await admin.get<Pod>(R.pods, ns, "web-1"))?.metadata?.uid;
    await deleter.patch(R.pods, ns, "web-1", LABEL, "merge");
    await until(ns, (pods) => ready(pods, 2) && pods[1].metadata?.uid !== before, "web-1 evicted and recreated");
  }, 120_000);

  it("the eviction respects a PodDisruptionBudget: held and reported while it allows nothing, done once it allows one", async () => {
    await admin.create(R.podDisruptionBudgets, ns, { apiVersion: "policy/v1beta1", kind: "PodDisruptionBudget", metadata: { name: "web", namespace: ns }, spec: { minAvailable: 2, selector: { matchLabels: { app: "web" } } } });
    // The disruption controller computes the budget's status.
    for (let i = 0; i < 100; i++) {
      const pdb = await admin.get<KubeObject & { status?: { observedGeneration?: number; currentHealthy?: number } }>(R.podDisruptionBudgets, ns, "web");
      if (pdb?.status?.observedGeneration === 1 && pdb.status.currentHealthy === 2) break;
      await sleep(200);
    }
    const uid = (await admin.get<Pod>(R.pods, ns, "web-0"))?.metadata?.uid;
    await admin.patch(R.pods, ns, "web-0", LABEL, "merge");
    await until(ns, async () => (await progressing(ns)).includes("PodDisruptionBudget"), "Progressing to name the budget");
    expect(await progressing(ns)).toContain("chosen pods wait for a PodDisruptionBudget to allow their eviction: pod web-0: Cannot evict pod as it would violate the pod's disruption budget.");
    expect(await progressing(ns)).toContain("The disruption budget web needs 2 healthy pods and has 2 currently");
    await sleep(3000);
    const held = await admin.get<Pod>(R.pods, ns, "web-0");
    expect(held?.metadata?.uid).toBe(uid);
    expect(held?.metadata?.deletionTimestamp).toBeUndefined();
    await admin.patch(R.podDisruptionBudgets, ns, "web", { spec: { minAvailable: 1 } }, "merge");
    await until(ns, (pods) => ready(pods, 2) && pods[0].metadata?.uid !== uid, "web-0 evicted once the budget allows");
    await until(ns, async () => !(await progressing(ns)).includes("PodDisruptionBudget"), "Progressing to drop the budget");
  }, 180_000);
});
