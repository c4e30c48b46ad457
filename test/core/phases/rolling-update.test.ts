import { describe, expect, it } from "vitest";
import type { PodState } from "../fixtures.ts";
import { newPlanContext, setView } from "../../../src/core/plan-context.ts";
import { planRollingUpdate, podsToUpdate } from "../../../src/core/rolling-update.ts";
import { getStatefulSetRevisions, revisionTemplate } from "../../../src/core/revisions.ts";
import { brief, countsOf, makeSet, pod, present, revisionOf, slotsOf } from "./helpers.ts";

const NOW = new Date("2026-11-21T12:00:00Z");
const old = makeSet();
const o = revisionOf(old).metadata?.name ?? "";
const withPartition = (partition: number) =>
  makeSet(
    { template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "img:2" }] } }, updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition } } },
    { generation: 2 },
    { currentRevision: o },
  );
const next = withPartition(0);
const n = revisionOf(next, 2).metadata?.name ?? "";

/** slots builds replicas from "state@rev" strings ("-" for a missing pod, "new" for one planned, not created). */
function slots(specs: string[], set = next) {
  return slotsOf(specs.map((s, i) => {
    if (s === "-") return undefined;
    if (s === "new") {
      const p = pod(set, i, n);
      delete p.status;
      return p;
    }
    const [state, rev] = s.split("@");
    return pod(set, i, rev === "n" ? n : o, state as PodState);
  }));
}

describe("podsToUpdate", () => {
  it.each([
    ["all updated and healthy: nothing", ["ready@n", "ready@n", "ready@n"], 0, [], 0, undefined],
    ["all old: highest first, one now", ["ready@o", "ready@o", "ready@o"], 0, ["web-2", "web-1", "web-0"], 1, undefined],
    ["an updated pod above that is unhealthy blocks", ["ready@o", "ready@o", "running@n"], 0, ["web-1", "web-0"], 0, "web-2"],
    ["an unhealthy old pod is updated anyway (upstream deletes before the health check)", ["ready@o", "ready@o", "running@o"], 0, ["web-2", "web-1", "web-0"], 1, undefined],
    ["an unhealthy old pod later in the order is taken although the available one before it does not fit (it spends the budget itself)", ["running@o", "ready@o", "ready@o"], 0, ["web-0", "web-2", "web-1"], 1, undefined],
    ["an unhealthy updated pod is not taken twice: the old ones wait for it", ["running@n", "ready@o", "ready@o"], 0, ["web-2", "web-1"], 0, "web-0"],
    ["a terminating old pod is not a candidate and blocks", ["ready@o", "ready@o", "terminating@o"], 0, ["web-1", "web-0"], 0, "web-2"],
    ["a terminating pod that still reports Ready is unavailable and blocks", ["ready@o", "ready@o", "readyTerminating@n"], 0, ["web-1", "web-0"], 0, "web-2"],
    ["a missing ordinal blocks", ["ready@o", "ready@o", "-"], 0, ["web-1", "web-0"], 0, "web-2"],
    ["a planned, not yet created pod blocks", ["ready@o", "ready@o", "new"], 0, ["web-1", "web-0"], 0, "web-2"],
    ["the partition keeps lower ordinals out", ["ready@o", "ready@o", "ready@o"], 2, ["web-2"], 1, undefined],
    ["below the partition nothing blocks", ["running@o", "ready@n", "ready@n"], 1, [], 0, undefined],
  ])("%s", (_, specs, partition, pods, limit, blockedBy) => {
    const set = withPartition(partition as number);
    const got = podsToUpdate(setView(set), slots(specs as string[], set), n, NOW);
    expect(got.pods.map((p) => p.metadata?.name)).toEqual(pods);
    expect(got.limit).toBe(limit);
    expect(got.blockedBy).toBe(blockedBy);
  });
});

describe("planRollingUpdate", () => {
  const ctx = newPlanContext(next, getStatefulSetRevisions(next, [revisionOf(old, 1), revisionOf(next, 2)]), [], NOW);
  const templates = new Map(ctx.revisions.revisions.map((r) => [r.metadata?.name ?? "", revisionTemplate(r)]));
  it.each([
    ["deletes the one pod podsToUpdate allows (no separate event action)", ["ready@o", "ready@o", "ready@o"], ["deletePod web-2 (update)"], true],
    ["waits on a blocker without writing", ["ready@o", "ready@o", "running@n"], [], true],
    ["done: no writes, not waiting", ["ready@n", "ready@n", "ready@n"], [], false],
  ])("%s", (_, specs, want, waiting) => {
    const replicas = slots(specs as string[]);
    const r = planRollingUpdate(ctx, replicas, countsOf(ctx, present(replicas)), templates);
    expect(brief(r.actions, true)).toEqual(want);
    expect(r.waiting).toBe(waiting);
    expect(r.halt).toBe(false);
  });
  it("counts the deleted pod out of its revision, not out of replicas", () => {
    const replicas = slots(["ready@o", "ready@o", "ready@o"]);
    const before = countsOf(ctx, present(replicas));
    expect(planRollingUpdate(ctx, replicas, before, templates).counts).toEqual({ ...before, currentReplicas: before.currentReplicas - 1 });
  });
});

