/**
 * spec.reserveOrdinals on the real kube-apiserver (issue 22): the CRD takes Kruise's list and
 * explains it; reserving the ordinal of a running set's pod deletes that pod (OrderedReady: the
 * next ordinal is created first), the others stay, and its claim goes per whenScaled Delete.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { PersistentVolumeClaim, Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { R } from "../../src/kube/resources.ts";
import { setManifest } from "../support/fixtures.ts";
import { allReady, driveUntil } from "./driver.ts";
import { admin, kubectlResult, kubeletFor, listPods, newNamespace, setupCluster, sleep } from "./support.ts";

const claims = async (ns: string) => (await admin.list<PersistentVolumeClaim>(R.pvcs, ns)).map((c) => c.metadata!.name!).sort();
const uids = (pods: Pod[]) => Object.fromEntries(pods.map((p) => [p.metadata!.name!, p.metadata!.uid!]));
const names = (pods: Pod[]) => pods.map((p) => p.metadata!.name!);

beforeAll(setupCluster);

describe("reserveOrdinals", () => {
  it("is in the CRD, explained, and stored as written (ints and \"a-b\" ranges)", async () => {
    // The apiserver publishes a new CRD's schema for explain a few seconds after it is established.
    let explained = kubectlResult(["explain", "osts.spec.reserveOrdinals", "--api-version=apps.ordinal.dev/v1"]);
    for (let i = 0; i < 40 && explained.code !== 0; i++) {
      await sleep(500);
      explained = kubectlResult(["explain", "osts.spec.reserveOrdinals", "--api-version=apps.ordinal.dev/v1"]);
    }
    expect(explained.stdout).toMatch(/Ordinals that never get a pod/);
    const ns = await newNamespace("reserve-crd");
    await admin.create(R.statefulSets, ns, setManifest({ namespace: ns, spec: { replicas: 0, reserveOrdinals: [1, "3-5"] } }));
    expect((await admin.get<StatefulSet>(R.statefulSets, ns, "web"))!.spec.reserveOrdinals).toEqual([1, "3-5"]);
  });

  it("reserving a running pod's ordinal deletes that pod only, creates the next ordinal first, and whenScaled Delete removes its claim", async () => {
    const ns = await newNamespace("reserve");
    const spec = { persistentVolumeClaimRetentionPolicy: { whenScaled: "Delete", whenDeleted: "Retain" } };
    await admin.create(R.statefulSets, ns, setManifest({ namespace: ns, image: "nginx:1.25", container: "nginx", claims: ["www"], spec }));
    const kubelet = kubeletFor(ns);
    await driveUntil(ns, allReady(3), { kubelet });
    const before = uids(await listPods(ns));

    await admin.patch(R.statefulSets, ns, "web", { spec: { reserveOrdinals: [1] } }, "merge");
    const steps = await driveUntil(ns, (pods) => allReady(3)(pods) && names(pods).join() === "web-0,web-2,web-3", { kubelet });
    // OrderedReady: web-3 first; web-1 only once web-3 is Running and Ready.
    expect(steps.flatMap((s) => s.created)).toEqual(["web-3"]);
    expect(steps.flatMap((s) => s.deleted)).toEqual(["web-1"]);
    const created = steps.findIndex((s) => s.created.includes("web-3"));
    const deleted = steps.findIndex((s) => s.deleted.includes("web-1"));
    expect(deleted).toBeGreaterThan(created);
    const after = uids(await listPods(ns));
    expect([after["web-0"], after["web-2"]]).toEqual([before["web-0"], before["web-2"]]);
    // The garbage collector deletes www-web-1 once web-1 (its owner) is gone.
    for (let i = 0; i < 60 && (await claims(ns)).includes("www-web-1"); i++) await sleep(500);
    expect(await claims(ns)).toEqual(["www-web-0", "www-web-2", "www-web-3"]);
    const set = await admin.get<StatefulSet>(R.statefulSets, ns, "web");
    expect(set!.status).toMatchObject({ replicas: 3, readyReplicas: 3, updatedReplicas: 3 });

    // Un-reserving brings web-1 back and scales web-3 in.
    await admin.patch(R.statefulSets, ns, "web", { spec: { reserveOrdinals: null } }, "merge");
    await driveUntil(ns, (pods) => allReady(3)(pods) && names(pods).join() === "web-0,web-1,web-2", { kubelet, ordered: false });
  });
});
