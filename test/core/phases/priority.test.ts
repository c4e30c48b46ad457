/**
 * priorityStrategy in the rollout's phases (issue 33): podsToUpdate walks the update order
 * (update-order.ts) with maxUnavailable and pause; with a ranked order the partition counts pods
 * (partition.ts: the last `partition` pods in the order stay old, a pod made again takes the
 * current revision while fewer than `partition` others have an older one); chosen deletions
 * follow the order; OrderedReady's rolling update too.
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../../src/api/k8s.ts";
import type { PodState } from "../fixtures.ts";
import { newPlanContext, setView } from "../../../src/core/plan-context.ts";
import { needsCurrentRevision, rolloutTargets } from "../../../src/core/partition.ts";
import { newReplica } from "../../../src/core/replicas.ts";
import { isHealable } from "../../../src/core/healing.ts";
import { planRollingUpdate, podsToUpdate } from "../../../src/core/rolling-update.ts";
import { getStatefulSetRevisions, revisionTemplate } from "../../../src/core/revisions.ts";
import { SPECIFIED_DELETE_LABEL } from "../../../src/objects/constants.ts";
import { nameOf } from "../../../src/objects/names.ts";
import { brief, countsOf, makeSet, pod, present, revisionOf, slotsOf } from "./helpers.ts";

const NOW = new Date("2026-11-21T12:00:00Z");
const old = makeSet();
const o = revisionOf(old).metadata?.name ?? "";
/** Pods labelled tier=first are updated first (weight 50), tier=second next (10), unlabelled last. */
const WEIGHTS = { weightPriority: [{ weight: 50, matchSelector: { matchLabels: { tier: "first" } } }, { weight: 10, matchSelector: { matchLabels: { tier: "second" } } }] };

/** setWith is the set at img:2 (its current revision img:1) with `rollingUpdate` and, by default, WEIGHTS. */
const setWith = (rollingUpdate: Record<string, unknown> = {}, priority: unknown = WEIGHTS, policy = "Parallel") =>
  makeSet(
    {
      podManagementPolicy: policy,
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "img:2" }] } },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { ...rollingUpdate, ...(priority ? { unorderedUpdate: { priorityStrategy: priority } } : {}) } },
    },
    { generation: 2 },
    { currentRevision: o },
  );
const n = revisionOf(setWith(), 2).metadata?.name ?? "";

/** slots builds replicas from "state@rev:tier" strings (rev o or n; tier optional; "-" for a missing pod). */
function slots(specs: string[], set = setWith()) {
  return slotsOf(
    specs.map((s, i): Pod | undefined => {
      if (s === "-") return undefined;
      const [stateRev, tier] = s.split(":");
      const [state, rev] = stateRev.split("@");
      const p = pod(set, i, rev === "n" ? n : o, state as PodState);
      if (tier) p.metadata!.labels = { ...p.metadata!.labels, tier };
      return p;
    }),
  );
}

