/** Healing a stuck rollout: which pod may be replaced at once (src/core/healing.ts). */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { INPLACE_STATE_ANNOTATION } from "../../src/objects/constants.ts";
import { isStuckAtAbandonedRevision, wasNeverReady } from "../../src/core/healing.ts";
import { newPlanContext } from "../../src/core/plan-context.ts";
import { rolloutTargets } from "../../src/core/partition.ts";
import { newSlots } from "../../src/core/slots.ts";
import { getStatefulSetRevisions } from "../../src/core/revisions.ts";
import { NOW, newPod, newSet, revisionOf, type PodState } from "../support/fixtures.ts";

const STARTED = "2026-11-21T11:00:00Z";

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

describe("isStuckAtAbandonedRevision", () => {
  /** A context whose current revision is web-old and update revision web-new. */
  const ctxOf = (spec: Record<string, unknown> = {}) => {
    const set = newSet({ spec });
    const revisions = { ...getStatefulSetRevisions(set, [revisionOf(set)]), currentName: "web-old", updateName: "web-new" };
    return newPlanContext(set, revisions, [], NOW);
  };
  /** The pod at `ordinal` and `revision` in `state`, started when its Ready condition was written. */
  const podAt = (revision: string, state: PodState = "running", extra: (p: Pod) => void = () => {}): Pod => {
    const p = newPod(newSet(), 1, revision, state, STARTED);
    p.status!.startTime = STARTED as unknown as Date;
    extra(p);
    return p;
  };
  const stuck = podAt("web-abandoned");
  const rolling = (rollingUpdate: Record<string, unknown>) => ({ updateStrategy: { type: "RollingUpdate", rollingUpdate } });

  it.each<[string, Record<string, unknown>, Pod, number, boolean]>([
    ["never Ready at an abandoned revision", {}, stuck, 1, true],
    ["OnDelete: the user replaces pods", { updateStrategy: { type: "OnDelete" } }, stuck, 1, false],
    ["paused rollout", rolling({ paused: true }), stuck, 1, false],
    ["below the partition", rolling({ partition: 2 }), stuck, 1, false],
    ["at the partition", rolling({ partition: 1 }), stuck, 1, true],
    ["at the update revision", {}, podAt("web-new"), 1, false],
    ["at the current revision", {}, podAt("web-old"), 1, false],
    ["terminating", {}, podAt("web-abandoned", "terminating"), 1, false],
    ["Running and Ready", {}, podAt("web-abandoned", "ready"), 1, false],
    ["Ready False since long after its start (it served)", {}, podAt("web-abandoned", "running", (p) => (p.status!.startTime = "2026-11-21T10:00:00Z" as unknown as Date)), 1, false],
    ["an in-place update holds it", {}, podAt("web-abandoned", "running", (p) => (p.metadata!.annotations = { [INPLACE_STATE_ANNOTATION]: "{}" })), 1, false],
  ])("%s", (_, spec, pod, index, want) => {
    const ctx = ctxOf(spec);
    expect(isStuckAtAbandonedRevision(ctx, pod, index, rolloutTargets(ctx, newSlots(3, [[index, pod]]), "web-new"))).toBe(want);
  });
});
