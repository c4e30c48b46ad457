/**
 * Chosen-pod deletion (pod label ordinal.dev/specified-delete, Kruise's specified delete) through
 * plan(): the pod is deleted and recreated at its ordinal, counted against maxUnavailable, not held
 * back by the partition, and not while the rollout is paused.
 */
import { describe, expect, it } from "vitest";
import type { Action } from "../../src/core/actions.ts";
import { plan } from "../../src/core/planner.ts";
import { SPECIFIED_DELETE_LABEL, SWITCHOVER_REQUEST_ANNOTATION } from "../../src/objects/constants.ts";
import { NOW, claimFor, makeSet, pod, revisionOf, type PodState } from "./fixtures.ts";

const summary = (actions: Action[]) =>
  actions.flatMap((a) => {
    if (a.type === "createPod") return [`create ${a.pod.metadata!.name}@${a.pod.metadata!.labels!["controller-revision-hash"]}`];
    if (a.type === "deletePod") return [`delete ${a.name} (${a.reason})`];
    if (a.type === "event" && a.reason === "SpecifiedDelete") return [`event ${a.message}`];
    return [];
  });

/** The plan of `set` with pods (null: missing) at `rev`, those in `chosen` labelled for deletion. */
function planWith(set: ReturnType<typeof makeSet>, states: (PodState | null)[], chosen: number[], rev = revisionOf(set).metadata!.name!, revisions = [revisionOf(set)]) {
  const pods = states.flatMap((s, i) => {
    if (!s) return [];
    const p = pod(set, i, rev, s);
    if (chosen.includes(i)) p.metadata!.labels = { ...p.metadata!.labels, [SPECIFIED_DELETE_LABEL]: "true" };
    return [p];
  });
  return plan({ set, pods, claims: states.map((_, i) => claimFor(set, i)), revisions, now: NOW });
}

describe("plan: a pod labelled ordinal.dev/specified-delete", () => {
  const set = makeSet();
  const rev = revisionOf(set).metadata!.name!;

  it("is deleted, with an event, then recreated at its ordinal without the label", () => {
    expect(summary(planWith(set, ["ready", "ready", "ready"], [1]).actions)).toEqual([
      "event StatefulSet ns/web evicts Pod web-1 (label ordinal.dev/specified-delete); it is recreated at its ordinal",
      "delete web-1 (specifiedDelete)",
    ]);
    const next = planWith(set, ["ready", null, "ready"], []);
    expect(summary(next.actions)).toEqual([`create web-1@${rev}`]);
    const created = next.actions.find((a) => a.type === "createPod");
    expect(created?.type === "createPod" && created.pod.metadata!.labels![SPECIFIED_DELETE_LABEL]).toBeUndefined();
  });

  it.each([
    ["maxUnavailable 1 spent by an unavailable pod: waits", makeSet({ podManagementPolicy: "Parallel" }), ["ready", "ready", "running"], [1], []],
    ["an unavailable chosen pod goes at no cost", makeSet({ podManagementPolicy: "Parallel" }), ["ready", "running", "ready"], [1], ["delete web-1 (specifiedDelete)"]],
    ["maxUnavailable 1: the highest chosen pod only", makeSet(), ["ready", "ready", "ready"], [0, 2], ["delete web-2 (specifiedDelete)"]],
    ["maxUnavailable 2: both", makeSet({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 2 } } }), ["ready", "ready", "ready"], [0, 2], ["delete web-2 (specifiedDelete)", "delete web-0 (specifiedDelete)"]],
    ["the partition does not hold it back", makeSet({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 3 } } }), ["ready", "ready", "ready"], [0], ["delete web-0 (specifiedDelete)"]],
    ["not while paused", makeSet({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { paused: true } } }), ["ready", "ready", "ready"], [0], []],
    ["not with OnDelete (as Kruise: delete the pod yourself)", makeSet({ updateStrategy: { type: "OnDelete" } }), ["ready", "ready", "ready"], [0], []],
    ["a terminating chosen pod is not deleted again", makeSet(), ["ready", "ready", "terminating"], [2], []],
  ])("%s", (_, s, states, chosen, want) => {
    expect(summary(planWith(s, states as PodState[], chosen).actions).filter((x) => x.startsWith("delete"))).toEqual(want);
  });

  it("spends maxUnavailable before the rolling update: with a template change, web-2 waits while chosen web-1 goes", () => {
    const old = makeSet();
    const oldRev = revisionOf(old);
    const next = makeSet({ template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "img:2" }] } } }, { generation: 2 }, { currentRevision: oldRev.metadata!.name });
    const p = planWith(next, ["ready", "ready", "ready"], [1], oldRev.metadata!.name!, [oldRev, revisionOf(next, 2)]);
    expect(summary(p.actions).filter((x) => x.startsWith("delete"))).toEqual(["delete web-1 (specifiedDelete)"]);
    expect(p.waiting).toBe(true);
  });
});

