/**
 * spec.roles through whole reconcile passes on the fake apiserver, with a kubelet player and a
 * stand-in operator (roles-world.ts): followers first, the switchover asked once, the old leader
 * last, never beyond maxUnavailable — recreate and in place; a switchover never answered stops the
 * rollout (condition, Warning event, rollout status stuck) without touching the leader; a leader
 * that moves before its turn waits for the followers; a scale-down of the leader hands it away first;
 * a rollout paused while a switchover waits withdraws the request and asks again on resume.
 */
import { describe, expect, it } from "vitest";
import { StatefulSetSchema } from "../../src/api/statefulset.ts";
import { rolloutState } from "../../src/core/rollout-state.ts";
import { getPodRevision } from "../../src/core/pod-state.ts";
import { R } from "../../src/kube/resources.ts";
import { silentLogger } from "../../src/log/log.ts";
import { SWITCHOVER_REQUEST_ANNOTATION } from "../../src/objects/constants.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { setManifest } from "../support/fixtures.ts";
import { NS, ROLE, rolesWorld, type RolesWorldOptions } from "./roles-world.ts";

const roles = (timeoutSeconds = 300) => ({ labelKey: ROLE, updateOrder: ["replica", "master"], switchover: { roles: ["master"], timeoutSeconds } });

async function started(o: RolesWorldOptions & { update?: string; maxUnavailable?: number; policy?: "OrderedReady" | "Parallel"; timeoutSeconds?: number; leader?: string; deadline?: number }) {
  const w = rolesWorld(o);
  const manifest = setManifest({
    replicas: 3,
    policy: o.policy,
    spec: {
      roles: roles(o.timeoutSeconds),
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { podUpdatePolicy: o.update ?? "ReCreate", maxUnavailable: o.maxUnavailable ?? 1, ...(o.deadline ? { rollbackOnFailure: true } : {}) } },
      ...(o.deadline ? { progressDeadlineSeconds: o.deadline } : {}),
    },
  });
  await w.observer.create(R.statefulSets, NS, manifest);
  const pass = async (operatorAnswers?: boolean) => {
    await reconcilePass(w.client, { now: w.now, log: silentLogger });
    await w.kubelet.step();
    await w.operator(operatorAnswers);
    w.tick();
  };
  for (let i = 0; i < 15; i++) await pass(false);
  // The leader: web-2 unless the test says otherwise (the highest ordinal, updated first without roles).
  const leader = o.leader ?? "web-2";
  const master = w.pods().find((p) => w.roleOf(p) === "master")!.metadata!.name!;
  if (master !== leader) await w.moveLeader(master, leader, "setup");
  w.timeline.length = 0;
  let maxDown = 0;
  const roll = async (passes: number, answers?: boolean) => {
    for (let i = 0; i < passes; i++) {
      await pass(answers);
      maxDown = Math.max(maxDown, w.unavailable());
    }
  };
  const newImage = () => w.observer.patch(R.statefulSets, NS, "web", { spec: { template: { spec: { containers: [{ name: "c", image: "img:2" }] } } } }, "merge");
  const parsedSet = () => StatefulSetSchema.parse(w.set());
  return { ...w, roll, newImage, maxDown: () => maxDown, parsedSet };
}

const done = (t: Awaited<ReturnType<typeof started>>) => {
  const update = t.set()?.status?.updateRevision;
  return t.pods().every((p) => getPodRevision(p) === update && !p.metadata?.deletionTimestamp) && t.pods().length === 3;
};

describe.each([["ReCreate"], ["InPlaceIfPossible"]])("a rollout with roles (%s)", (update) => {
  it("updates the followers first, asks for one switchover, updates the old leader last, never beyond maxUnavailable", async () => {
    const t = await started({ answer: true, update });
    await t.newImage();
    await t.roll(60);
    console.log(`roles ${update} timeline:\n  ${t.timeline.join("\n  ")}`);
    expect(t.violations).toEqual([]);
    expect(done(t)).toBe(true);
    // Without roles web-2 (the highest ordinal) would go first: here it goes last.
    expect(t.updated).toEqual(["web-1", "web-0", "web-2"]);
    expect(t.timeline.filter((l) => l.includes("switchover requested"))).toHaveLength(1);
    expect(t.timeline.filter((l) => l.includes("switchover: master web-2 →"))).toHaveLength(1);
    expect(t.maxDown()).toBeLessThanOrEqual(1);
    expect(t.pods().every((p) => p.metadata?.annotations?.[SWITCHOVER_REQUEST_ANNOTATION] === undefined)).toBe(true);
  });
});

describe("a switchover never answered", () => {
  it("leaves the leader alone, stops the rollout with a condition and a Warning event, and rollout status is stuck", async () => {
    const t = await started({ answer: false, timeoutSeconds: 20 });
    await t.newImage();
    await t.roll(60);
    expect(t.violations).toEqual([]);
    expect(t.updated).toEqual(["web-1", "web-0"]);
    expect(getPodRevision(t.podNamed("web-2")!)).not.toBe(t.set()?.status?.updateRevision);
    const conditions = t.set()?.status?.conditions ?? [];
    expect(conditions.find((c) => c.type === "SwitchoverTimedOut")).toMatchObject({ status: "True", message: expect.stringContaining("pod web-2 holds role master: switchover requested at") });
    expect(conditions.find((c) => c.type === "Progressing")).toMatchObject({ status: "False", reason: "SwitchoverTimedOut" });
    const events = t.fake.list<{ reason?: string; type?: string; message?: string }>(`/api/v1/namespaces/${NS}/events`);
    expect(events.filter((e) => e.reason === "SwitchoverTimedOut" && e.type === "Warning").map((e) => e.message)).toEqual([expect.stringContaining("was not answered within 20s")]);
    expect(events.filter((e) => e.reason === "SwitchoverRequested")).toHaveLength(1);
    const state = rolloutState(t.parsedSet(), t.pods(), t.now());
    expect(state).toMatchObject({ done: false, blocked: "stuck", message: expect.stringContaining("SwitchoverTimedOut") });
    // Answered late: the rollout goes on, the condition goes False.
    await t.roll(30, true);
    expect(t.violations).toEqual([]);
    expect(done(t)).toBe(true);
    expect(t.set()?.status?.conditions?.find((c) => c.type === "SwitchoverTimedOut")).toMatchObject({ status: "False" });
  });
});

