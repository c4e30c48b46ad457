/**
 * The real blocker named through reconcile passes on the fake apiserver (issue 34, item 2): a
 * create the apiserver refuses (a quota, a webhook's deny, a webhook it cannot call) is remembered
 * in the set's ReplicaFailure condition, and the ProgressDeadlineExceeded event, the Progressing
 * condition and `ordinal rollout status` name it (never "every pod is available"); a pod Running
 * but never Ready is named with the condition that keeps it out.
 */
import { describe, expect, it } from "vitest";
import { rolloutState } from "../../src/core/rollout-state.ts";
import { R } from "../../src/kube/resources.ts";
import { REPLICA_FAILURE_CONDITION } from "../../src/objects/constants.ts";
import { BAD, cluster, rolling } from "./deadline-world.ts";

const refusals = [
  ["a quota", { status: 403, reason: "Forbidden", message: 'pods "web-3" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=3, limited: pods=3' }],
  ["a webhook's deny", { status: 400, reason: "BadRequest", message: 'admission webhook "policy.example.io" denied the request: images from registry.example.io only' }],
  [
    "a webhook the apiserver cannot call",
    { status: 500, reason: "InternalError", message: 'Internal error occurred: failed calling webhook "pods.ordinal.dev": Post "https://ordinal.ordinal-system.svc:443/mutate": dial tcp 10.96.0.10:443: connect: connection refused' },
  ],
] as const;

describe("a refused create, named from the cluster", () => {
  it.each(refusals)("a scale-up refused by %s: event, Progressing and rollout status name the refusal; fixed, it is forgotten", async (_, fault) => {
    const c = await cluster({});
    const rule = c.fake.faults.add({ verb: "create", resource: "pods", fault });
    await c.client.patch(R.statefulSets, "default", "web", { spec: { replicas: 4 } }, "merge");
    for (let i = 0; i < 20; i++) await c.step();
    const words = `create of pod web-3 refused: ${fault.message}`;
    const set = await c.get();
    expect(set.status?.conditions?.find((x) => x.type === REPLICA_FAILURE_CONDITION)).toMatchObject({ status: "True", reason: "FailedCreate", message: words });
    expect(await c.progressing()).toMatchObject({ status: "False", reason: "ProgressDeadlineExceeded", message: `StatefulSet default/web has timed out progressing: no pod newly updated and Ready for 10s: ${words}` });
    const exceeded = (await c.events()).filter((e) => e.reason === "ProgressDeadlineExceeded");
    expect(exceeded).toHaveLength(1);
    expect(exceeded[0].message).toContain(words);
    expect(exceeded[0].message).not.toMatch(/every pod is available/);
    expect(rolloutState(set, await c.pods(), c.now())).toMatchObject({ done: false, blocked: "stuck", message: expect.stringContaining(words) });
    // Before the deadline's verdict, rollout status already names it (a failing rollout after --stuck-after).
    set.status!.conditions = set.status!.conditions!.filter((x) => x.type !== "Progressing");
    expect(rolloutState(set, await c.pods(), c.now())).toEqual({ done: false, blocked: "failing", message: words });

    rule.remove();
    for (let i = 0; i < 10 && (await c.get()).status?.readyReplicas !== 4; i++) await c.step();
    await c.step();
    const fixed = await c.get();
    expect(fixed.status?.readyReplicas).toBe(4);
    expect(fixed.status?.conditions?.some((x) => x.type === REPLICA_FAILURE_CONDITION)).toBe(false);
    expect(await c.progressing()).toMatchObject({ status: "True", reason: "RolloutComplete" });
  });

  it("before the deadline, the Progressing condition already names the refusal", async () => {
    const c = await cluster({ progressDeadlineSeconds: 600 });
    c.fake.faults.add({ verb: "create", resource: "pods", fault: refusals[0][1] });
    await c.client.patch(R.statefulSets, "default", "web", { spec: { replicas: 4 } }, "merge");
    for (let i = 0; i < 3; i++) await c.step();
    expect((await c.progressing())?.message).toMatch(/^scaling .*; waiting on: create of pod web-3 refused: pods "web-3" is forbidden: exceeded quota/);
  });

  it("the apiserver's transient trouble (429, a conflict) is not a refusal: nothing is remembered, the next pass creates the pod", async () => {
    const c = await cluster({});
    c.fake.faults.add({ verb: "create", resource: "pods", fault: "throttle", times: 1 });
    c.fake.faults.add({ verb: "create", resource: "pods", fault: "conflict", times: 1 });
    await c.client.patch(R.statefulSets, "default", "web", { spec: { replicas: 4 } }, "merge");
    for (let i = 0; i < 2; i++) {
      await c.step();
      expect((await c.get()).status?.conditions?.some((x) => x.type === REPLICA_FAILURE_CONDITION)).toBe(false);
    }
    for (let i = 0; i < 10 && (await c.get()).status?.readyReplicas !== 4; i++) await c.step();
    expect((await c.get()).status?.readyReplicas).toBe(4);
  });
});

describe("a pod that is not Ready, named with what keeps it out", () => {
  it("Running but never Ready: rollout status and the deadline's event and condition name the pod and its unready container", async () => {
    const c = await cluster(rolling({}), { bad: "unready" });
    await c.setImage(BAD);
    for (let i = 0; i < 4; i++) await c.step();
    const why = "pod web-2 was never Ready (Running): container c is running but not ready (its readiness probe does not pass)";
    // A pod still starting is no lasting cause: the Progressing message does not change for it (no status write of its own).
    expect((await c.progressing())?.message).not.toMatch(/waiting on/);
    expect(rolloutState(await c.get(), await c.pods(), c.now()).message).toBe(`Waiting for 1 pods to be ready (${why})...`);
    for (let i = 0; i < 12; i++) await c.step();
    const exceeded = (await c.events()).find((e) => e.reason === "ProgressDeadlineExceeded");
    expect(exceeded?.message).toContain(`no pod newly updated and Ready for 10s: ${why}`);
    expect((await c.progressing())?.message).toContain(why);
  });

  it("an image that cannot be pulled is a lasting cause: the Progressing message names it while the rollout runs", async () => {
    const c = await cluster(rolling({}), { bad: "pull" });
    await c.setImage(BAD);
    for (let i = 0; i < 5; i++) await c.step();
    expect((await c.progressing())?.message).toMatch(/; waiting on: pod web-2 container c: image img:bad cannot be pulled \((ErrImagePull|ImagePullBackOff)/);
  });
});