describe("plan: a chosen pod already in PreparingDelete (a preDelete hook held it) while the rollout is paused (issue 34)", () => {
  const DRAIN = "example.io/drain";
  const hooked = (paused: boolean) => makeSet({ lifecycle: { preDelete: { labelsHandler: { [DRAIN]: "true" } } }, updateStrategy: { type: "RollingUpdate", rollingUpdate: { paused } } });
  /** web-1 chosen, moved to PreparingDelete when the rollout ran, its hook label now `drain` (another controller released it: "false"). */
  const planPreparing = (paused: boolean, drain: string) => {
    const set = hooked(paused);
    const rev = revisionOf(set).metadata!.name!;
    const pods = [0, 1, 2].map((i) => pod(set, i, rev, "ready"));
    pods[1].metadata!.labels = { ...pods[1].metadata!.labels, [SPECIFIED_DELETE_LABEL]: "true", "ordinal.dev/lifecycle-state": "PreparingDelete", [DRAIN]: drain };
    return plan({ set, pods, claims: [0, 1, 2].map((i) => claimFor(set, i)), revisions: [revisionOf(set)], now: NOW });
  };
  it("is not deleted while paused, even once its hook is released", () => {
    expect(summary(planPreparing(true, "false").actions).filter((x) => x.startsWith("delete"))).toEqual([]);
    expect(summary(planPreparing(true, "true").actions).filter((x) => x.startsWith("delete"))).toEqual([]);
  });
  it("resumed, the released pod is deleted (and not before its hook lets go)", () => {
    expect(summary(planPreparing(false, "false").actions).filter((x) => x.startsWith("delete"))).toEqual(["delete web-1 (specifiedDelete)"]);
    expect(summary(planPreparing(false, "true").actions).filter((x) => x.startsWith("delete"))).toEqual([]);
  });
});

describe("plan: a chosen pod that holds a switchover role (spec.roles.switchover)", () => {
  const set = makeSet({ roles: { labelKey: "spilo-role", updateOrder: ["replica", "master"], switchover: { roles: ["master"], timeoutSeconds: 60 } } });
  const leader = (request?: string) => {
    const p = pod(set, 1, revisionOf(set).metadata!.name!, "ready");
    p.metadata!.labels = { ...p.metadata!.labels, [SPECIFIED_DELETE_LABEL]: "true", "spilo-role": "master" };
    if (request) p.metadata!.annotations = { ...p.metadata!.annotations, [SWITCHOVER_REQUEST_ANNOTATION]: request };
    return plan({ set, pods: [pod(set, 0, revisionOf(set).metadata!.name!, "ready"), p, pod(set, 2, revisionOf(set).metadata!.name!, "ready")], claims: [0, 1, 2].map((i) => claimFor(set, i)), revisions: [revisionOf(set)], now: NOW });
  };

  it("is not deleted while its switchover waits, and asks to be looked at again when the wait times out", () => {
    const requested = new Date(NOW.getTime() - 20_000).toISOString().replace(/\.\d+Z$/, "Z");
    const r = leader(requested);
    expect(summary(r.actions)).toEqual([]);
    expect(r.requeueAfterMs).toBe(40_000);
  });
});

describe("plan: switchover requests while the rollout is paused", () => {
  const roles = { labelKey: "spilo-role", updateOrder: ["replica", "master"], switchover: { roles: ["master"], timeoutSeconds: 60 } };
  /** web-2 the leader with a request 20 s old; the set paused at `replicas`. */
  const planPaused = (replicas: number, chosen: boolean) => {
    const set = makeSet({ replicas, roles, updateStrategy: { type: "RollingUpdate", rollingUpdate: { paused: true } } });
    const rev = revisionOf(set).metadata!.name!;
    const pods = [0, 1, 2].map((i) => pod(set, i, rev, "ready"));
    pods[2].metadata!.labels = { ...pods[2].metadata!.labels, "spilo-role": "master", ...(chosen ? { [SPECIFIED_DELETE_LABEL]: "true" } : {}) };
    pods[2].metadata!.annotations = { ...pods[2].metadata!.annotations, [SWITCHOVER_REQUEST_ANNOTATION]: new Date(NOW.getTime() - 20_000).toISOString().replace(/\.\d+Z$/, "Z") };
    return plan({ set, pods, claims: [0, 1, 2].map((i) => claimFor(set, i)), revisions: [revisionOf(set)], now: NOW }).actions.flatMap((a) => (a.type === "setSwitchoverRequest" ? [`${a.name} ${a.reason}`] : []));
  };
  it("a chosen leader's request is withdrawn (no chosen deletion while paused; asked again on resume)", () => {
    expect(planPaused(3, true)).toEqual(["web-2 SwitchoverWithdrawn"]);
  });
  it("a leader scaled away keeps its request: a scale-down goes on while paused", () => {
    expect(planPaused(2, false)).toEqual([]);
  });
});