describe("podsToUpdate with a priorityStrategy", () => {
  it.each<[string, Record<string, unknown>, string[], string[], number, string | undefined]>([
    ["the order of the weights, ties highest ordinal first", {}, ["ready@o", "ready@o:second", "ready@o:first", "ready@o"], ["web-2", "web-1", "web-3", "web-0"], 1, undefined],
    ["maxUnavailable 2 takes the first two in the order", { maxUnavailable: 2 }, ["ready@o:first", "ready@o", "ready@o:first", "ready@o"], ["web-2", "web-0", "web-3", "web-1"], 2, undefined],
    ["an unavailable pod is taken at no cost wherever it is (moved to the front: it spends the budget itself)", {}, ["ready@o:first", "running@o", "ready@o", "ready@o"], ["web-1", "web-0", "web-3", "web-2"], 1, undefined],
    ["the walk stops at the first that does not fit", { maxUnavailable: 2 }, ["ready@o:first", "ready@o", "running@n", "ready@o:second"], ["web-0", "web-3", "web-1"], 1, undefined],
    ["partition 1 counts pods: the last in the order stays old", { partition: 1 }, ["ready@o:first", "ready@o", "ready@o:second", "ready@o"], ["web-0", "web-2", "web-3"], 1, undefined],
    ["partition 2 with one updated: one more, the first old one", { partition: 2, maxUnavailable: 3 }, ["ready@o", "ready@n", "ready@o:second", "ready@o:first"], ["web-3"], 1, undefined],
    ["partition reached: nothing to update, nothing blocks", { partition: 2 }, ["ready@o", "ready@n", "ready@n", "ready@o:first"], [], 0, undefined],
    // Upstream's partition would keep web-0 and web-1 (offsets below 2); counted, it keeps the two last in the order.
    ["partition counts pods, not offsets", { partition: 2, maxUnavailable: 2 }, ["ready@o:first", "ready@o:second", "ready@o", "ready@o"], ["web-0", "web-1"], 2, undefined],
    ["a terminating old pod is not counted old (it is being replaced)", { partition: 1 }, ["ready@o", "terminating@o:first", "ready@o:second"], ["web-2"], 0, "web-1"],
    ["paused: the order shown, none taken", { paused: true }, ["ready@o", "ready@o:first"], ["web-1", "web-0"], 0, "paused"],
  ])("%s", (_, ru, specs, pods, limit, blockedBy) => {
    const set = setWith(ru);
    const got = podsToUpdate(setView(set), slots(specs, set), n, NOW);
    expect(got.pods.map(nameOf)).toEqual(pods);
    expect(got.limit).toBe(limit);
    expect(got.blockedBy).toBe(blockedBy);
  });

  it("orderPriority: the first key's pods first, by the value's trailing integer, pods without a key last", () => {
    const set = setWith({ maxUnavailable: 4 }, { orderPriority: [{ orderedKey: "tier" }] });
    const got = podsToUpdate(setView(set), slots(["ready@o", "ready@o:p-1", "ready@o:p-10", "ready@o:p-2"], set), n, NOW);
    expect(got.pods.map(nameOf)).toEqual(["web-2", "web-3", "web-1", "web-0"]);
  });

  it("chosen deletions go in the update order", () => {
    const set = setWith({ maxUnavailable: 1 });
    const replicas = slots(["ready@n:first", "ready@n", "ready@n:second"], set);
    for (const p of replicas.pods.values()) p.metadata!.labels![SPECIFIED_DELETE_LABEL] = "true";
    const got = podsToUpdate(setView(set), replicas, n, NOW);
    // One fits maxUnavailable 1: the first in the order (upstream's order would take web-2).
    expect(got.chosen.map(nameOf)).toEqual(["web-0"]);
  });

  it("OrderedReady's rolling update follows the order too (one at a time)", () => {
    const set = setWith({}, WEIGHTS, "OrderedReady");
    const ctx = newPlanContext(set, getStatefulSetRevisions(set, [revisionOf(old, 1), revisionOf(set, 2)]), [], NOW);
    const templates = new Map(ctx.revisions.revisions.map((r) => [r.metadata?.name ?? "", revisionTemplate(r)]));
    const replicas = slots(["ready@o", "ready@o:first", "ready@o"], set);
    const r = planRollingUpdate(ctx, replicas, countsOf(ctx, present(replicas)), templates);
    expect(brief(r.actions)).toEqual(["deletePod web-1 (update)"]);
  });

  it("labels are re-read every plan: a pod relabelled first is taken first next time", () => {
    const set = setWith();
    const replicas = slots(["ready@o", "ready@o", "ready@o"], set);
    expect(podsToUpdate(setView(set), replicas, n, NOW).pods.map(nameOf)[0]).toBe("web-2");
    replicas.pods.get(0)!.metadata!.labels!.tier = "first";
    expect(podsToUpdate(setView(set), replicas, n, NOW).pods.map(nameOf)[0]).toBe("web-0");
  });
});

