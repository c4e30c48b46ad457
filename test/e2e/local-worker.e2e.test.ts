/**
 * The Worker's local recipe on the real apiserver, as a person runs it: `ordinal local --worker`
 * starts `wrangler dev` over https with the certificate it made and registered, the Worker
 * reaching the apiserver through the forwarder that presents the ordinal-reconciler
 * ServiceAccount's token. A set applied with kubectl (the admin's own identity) converges, and an
 * image change made by that person wakes the Worker at once (its wake, not the 60 s full pass);
 * Ctrl-C removes the webhook configurations.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { R } from "../../src/kube/resources.ts";
import { startLocal, type LocalRun } from "./servers.ts";
import { admin, kubectl, kubeletFor, listPods, newNamespace, setupCluster } from "./support.ts";

let local: LocalRun;

beforeAll(async () => {
  await setupCluster();
  // wrangler dev serves https with the registered CA's certificate: /healthz through it.
  local = await startLocal({ port: 28446, args: ["--worker"], env: { CI: "true" }, probe: "/healthz", timeoutMs: 90_000 });
}, 180_000);

afterAll(() => local?.close());

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
    await local.until("web converged at nginx:1.27", () => converged("nginx:1.27"));
    const changed = Date.now();
    kubectl(["-n", ns, "patch", "statefulsets.apps.ordinal.dev", "web", "--type=json", "-p", '[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:1.28"}]']);
    await local.until("the first pod recreated at nginx:1.28", async () => {
      await kubelet.step();
      return (await listPods(ns)).some((p) => p.spec?.containers[0].image === "nginx:1.28") ? true : undefined;
    }, 30_000);
    const seenMs = Date.now() - changed;
    console.log(`the Worker acted on the image change after ${seenMs} ms`);
    // Its full pass comes every 60 s (wrangler.toml): acting well before says the admission woke it.
    expect(seenMs).toBeLessThan(20_000);
    await local.until("web converged at nginx:1.28", () => converged("nginx:1.28"), 120_000);
  });

  it("Ctrl-C: wrangler dev stops and the webhook configurations are gone", async () => {
    const code = await local.interrupt();
    expect(code, local.output().slice(-2000)).toBe(0);
    expect(await admin.get(R.mutatingWebhooks, undefined, "ordinal")).toBeUndefined();
    expect(await admin.get(R.validatingWebhooks, undefined, "ordinal")).toBeUndefined();
  });
});