describe("podsToUpdate: pause and the nearest blocker", () => {
  const paused = makeSet(
    { template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "img:2" }] } }, updateStrategy: { type: "RollingUpdate", rollingUpdate: { paused: true } } },
    { generation: 2 },
    { currentRevision: o },
  );
  it.each([
    ["paused with pods to update: none now, held by the pause", ["ready@o", "ready@o", "ready@o"], ["web-2", "web-1", "web-0"], "paused"],
    ["paused with nothing to update: no blocker", ["ready@n", "ready@n", "ready@n"], [], undefined],
  ])("%s", (_, specs, pods, blockedBy) => {
    const got = podsToUpdate(setView(paused), slots(specs, paused), n, NOW);
    expect(got.pods.map((p) => p.metadata?.name)).toEqual(pods);
    expect(got.limit).toBe(0);
    expect(got.blockedBy).toBe(blockedBy);
  });
  it.each([
    // Two unavailable updated pods: the rollout (highest first) waits on the highest.
    ["web-0 and web-2 unhealthy: web-2", ["running@n", "ready@o", "running@n"], "web-2"],
    ["web-0, web-1 missing and web-3 unhealthy: web-3", ["running@n", "-", "ready@o", "running@n"], "web-3"],
  ])("%s", (_, specs, blockedBy) => {
    const got = podsToUpdate(setView(next), slots(specs), n, NOW);
    expect(got.limit).toBe(0);
    expect(got.blockedBy).toBe(blockedBy);
  });
});

describe("planRollingUpdate: podUpdatePolicy", () => {
  /** run plans the rolling update of three old Running and Ready pods to `template` under `policy`. */
  function run(policy: string, container: Record<string, unknown>, specs = ["ready@o", "ready@o", "ready@o"]) {
    const set = makeSet(
      { template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", ...container }] } }, updateStrategy: { type: "RollingUpdate", rollingUpdate: { podUpdatePolicy: policy } } },
      { generation: 2 },
      { currentRevision: o },
    );
    const ctx = newPlanContext(set, getStatefulSetRevisions(set, [revisionOf(old, 1), revisionOf(set, 2)]), [], NOW);
    const templates = new Map(ctx.revisions.revisions.map((r) => [r.metadata?.name ?? "", revisionTemplate(r)]));
    const replicas = slotsOf(specs.map((s, i) => pod(set, i, s.endsWith("@n") ? (ctx.revisions.updateName) : o, s.split("@")[0] as PodState)));
    const counts = countsOf(ctx, present(replicas));
    return { counts, r: planRollingUpdate(ctx, replicas, counts, templates) };
  }
  const envChange = { image: "img:2", env: [{ name: "A", value: "1" }] };

  it("InPlaceOnly that cannot: every pod to update is blocked, once, naming the pointer; nothing written, not waiting", () => {
    const { r } = run("InPlaceOnly", envChange);
    expect(r.actions).toEqual([]);
    expect(r.blocked).toEqual(["web-2", "web-1", "web-0"].map((p) => `pod ${p}: patch cannot use in-place update: /spec/containers/0/env`));
    expect(r.waiting).toBe(false);
  });

  it("InPlaceOnly that can: the pod within the limit is updated in place, none blocked, counts unchanged, waiting", () => {
    const { r, counts } = run("InPlaceOnly", { image: "img:2" });
    expect(brief(r.actions)).toEqual(["gate web-2 False StartInPlaceUpdate"]);
    expect(r.blocked).toEqual([]);
    expect(r.counts).toEqual(counts);
    expect(r.waiting).toBe(true);
  });

  it("InPlaceIfPossible that can: updated in place, counts unchanged", () => {
    const { r, counts } = run("InPlaceIfPossible", { image: "img:2" });
    expect(brief(r.actions)).toEqual(["gate web-2 False StartInPlaceUpdate"]);
    expect(r.counts).toEqual(counts);
  });
});
