/** Healing a stuck rollout: which pod may be replaced at once (src/core/healing.ts). */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { INPLACE_STATE_ANNOTATION } from "../../src/objects/constants.ts";
import { isHealable, isRevisionProven, podToHeal, wasNeverReady } from "../../src/core/healing.ts";
import { newPlanContext, setView } from "../../src/core/plan-context.ts";
import { rolloutTargets } from "../../src/core/partition.ts";
import { newSlots } from "../../src/core/slots.ts";
import { getStatefulSetRevisions } from "../../src/core/revisions.ts";
import { NOW, newPod, newSet, revisionOf, type PodState } from "../support/fixtures.ts";

const STARTED = "2026-11-21T11:00:00Z";

/** The pod at ordinal 1 and `revision` in `state`, started when its Ready condition was written. */
const podAt = (revision: string, state: PodState = "running", extra: (p: Pod) => void = () => {}): Pod => {
  const p = newPod(newSet(), 1, revision, state, STARTED);
  p.status!.startTime = STARTED as unknown as Date;
  extra(p);
  return p;
};

describe("wasNeverReady", () => {
  const withStatus = (status: Pod["status"], metadata: Pod["metadata"] = {}): Pod => ({ metadata, status });
  it.each<[string, Pod, boolean]>([
    ["Ready False with no transition time", withStatus({ startTime: STARTED as unknown as Date, conditions: [{ type: "Ready", status: "False" }] }), true],
    ["Ready False since creation (no startTime yet)", withStatus({ conditions: [{ type: "Ready", status: "False", lastTransitionTime: STARTED as unknown as Date }] }, { creationTimestamp: STARTED as unknown as Date }), true],
    ["Ready False within the second of slack", withStatus({ startTime: STARTED as unknown as Date, conditions: [{ type: "Ready", status: "False", lastTransitionTime: "2026-11-21T11:00:01Z" as unknown as Date }] }), true],
    ["Ready False two seconds after the start: was Ready between", withStatus({ startTime: STARTED as unknown as Date, conditions: [{ type: "Ready", status: "False", lastTransitionTime: "2026-11-21T11:00:02Z" as unknown as Date }] }), false],
    ["Ready False, no start nor creation time: read as once Ready", withStatus({ conditions: [{ type: "Ready", status: "False", lastTransitionTime: STARTED as unknown as Date }] }), false],
  ])("%s", (_, pod, want) => {
    expect(wasNeverReady(pod)).toBe(want);
  });
});

describe("isHealable", () => {
  /** A context whose current revision is web-old and update revision web-new. */
  const ctxOf = (spec: Record<string, unknown> = {}) => {
    const set = newSet({ spec });
    const revisions = { ...getStatefulSetRevisions(set, [revisionOf(set)]), currentName: "web-old", updateName: "web-new" };
    return newPlanContext(set, revisions, [], NOW);
  };
  const stuck = podAt("web-abandoned");
  const rolling = (rollingUpdate: Record<string, unknown>) => ({ updateStrategy: { type: "RollingUpdate", rollingUpdate } });

  it.each<[string, Record<string, unknown>, Pod, boolean, boolean]>([
    ["never Ready at an abandoned revision", {}, stuck, false, true],
    ["OnDelete: the user replaces pods", { updateStrategy: { type: "OnDelete" } }, stuck, false, false],
    ["paused rollout", rolling({ paused: true }), stuck, false, false],
    ["below the partition", rolling({ partition: 2 }), stuck, false, false],
    ["at the partition", rolling({ partition: 1 }), stuck, false, true],
    ["at the update revision", {}, podAt("web-new"), false, false],
    ["at the current revision, which no pod was ever Ready at", {}, podAt("web-old"), false, true],
    ["at the current revision, which some pod was Ready at (it only starts slowly)", {}, podAt("web-old"), true, false],
    ["at the current revision, never proven, below the partition", rolling({ partition: 2 }), podAt("web-old"), false, false],
    ["at the current revision, never proven, paused", rolling({ paused: true }), podAt("web-old"), false, false],
    ["at the current revision, never proven, but Ready once (Ready False long after its start)", {}, podAt("web-old", "running", (p) => (p.status!.startTime = "2026-11-21T10:00:00Z" as unknown as Date)), false, false],
    ["at the current revision, never proven, terminating", {}, podAt("web-old", "terminating"), false, false],
    ["at the current revision, never proven, in an in-place update", {}, podAt("web-old", "running", (p) => (p.metadata!.annotations = { [INPLACE_STATE_ANNOTATION]: "{}" })), false, false],
    ["terminating", {}, podAt("web-abandoned", "terminating"), false, false],
    ["Running and Ready", {}, podAt("web-abandoned", "ready"), false, false],
    ["Ready False since long after its start (it served)", {}, podAt("web-abandoned", "running", (p) => (p.status!.startTime = "2026-11-21T10:00:00Z" as unknown as Date)), false, false],
    ["an in-place update holds it", {}, podAt("web-abandoned", "running", (p) => (p.metadata!.annotations = { [INPLACE_STATE_ANNOTATION]: "{}" })), false, false],
  ])("%s", (_, spec, pod, currentProven, want) => {
    const ctx = ctxOf(spec);
    expect(isHealable(ctx, pod, 1, rolloutTargets(ctx, newSlots(3, [[1, pod]]), "web-new"), currentProven)).toBe(want);
  });

  it("a current revision equal to the update revision is never healed (no rollout moves away from it)", () => {
    const set = newSet();
    const ctx = newPlanContext(set, { ...getStatefulSetRevisions(set, [revisionOf(set)]), currentName: "web-old", updateName: "web-old" }, [], NOW);
    const pod = podAt("web-old");
    expect(isHealable(ctx, pod, 1, rolloutTargets(ctx, newSlots(3, [[1, pod]]), "web-old"), false)).toBe(false);
  });
});

