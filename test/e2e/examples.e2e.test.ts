/**
 * The local recipe and examples/ on the real apiserver, as a person runs them: `ordinal local`
 * (the kubeconfig's admin registers; the server runs as the ordinal-reconciler ServiceAccount with
 * a TokenRequest token) serves the webhooks and the reconciler; every manifest in examples/ is
 * applied with kubectl into a namespace of its own and must converge (the test plays the
 * kubelet); an in-place image change keeps the pods; Ctrl-C removes the webhook configurations.
 */
import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { R } from "../../src/kube/resources.ts";
import { startLocal, type LocalRun } from "./servers.ts";
import { admin, kubectl, kubeletFor, listPods, newNamespace, setupCluster } from "./support.ts";

const EXAMPLES = readdirSync("examples").filter((f) => f.endsWith(".yaml")).sort();

let local: LocalRun;

/** converge plays the kubelet in `ns` until the set `name` reports every replica ready and updated at one revision. */
async function converge(ns: string, name: string): Promise<StatefulSet> {
  const kubelet = kubeletFor(ns);
  return local.until(`${ns}/${name} converged`, async () => {
    await kubelet.step();
    const set = await admin.get<StatefulSet>(R.statefulSets, ns, name);
    const s = set?.status;
    const done = set && s && s.observedGeneration === set.metadata.generation && s.readyReplicas === set.spec.replicas && s.updatedReplicas === set.spec.replicas && s.currentRevision === s.updateRevision;
    return done ? set : undefined;
  });
}

beforeAll(async () => {
  await setupCluster();
  // The documented command, as a person runs it: only a kubeconfig (the admin's) in the environment.
  local = await startLocal({ port: 28445, probe: "/readyz", timeoutMs: 60_000 });
});

afterAll(() => local?.close());

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
    await local.until("every pod at nginx:1.28", async () => {
      const set = await converge(ns, "db");
      const pods = await listPods(ns);
      return set.status?.updateRevision && pods.every((p) => p.spec?.containers[0].image === "nginx:1.28") ? true : undefined;
    });
    expect((await listPods(ns)).map((p: Pod) => p.metadata?.uid)).toEqual(uids);
  });

  it("Ctrl-C: the server stops and the webhook configurations are gone", async () => {
    const code = await local.interrupt();
    expect(code, local.output().slice(-2000)).toBe(0);
    expect(await admin.get(R.mutatingWebhooks, undefined, "ordinal")).toBeUndefined();
    expect(await admin.get(R.validatingWebhooks, undefined, "ordinal")).toBeUndefined();
    expect(local.output()).toContain("MutatingWebhookConfiguration/ordinal deleted");
  });
});
