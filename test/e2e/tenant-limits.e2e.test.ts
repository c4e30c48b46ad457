/**
 * What a tenant may ask of Ordinal, on the real kube-apiserver (issue 19): the CRD's maximum on
 * spec.replicas holds for every write, the scale subresource included (`kubectl scale`, an HPA),
 * which no admission webhook sees.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_REPLICAS, type StatefulSet } from "../../src/api/statefulset.ts";
import { R } from "../../src/kube/resources.ts";
import { setManifest } from "../support/fixtures.ts";
import { admin, kubectl, kubectlResult, newNamespace, setupCluster } from "./support.ts";

const replicasOf = async (ns: string) => (await admin.get<StatefulSet>(R.statefulSets, ns, "web"))?.spec.replicas;

beforeAll(setupCluster);

describe("spec.replicas above MAX_REPLICAS", () => {
  let ns: string;
  beforeAll(async () => {
    ns = await newNamespace("replicas-max");
    await admin.create(R.statefulSets, ns, setManifest({ namespace: ns, replicas: 1 }));
  });

  it("is refused on create by the CRD schema", () => {
    const r = kubectlResult(["create", "-f", "-"], JSON.stringify(setManifest({ namespace: ns, name: "big", replicas: MAX_REPLICAS + 1 })));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`spec.replicas: Invalid value: ${MAX_REPLICAS + 1}: spec.replicas in body should be less than or equal to ${MAX_REPLICAS}`);
  });

  it("is refused through the scale subresource: kubectl scale and a PATCH of /scale", async () => {
    for (const n of [MAX_REPLICAS + 1, 2147483647]) {
      const r = kubectlResult(["-n", ns, "scale", "osts/web", `--replicas=${n}`]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`spec.replicas: Invalid value: ${n}: spec.replicas in body should be less than or equal to ${MAX_REPLICAS}`);
    }
    const patch = kubectlResult(["-n", ns, "patch", "osts/web", "--subresource=scale", "--type=merge", "-p", '{"spec":{"replicas":2147483647}}']);
    expect(patch.code).not.toBe(0);
    expect(patch.stderr).toContain(`should be less than or equal to ${MAX_REPLICAS}`);
    expect(await replicasOf(ns)).toBe(1);
  });

  it("while the maximum itself is accepted (server-side dry run: nothing is stored)", async () => {
    expect(kubectl(["-n", ns, "scale", "osts/web", `--replicas=${MAX_REPLICAS}`, "--dry-run=server"])).toMatch(/scaled/);
    expect(await replicasOf(ns)).toBe(1);
  });
});
