/**
 * Progress deadline and automatic rollback through reconcile passes on the fake apiserver with the
 * kubelet player (issue 23): a bad image rolls back by itself and the set ends Ready at the old
 * revision with no person acting; a person's change wins; pause stops the clock; OnDelete only
 * reports.
 */
import { describe, expect, it } from "vitest";
import { R } from "../../src/kube/resources.ts";
import { FAILED_REVISIONS_ANNOTATION } from "../../src/objects/constants.ts";
import { BAD, cluster, rolling } from "./deadline-world.ts";

describe("progress deadline and rollbackOnFailure through passes", () => {
  it.each<[string, Record<string, unknown>, "OrderedReady" | "Parallel", "pull" | "unready"]>([
    ["recreate, OrderedReady, ErrImagePull", rolling({ rollbackOnFailure: true }), "OrderedReady", "pull"],
    ["recreate, OrderedReady, never Ready", rolling({ rollbackOnFailure: true }), "OrderedReady", "unready"],
    ["recreate, Parallel, maxUnavailable 2", rolling({ rollbackOnFailure: true, maxUnavailable: 2 }), "Parallel", "pull"],
    ["in place (InPlaceIfPossible)", rolling({ rollbackOnFailure: true, podUpdatePolicy: "InPlaceIfPossible" }), "OrderedReady", "pull"],
    ["partition 1", rolling({ rollbackOnFailure: true, partition: 1 }), "OrderedReady", "unready"],
  ])("%s: a bad image rolls back by itself and the set ends Ready at the old revision", async (_, spec, policy, bad) => {
    const c = await cluster(spec, { policy, bad });
    const before = (await c.get()).status!.currentRevision!;
    await c.setImage(BAD);
    let rolledBack = false;
    for (let i = 0; i < 60 && !(rolledBack && (await c.allReadyAt("img:1"))); i++) {
      await c.step();
      rolledBack ||= (await c.get()).spec.template.spec.containers[0].image === "img:1";
    }
    expect(rolledBack).toBe(true);
    expect(await c.allReadyAt("img:1")).toBe(true);
    for (let i = 0; i < 3; i++) await c.step();
    const set = await c.get();
    expect(set.status).toMatchObject({ currentRevision: before, updateRevision: before, readyReplicas: 3, updatedReplicas: 3 });
    const failed = set.metadata.annotations?.[FAILED_REVISIONS_ANNOTATION];
    expect(failed).toMatch(/^web-[0-9a-z]+$/);
    expect(failed).not.toBe(before);
    expect(await c.progressing()).toMatchObject({ status: "True", reason: "RolloutComplete" });
    const reasons = (await c.events()).map((e) => e.reason);
    expect(reasons).toContain("ProgressDeadlineExceeded");
    expect(reasons.filter((r) => r === "RolledBack")).toHaveLength(1);
    const exceeded = (await c.events()).find((e) => e.reason === "ProgressDeadlineExceeded")!;
    expect(exceeded.message).toMatch(bad === "pull" ? /pod web-[12] container c: image img:bad cannot be pulled \((ErrImagePull|ImagePullBackOff)/ : /pod web-2 was never Ready/);
    // The deadline woke the set: some pass asked to be looked at again within the 10 s deadline.
    expect(c.requeues().some((ms) => ms !== undefined && ms > 0 && ms <= 10_000)).toBe(true);
  });

  it("a good in-place release the kubelet finished while no pass ran is not rolled back by a pass that comes after the deadline (issue 34)", async () => {
    const c = await cluster(rolling({ rollbackOnFailure: true, podUpdatePolicy: "InPlaceIfPossible" }));
    await c.setImage("img:2");
    // Passes (no kubelet, one second apart) until one patches web-2's image in place.
    const patched = async () => (await c.pods()).some((p) => p.spec?.containers[0].image === "img:2");
    for (let i = 0; i < 5 && !(await patched()); i++) {
      await c.pass();
      c.advance(1000);
    }
    expect(await patched()).toBe(true);
    // The kubelet restarts the container with the new image (two status writes); no pass is woken.
    await c.kubelet.step();
    c.advance(500);
    await c.kubelet.step();
    const web2 = (await c.pods()).find((p) => p.metadata?.name === "web-2")!;
    expect(web2.status?.containerStatuses?.[0]).toMatchObject({ image: "img:2", ready: true });
    // The next pass comes after the 10 s deadline: only Ordinal's own step (the gate) was missing.
    c.advance(12_000);
    await c.pass();
    expect((await c.get()).spec.template.spec.containers[0].image).toBe("img:2");
    expect((await c.get()).metadata.annotations?.[FAILED_REVISIONS_ANNOTATION]).toBeUndefined();
    expect((await c.events()).map((e) => e.reason)).not.toContain("ProgressDeadlineExceeded");
    for (let i = 0; i < 30 && !(await c.allReadyAt("img:2")); i++) await c.step();
    expect(await c.allReadyAt("img:2")).toBe(true);
    expect((await c.get()).metadata.annotations?.[FAILED_REVISIONS_ANNOTATION]).toBeUndefined();
  });

  it("never rolls back twice for one revision: the failed template applied again stays, reported", async () => {
    const c = await cluster(rolling({ rollbackOnFailure: true }));
    await c.setImage(BAD);
    for (let i = 0; i < 40 && (await c.get()).spec.template.spec.containers[0].image === BAD; i++) await c.step();
    expect((await c.get()).spec.template.spec.containers[0].image).toBe("img:1");
    for (let i = 0; i < 20 && !(await c.allReadyAt("img:1")); i++) await c.step();
    await c.setImage(BAD);
    for (let i = 0; i < 30; i++) await c.step();
    expect((await c.get()).spec.template.spec.containers[0].image).toBe(BAD);
    expect(await c.progressing()).toMatchObject({ status: "False", reason: "ProgressDeadlineExceeded" });
    expect((await c.events()).filter((e) => e.reason === "RolledBack")).toHaveLength(1);
  });

  it("a person's change before the deadline wins: a fixed image rolls out and nothing is rolled back", async () => {
    const c = await cluster(rolling({ rollbackOnFailure: true }));
    await c.setImage(BAD);
    for (let i = 0; i < 6; i++) await c.step();
    await c.setImage("img:2");
    for (let i = 0; i < 60 && !(await c.allReadyAt("img:2")); i++) await c.step();
    expect(await c.allReadyAt("img:2")).toBe(true);
    expect((await c.get()).metadata.annotations?.[FAILED_REVISIONS_ANNOTATION]).toBeUndefined();
  });

  it("pause stops the clock: a paused bad rollout is never rolled back, and resuming starts a fresh deadline", async () => {
    const c = await cluster(rolling({ rollbackOnFailure: true }));
    await c.setImage(BAD);
    for (let i = 0; i < 4; i++) await c.step();
    await c.client.patch(R.statefulSets, "default", "web", { spec: { updateStrategy: { rollingUpdate: { paused: true } } } }, "merge");
    for (let i = 0; i < 30; i++) await c.step();
    expect((await c.get()).spec.template.spec.containers[0].image).toBe(BAD);
    expect(await c.progressing()).toMatchObject({ status: "Unknown", reason: "RolloutPaused" });
    await c.client.patch(R.statefulSets, "default", "web", { spec: { updateStrategy: { rollingUpdate: { paused: false } } } }, "merge");
    for (let i = 0; i < 5; i++) await c.step();
    expect((await c.get()).spec.template.spec.containers[0].image).toBe(BAD);
    for (let i = 0; i < 30 && (await c.get()).spec.template.spec.containers[0].image === BAD; i++) await c.step();
    expect((await c.get()).spec.template.spec.containers[0].image).toBe("img:1");
  });

  describe("a lifecycle hook holding a pod past the deadline (issue 22)", () => {
    const DRAIN = "example.io/drain";
    /** A set whose pods carry a preDelete hook's label: each recreate waits until the test (the other controller) removes it. */
    const hooked = () =>
      cluster({
        ...rolling({ rollbackOnFailure: true }),
        lifecycle: { preDelete: { labelsHandler: { [DRAIN]: "true" } } },
        template: { metadata: { labels: { app: "web", [DRAIN]: "true" } }, spec: { containers: [{ name: "c", image: "img:1" }] } },
      });
    const heldPods = async (c: Awaited<ReturnType<typeof cluster>>) => (await c.pods()).filter((p) => p.metadata?.labels?.["ordinal.dev/lifecycle-state"] === "PreparingDelete");
    const release = async (c: Awaited<ReturnType<typeof cluster>>) => {
      for (const p of await heldPods(c)) await c.client.patch(R.pods, "default", p.metadata!.name!, { metadata: { labels: { [DRAIN]: "false" } } }, "merge");
    };

    it("stops the clock: a good release held 30 s (deadline 10 s) is not rolled back, and completes once released", async () => {
      const c = await hooked();
      await c.setImage("img:2");
      for (let i = 0; i < 30; i++) await c.step();
      expect((await heldPods(c)).map((p) => p.metadata?.name)).toEqual(["web-2"]);
      expect((await c.get()).spec.template.spec.containers[0].image).toBe("img:2");
      expect((await c.get()).metadata.annotations?.[FAILED_REVISIONS_ANNOTATION]).toBeUndefined();
      expect(await c.progressing()).toMatchObject({ status: "True", reason: "RollingUpdate" });
      // The other controller releases each pod as its turn comes (each held a while).
      for (let i = 0; i < 80 && !(await c.allReadyAt("img:2")); i++) {
        if (i % 5 === 4) await release(c);
        await c.step();
      }
      expect(await c.allReadyAt("img:2")).toBe(true);
      expect((await c.get()).metadata.annotations?.[FAILED_REVISIONS_ANNOTATION]).toBeUndefined();
    });

    it("a bad release is still rolled back once the hook lets go: the clock starts afresh at the release", async () => {
      const c = await hooked();
      await c.setImage(BAD);
      for (let i = 0; i < 30; i++) await c.step();
      expect((await c.get()).spec.template.spec.containers[0].image).toBe(BAD);
      await release(c);
      for (let i = 0; i < 5; i++) await c.step();
      expect((await c.get()).spec.template.spec.containers[0].image).toBe(BAD);
      for (let i = 0; i < 30 && (await c.get()).spec.template.spec.containers[0].image === BAD; i++) await c.step();
      expect((await c.get()).spec.template.spec.containers[0].image).toBe("img:1");
    });
  });

  it("an OrderedReady scale-up with the template unchanged says Scaling at every step, the last included, then RolloutComplete", async () => {
    const c = await cluster({});
    await c.client.patch(R.statefulSets, "default", "web", { spec: { replicas: 5 } }, "merge");
    const reasons: string[] = [];
    for (let i = 0; i < 30 && reasons.at(-1) !== "RolloutComplete"; i++) {
      await c.step();
      const reason = (await c.progressing())?.reason ?? "";
      if (reasons.at(-1) !== reason) reasons.push(reason);
    }
    expect(reasons).toEqual(["Scaling", "RolloutComplete"]);
    expect((await c.pods()).length).toBe(5);
  });

  it("OnDelete: the deadline is reported, nothing is rolled back", async () => {
    const c = await cluster({ updateStrategy: { type: "OnDelete" } });
    await c.setImage(BAD);
    await c.client.delete(R.pods, "default", "web-2");
    for (let i = 0; i < 30; i++) await c.step();
    expect((await c.get()).spec.template.spec.containers[0].image).toBe(BAD);
    expect(await c.progressing()).toMatchObject({ status: "False", reason: "ProgressDeadlineExceeded" });
  });
});
