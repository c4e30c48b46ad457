/**
 * The invocation loop honours a plan's requeue-after: during an in-place update's grace period it
 * sleeps until the grace ends (not a whole idle period), then makes the pod update.
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { runReconcile } from "../../src/schedule/loop.ts";
import { KubeletPlayer } from "../../src/sim/kubelet.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { setManifest } from "../support/fixtures.ts";

const set = (image: string) =>
  setManifest({
    replicas: 1,
    image,
    spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible", inPlaceUpdateStrategy: { gracePeriodSeconds: 3 } } } },
  });

describe("runReconcile and requeue-after", () => {
  it("sleeps until the grace period ends, then updates the pod in place", async () => {
    let clock = Date.parse("2026-11-21T12:00:00Z");
    const now = () => new Date(clock);
    const fake = createFakeApiServer({ now, namespaces: ["default", "ordinal-system"] });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} });
    const kubelet = new KubeletPlayer(client, { namespace: "default", now });
    await client.create(R.statefulSets, "default", set("img:1"));
    const run = (sleeps: number[]) =>
      runReconcile(client, {
        log: silentLogger,
        holder: "t",
        leaseNamespace: "ordinal-system",
        budgetMs: 60_000,
        idleMs: 10_000,
        maxPasses: 4,
        now,
        sleep: async (ms) => {
          sleeps.push(ms);
          clock += ms;
        },
      });
    for (let i = 0; i < 6; i++) {
      await run([]);
      await kubelet.step();
    }
    const pod = async () => (await client.get<Pod>(R.pods, "default", "web-0"))!;
    expect((await pod()).status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    await client.patch(R.statefulSets, "default", "web", { spec: { template: set("img:2").spec.template } }, "merge");
    const sleeps: number[] = [];
    await run(sleeps);
    // Pass 1 sets the gate False; pass 2 waits (grace 3 s + 1 s for whole-second times), sleeping
    // exactly that long rather than the 10 s idle period; pass 3 changes the image.
    expect(sleeps.some((ms) => ms > 0 && ms <= 4000)).toBe(true);
    expect(sleeps.every((ms) => ms < 10_000)).toBe(true);
    expect((await pod()).spec?.containers[0].image).toBe("img:2");
    expect((await pod()).metadata?.uid).toBeDefined();
  });
});