describe("rolloutTargets", () => {
  it("plain order: the offsets at or above the partition, whatever the labels", () => {
    const set = setWith({ partition: 2 }, null);
    const replicas = slots(["ready@o:first", "ready@o", "ready@o", "ready@o"], set);
    const targets = rolloutTargets(setView(set), replicas, n);
    expect([...replicas.pods].filter(([i, p]) => targets(i, p)).map(([i]) => i)).toEqual([2, 3]);
  });
  it("ranked order: the first (old − partition) old pods in the order, and every updated pod", () => {
    const set = setWith({ partition: 1 });
    const replicas = slots(["ready@o", "ready@n", "ready@o:first", "ready@o:second"], set);
    const targets = rolloutTargets(setView(set), replicas, n);
    expect([...replicas.pods].filter(([i, p]) => targets(i, p)).map(([i]) => i)).toEqual([1, 2, 3]);
  });
});

describe("needsCurrentRevision and newReplica with a ranked order", () => {
  const at = (set: ReturnType<typeof setWith>, specs: string[]) => [...slots(specs, set).pods];
  it.each<[string, Record<string, unknown>, string[], number, boolean]>([
    ["partition 0: update revision", {}, ["-", "ready@o", "ready@o"], 0, false],
    ["fewer old others than the partition: current", { partition: 2 }, ["-", "ready@o", "ready@n"], 0, true],
    ["as many old others as the partition: update", { partition: 1 }, ["-", "ready@o", "ready@n"], 0, false],
    ["the offset does not matter (upstream's partition would say current for 0)", { partition: 1 }, ["ready@n", "ready@o", "-"], 2, false],
    ["partition at least replicas: current", { partition: 3 }, ["-", "ready@o", "ready@o"], 0, true],
  ])("%s", (_, ru, specs, offset, want) => {
    const set = setWith(ru);
    expect(needsCurrentRevision(setView(set), offset, at(set, specs), n)).toBe(want);
  });
  it("newReplica counts the pods this plan made before it", () => {
    const set = setWith({ partition: 1 });
    const ctx = newPlanContext(set, getStatefulSetRevisions(set, [revisionOf(old, 1), revisionOf(set, 2)]), [], NOW);
    const first = newReplica(ctx, 0, []);
    expect(first.spec?.containers[0].image).toBe("img:1");
    expect(newReplica(ctx, 1, [[0, first]]).spec?.containers[0].image).toBe("img:2");
  });
});

describe("healing with a ranked order", () => {
  /** A pod at an abandoned revision, Running but never Ready since it started. */
  const stuckAt = (set: ReturnType<typeof setWith>, i: number, tier?: string): Pod => {
    const p = pod(set, i, "web-abandoned", "running", "2026-11-21T11:00:00Z");
    p.status!.startTime = "2026-11-21T11:00:00Z" as unknown as Date;
    if (tier) p.metadata!.labels = { ...p.metadata!.labels, tier };
    return p;
  };
  it("replaces a stuck pod the partition's count leaves to the rollout, not one it keeps", () => {
    const set = setWith({ partition: 1 }, WEIGHTS, "OrderedReady");
    const ctx = newPlanContext(set, getStatefulSetRevisions(set, [revisionOf(old, 1), revisionOf(set, 2)]), [], NOW);
    // Two old pods, partition 1: the first in the order (tier=first) is the rollout's, the other is kept.
    const first = stuckAt(set, 0, "first");
    const last = stuckAt(set, 1);
    const replicas = slotsOf([first, last, pod(set, 2, n)]);
    const targets = rolloutTargets(ctx, replicas, n);
    expect(isHealable(ctx, first, 0, targets, false)).toBe(true);
    expect(isHealable(ctx, last, 1, targets, false)).toBe(false);
  });
});
