/**
 * Healing a pod at the current revision through reconcile passes on the fake apiserver with the
 * kubelet player (issue 36, the chaos run's stall on chaos-1-0): a broken release scaled to 0
 * before its deadline becomes status.currentRevision with no pods; a scale-up makes pod 0 at it,
 * never Ready; a good release applied then must roll out, not stall on pod 0 and roll back to the
 * broken revision. A current-revision pod that only starts slowly while its siblings at that
 * revision are Ready is waited for, as upstream does.
 */
import { describe, expect, it } from "vitest";
import { R } from "../../src/kube/resources.ts";
import { FAILED_REVISIONS_ANNOTATION } from "../../src/objects/constants.ts";
import { BAD, cluster, rolling } from "./deadline-world.ts";

const scale = (c: Awaited<ReturnType<typeof cluster>>, replicas: number) => c.client.patch(R.statefulSets, "default", "web", { spec: { replicas } }, "merge");
const image = async (c: Awaited<ReturnType<typeof cluster>>) => (await c.get()).spec.template.spec.containers[0].image;

describe("healing a never-Ready pod at a current revision no pod was ever Ready at", () => {
  it("a broken release scaled to 0, scaled up, then a good release: converges at the good one, nothing rolled back", async () => {
    const c = await cluster(rolling({ rollbackOnFailure: true }), { bad: "unready" });
    await c.setImage(BAD);
    await c.step();
    await scale(c, 0);
    for (let i = 0; i < 20 && (await c.pods()).length > 0; i++) await c.step();
    for (let i = 0; i < 3; i++) await c.step();
    // The broken release completed with no pods: it is the current revision (as upstream counts).
    const broken = await c.get();
    expect(broken.status).toMatchObject({ replicas: 0, currentRevision: broken.status!.updateRevision });
    expect(await image(c)).toBe(BAD);
    await scale(c, 3);
    for (let i = 0; i < 5; i++) await c.step();
    const stuck = await c.pods();
    expect(stuck.map((p) => [p.metadata?.name, p.spec?.containers[0].image])).toEqual([["web-0", BAD]]);
    // The good release: pod 0 is healed at once, the rollout completes, the deadline never fires.
    await c.setImage("img:2");
    for (let i = 0; i < 40 && !(await c.allReadyAt("img:2")); i++) await c.step();
    expect(await c.allReadyAt("img:2")).toBe(true);
    for (let i = 0; i < 15; i++) await c.step();
    const set = await c.get();
    expect(await image(c)).toBe("img:2");
    expect(set.metadata.annotations?.[FAILED_REVISIONS_ANNOTATION]).toBeUndefined();
    expect(set.status).toMatchObject({ readyReplicas: 3, updatedReplicas: 3, currentRevision: set.status!.updateRevision });
    expect(set.status!.currentRevision).not.toBe(broken.status!.currentRevision);
    const reasons = (await c.events()).map((e) => e.reason);
    expect(reasons).not.toContain("RolledBack");
    expect(reasons).not.toContain("ProgressDeadlineExceeded");
    expect((await c.events()).find((e) => e.reason === "HealingRollout")?.message).toMatch(/replacing Pod web-0, never Ready at revision web-[0-9a-z]+, which the rollout leaves, to revision web-/);
  });

  it("a slow pod at the current revision whose siblings at it are Ready is not replaced: the rollout waits for it", async () => {
    const c = await cluster(rolling({ rollbackOnFailure: true }));
    // A person deletes web-0; Ordinal makes it again at the current revision, and no kubelet starts it yet.
    const old = (await c.pods()).find((p) => p.metadata?.name === "web-0")!;
    await c.client.delete(R.pods, "default", "web-0");
    await c.kubelet.step();
    await c.passes(3);
    const slow = (await c.pods()).find((p) => p.metadata?.name === "web-0")!;
    expect(slow.metadata?.uid).not.toBe(old.metadata?.uid);
    await c.setImage("img:2");
    await c.passes(8);
    const pods = await c.pods();
    expect(pods.find((p) => p.metadata?.name === "web-0")?.metadata?.uid).toBe(slow.metadata?.uid);
    expect(pods.every((p) => p.spec?.containers[0].image === "img:1" && !p.metadata?.deletionTimestamp)).toBe(true);
    expect((await c.events()).map((e) => e.reason)).not.toContain("HealingRollout");
    // Once it starts, the rollout goes on and completes.
    for (let i = 0; i < 40 && !(await c.allReadyAt("img:2")); i++) await c.step();
    expect(await c.allReadyAt("img:2")).toBe(true);
    expect((await c.get()).metadata.annotations?.[FAILED_REVISIONS_ANNOTATION]).toBeUndefined();
  });

  it("past the deadline on such a pod (not rolled back: not the release's), a person deletes it: back at the good release, it gets its own deadline, no rollback", async () => {
    const c = await cluster(rolling({ rollbackOnFailure: true }));
    await c.client.delete(R.pods, "default", "web-0");
    await c.kubelet.step();
    await c.pass();
    expect((await c.pods()).map((p) => p.spec?.containers[0].image)).toEqual(["img:1", "img:1", "img:1"]);
    await c.setImage("img:2");
    // Passes only (the kubelet never starts web-0) past the 10 s deadline.
    await c.passes(15);
    expect(await c.progressing()).toMatchObject({ status: "False", reason: "ProgressDeadlineExceeded" });
    expect(await image(c)).toBe("img:2");
    // The person's manual step (upstream's "forced rollback"): web-0 comes back at img:2.
    await c.client.delete(R.pods, "default", "web-0");
    for (let i = 0; i < 40 && !(await c.allReadyAt("img:2")); i++) await c.step();
    expect(await c.allReadyAt("img:2")).toBe(true);
    expect(await image(c)).toBe("img:2");
    expect((await c.get()).metadata.annotations?.[FAILED_REVISIONS_ANNOTATION]).toBeUndefined();
    expect((await c.events()).map((e) => e.reason)).not.toContain("RolledBack");
  });
});