describe("isRevisionProven", () => {
  it.each<[string, Pod[], boolean]>([
    ["no pods (a revision that completed at 0 replicas)", [], false],
    ["only never-Ready pods at it", [podAt("web-old"), podAt("web-old", "pending")], false],
    ["a Ready pod at it", [podAt("web-old"), podAt("web-old", "ready")], true],
    ["a pod at it Ready once, not now", [podAt("web-old", "running", (p) => (p.status!.startTime = "2026-11-21T10:00:00Z" as unknown as Date))], true],
    ["a terminating pod at it that is still Ready", [podAt("web-old", "readyTerminating")], true],
    ["a Ready pod at another revision", [podAt("web-new", "ready")], false],
  ])("%s", (_, pods, want) => {
    expect(isRevisionProven("web-old", pods)).toBe(want);
  });
});

describe("podToHeal", () => {
  const set = newSet({ replicas: 3 });
  const view = { ...setView(set), revisions: { currentName: "web-old", updateName: "web-new" } };
  const at = (ordinal: number, revision: string, state: PodState = "running"): Pod => {
    const p = newPod(set, ordinal, revision, state, STARTED);
    p.status!.startTime = STARTED as unknown as Date;
    return p;
  };
  const heal = (pods: Pod[], v = view) => podToHeal(v, newSlots(3, pods.map((p) => [Number(p.metadata!.name!.split("-")[1]), p] as const)), pods, NOW)?.metadata?.name;

  it.each<[string, Pod[], string | undefined]>([
    ["the only pod, never Ready at a current revision nobody saw work (issue 36)", [at(0, "web-old")], "web-0"],
    ["the first pod OrderedReady waits for, after Ready ones at the update revision", [at(0, "web-new", "ready"), at(1, "web-old")], "web-1"],
    ["a sibling at the current revision is Ready: the slow pod is waited for", [at(0, "web-old"), at(1, "web-old", "ready")], undefined],
    ["a Ready pod at the update revision proves nothing about the current one", [at(0, "web-old"), at(1, "web-new", "ready")], "web-0"],
    ["a missing replica before it is created first", [at(1, "web-old")], undefined],
    ["a failed pod before it is recreated first", [at(0, "web-new", "failed"), at(1, "web-old")], undefined],
    ["a condemned pod (beyond the replicas) Ready at the current revision proves it", [at(0, "web-old"), at(5, "web-old", "ready")], undefined],
    ["the pod waited for is at the update revision", [at(0, "web-new"), at(1, "web-old")], undefined],
    ["an abandoned revision, as before", [at(0, "web-abandoned")], "web-0"],
    ["all Ready: nothing to heal", [at(0, "web-old", "ready"), at(1, "web-new", "ready")], undefined],
  ])("%s", (_, pods, want) => {
    expect(heal(pods)).toBe(want);
  });

  it("Parallel: none (its rolling update takes an unavailable pod at no cost)", () => {
    const parallel = newSet({ replicas: 3, policy: "Parallel" });
    expect(heal([at(0, "web-old")], { ...setView(parallel), revisions: view.revisions })).toBeUndefined();
  });
});
