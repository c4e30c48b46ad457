/**
 * Issue 35, G1: a tenant's pods near the apiserver's object size limit (a 1.1 MB env value, a long
 * command, many labels and annotations Ordinal does not read) cost a pass only what it reads of
 * them: each is projected as its list page streams in (objects/projection.ts, kube/list-stream.ts),
 * so what the pass holds of 100 such pods stays within the bound docs/design.md states
 * (POD_HELD_BYTES a pod of one container). Measured deterministically: the JSON size of what the
 * pass's lists returned, not the heap.
 */
import { describe, expect, it } from "vitest";
import type { KubeClient, KubeObject } from "../../src/kube/client.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";
import { StatefulSetSchema } from "../../src/api/statefulset.ts";
import { newRevision } from "../../src/core/revisions.ts";
import { newStatefulSetPod } from "../../src/objects/pod.ts";

/** What docs/design.md ("What a pass holds") bounds a projected pod of one container to (JSON bytes). */
const POD_HELD_BYTES = 2048;

/** recording returns a client that adds up the JSON size of the pods every list of `inner` returned. */
function recording(inner: KubeClient): { client: KubeClient; podBytes: () => number; pods: () => number } {
  let bytes = 0;
  let count = 0;
  const client: KubeClient = {
    ...inner,
    get requestCount() {
      return inner.requestCount;
    },
    async list<T extends object>(r: typeof R.pods, ns: string | undefined, o?: Parameters<KubeClient["list"]>[2]) {
      const items = await inner.list<T>(r, ns, o);
      if (r === R.pods)
        for (const p of items) {
          bytes += JSON.stringify(p).length;
          count++;
        }
      return items;
    },
  };
  return { client, podBytes: () => bytes, pods: () => count };
}

describe("a pass over pods near the apiserver's size limit", () => {
  it("holds what it reads of them: 100 pods of 1.3 MB each (env, command, labels, annotations) cost at most 100 × POD_HELD_BYTES", async () => {
    const now = () => new Date("2026-11-21T12:00:00Z");
    const fake = createFakeApiServer({ now, namespaces: ["tenant"] });
    const labels = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`tenant.example/label-${i}`, "v".repeat(60)]));
    const annotations = { "tenant.example/blob": "a".repeat(100_000) };
    const template = {
      metadata: { labels: { app: "big", ...labels }, annotations },
      spec: { containers: [{ name: "c", image: "img:1", command: ["sh", "-c", "c".repeat(50_000)], env: [{ name: "HUGE", value: "e".repeat(1_100_000) }] }] },
    };
    // The set's pods as its pass would create them (put straight into the fake: creating 100 of them through a pass costs seconds).
    const set = StatefulSetSchema.parse(fake.seed(setManifest({ name: "big", namespace: "tenant", replicas: 100, policy: "Parallel", spec: { template } })));
    const revision = newRevision(set, 1, 0);
    fake.put(revision);
    for (let i = 0; i < 100; i++) fake.put({ ...newStatefulSetPod(set, i, revision.metadata?.name), status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] } });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} });
    const stored = fake.list<KubeObject>("/api/v1/namespaces/tenant/pods");
    expect(stored).toHaveLength(100);
    expect(JSON.stringify(stored[0]).length).toBeGreaterThan(1_250_000);

    const r = recording(client);
    const pass = await reconcilePass(r.client, { now, log: silentLogger });
    expect(pass.sets[0]).toMatchObject({ set: "tenant/big", error: undefined });
    expect(r.pods()).toBe(100);
    // Before the projection the pass held every byte: 100 × 1.3 MB.
    expect(r.podBytes()).toBeLessThanOrEqual(100 * POD_HELD_BYTES);
  });
});