describe("a rollout paused while a switchover waits", () => {
  it("withdraws the request (nothing updates the leader while paused, no timeout fires) and asks again on resume", async () => {
    const t = await started({ answer: false, timeoutSeconds: 60 });
    await t.newImage();
    await t.roll(30);
    expect(t.updated).toEqual(["web-1", "web-0"]);
    expect(t.podNamed("web-2")?.metadata?.annotations?.[SWITCHOVER_REQUEST_ANNOTATION]).toBeDefined();
    const paused = (on: boolean) => t.observer.patch(R.statefulSets, NS, "web", { spec: { updateStrategy: { rollingUpdate: { paused: on } } } }, "merge");
    await paused(true);
    await t.roll(3);
    // Before: the request stayed on the leader, and its timeout fired while the rollout was paused.
    expect(t.podNamed("web-2")?.metadata?.annotations?.[SWITCHOVER_REQUEST_ANNOTATION]).toBeUndefined();
    const events = () => t.fake.list<{ reason?: string; message?: string }>(`/api/v1/namespaces/${NS}/events`);
    expect(events().filter((e) => e.reason === "SwitchoverWithdrawn").map((e) => e.message)).toEqual([expect.stringContaining("pod web-2: the rollout is paused")]);
    t.tick(120_000);
    await t.roll(3);
    expect(t.podNamed("web-2")?.metadata?.annotations?.[SWITCHOVER_REQUEST_ANNOTATION]).toBeUndefined();
    expect(t.set()?.status?.conditions?.find((c) => c.type === "SwitchoverTimedOut")).toBeUndefined();
    expect(t.updated).toEqual(["web-1", "web-0"]);
    // Resumed: asked again with a fresh clock, answered, the old leader updated last.
    await paused(false);
    await t.roll(30, true);
    expect(t.violations).toEqual([]);
    expect(done(t)).toBe(true);
    expect(t.updated).toEqual(["web-1", "web-0", "web-2"]);
    expect(events().filter((e) => e.reason === "SwitchoverRequested")).toHaveLength(2);
  });
});

describe("a switchover waited on past the progress deadline", () => {
  it("is no progress: ProgressDeadlineExceeded names the switchover, and rollbackOnFailure does not roll back for it", async () => {
    const t = await started({ answer: false, timeoutSeconds: 300, deadline: 15 });
    await t.newImage();
    await t.roll(40);
    expect(t.violations).toEqual([]);
    expect(t.updated).toEqual(["web-1", "web-0"]);
    const progressing = t.set()?.status?.conditions?.find((c) => c.type === "Progressing");
    expect(progressing).toMatchObject({ status: "False", reason: "ProgressDeadlineExceeded", message: expect.stringContaining("pod web-2 holds role master: switchover requested at") });
    const events = t.fake.list<{ reason?: string; message?: string }>(`/api/v1/namespaces/${NS}/events`);
    expect(events.find((e) => e.reason === "ProgressDeadlineExceeded")?.message).toContain("not rolled back");
    // The new template stays: the followers keep their update, the leader its revision.
    expect(t.parsedSet().spec.template.spec.containers[0].image).toBe("img:2");
    expect(events.some((e) => e.reason === "RolledBack")).toBe(false);
  });
});

describe("leadership that moves during the rollout", () => {
  it("a follower made leader before its turn waits for the other followers; the old leader is updated as a follower", async () => {
    const t = await started({ answer: true, maxUnavailable: 3, policy: "Parallel" });
    await t.newImage();
    // Before any pass sees the new template, the leader moves to web-0.
    await t.moveLeader("web-2", "web-0", "failover");
    await t.roll(60);
    expect(t.violations).toEqual([]);
    expect(done(t)).toBe(true);
    // web-2 and web-1 (followers now) together, within maxUnavailable 3; web-0 only after the switchover.
    expect(t.updated.slice(0, 2).sort()).toEqual(["web-1", "web-2"]);
    expect(t.updated[2]).toBe("web-0");
    expect(t.timeline.filter((l) => l.includes("switchover requested"))).toHaveLength(1);
  });
});

describe("a scale-down of the leader", () => {
  it("hands the role away before the pod is deleted", async () => {
    const t = await started({ answer: true });
    await t.observer.patch(R.statefulSets, NS, "web", { spec: { replicas: 2 } }, "merge");
    await t.roll(20);
    expect(t.violations).toEqual([]);
    expect(t.pods().map((p) => p.metadata?.name)).toEqual(["web-0", "web-1"]);
    expect(t.timeline.findIndex((l) => l.includes("switchover requested"))).toBeLessThan(t.timeline.findIndex((l) => l.includes("delete web-2")));
    expect(t.pods().filter((p) => t.roleOf(p) === "master")).toHaveLength(1);
  });
});
