// Claim templates that change (src/core/claim-update.ts) and how the rollout applies them:
// calculateClaimUpdate per pod, podsToUpdate/planRollingUpdate (expansion in rollout order,
// recreation to mount an added template), planReplicas (a missing pod's claims grow first),
// volumeClaimStatus and the VolumeExpansionBlocked condition.
import { describe, expect, it } from "vitest";
import type { PersistentVolumeClaim, Pod } from "../../../src/api/k8s.ts";
import type { StatefulSet } from "../../../src/api/statefulset.ts";
import { calculateClaimUpdate, claimsToExpand, volumeClaimStatus, type ExpansionByClass } from "../../../src/core/claim-update.ts";
import { rolloutConditions } from "../../../src/core/conditions.ts";
import { newPlanContext } from "../../../src/core/plan-context.ts";
import { plan } from "../../../src/core/planner.ts";
import { planReplicas } from "../../../src/core/replicas.ts";
import { getStatefulSetRevisions, revisionTemplate } from "../../../src/core/revisions.ts";
import { planRollingUpdate, podsToUpdate } from "../../../src/core/rolling-update.ts";
import { statusAfter } from "../../../src/core/status.ts";
import { claimTemplate } from "../../support/fixtures.ts";
import { NOW, brief, countsOf, makeSet, pod, present, revisionOf, slotsOf } from "./helpers.ts";

const CLASSES: ExpansionByClass = new Map([
  ["grows", true],
  ["fixed", false],
]);

/** A set whose `www` template asks for `storage`, with the given claim strategy (and extra spec). */
const setWith = (storage: string, type?: "OnDelete" | "OnPodRollingUpdate", spec: Record<string, unknown> = {}): StatefulSet =>
  makeSet({ volumeClaimTemplates: [claimTemplate("www", storage)], ...(type ? { volumeClaimUpdateStrategy: { type } } : {}), ...spec });

interface ClaimShape {
  storage?: string;
  cls?: string;
  /** "none": the claim has no status.phase yet. */
  phase?: "Bound" | "Pending" | "Lost" | "none";
  capacity?: string;
  template?: string;
  deleting?: boolean;
}
/** claim returns the set's claim of `ordinal` (template `www` unless said) as the apiserver holds it. */
function claim(set: StatefulSet, ordinal: number, c: ClaimShape = {}): PersistentVolumeClaim {
  const { storage = "1Gi", cls = "grows", phase = "Bound", capacity = storage, template = "www" } = c;
  return {
    metadata: { name: `${template}-${set.metadata.name}-${ordinal}`, namespace: "ns", uid: `pvc-${template}-${ordinal}`, ...(c.deleting ? { deletionTimestamp: NOW } : {}) },
    spec: { storageClassName: cls, accessModes: ["ReadWriteOnce"], resources: { requests: { storage } } },
    status: phase === "none" ? {} : { phase, ...(phase === "Bound" ? { capacity: { storage: capacity } } : {}) },
  };
}
const byName = (claims: PersistentVolumeClaim[]) => new Map(claims.map((c) => [c.metadata?.name ?? "", c]));

describe("calculateClaimUpdate", () => {
  const set = setWith("2Gi", "OnPodRollingUpdate");
  const rev = revisionOf(set).metadata?.name ?? "";
  const mounted = pod(set, 0, rev);
  it.each<[string, ClaimShape | undefined, ExpansionByClass | undefined, Partial<ReturnType<typeof calculateClaimUpdate>>]>([
    ["a bound claim below its template, class allows: expand", {}, CLASSES, { expand: [{ claim: "www-web-0", uid: "pvc-www-0", template: "www", storage: "2Gi" }] }],
    ["at the template's size: nothing", { storage: "2Gi" }, CLASSES, {}],
    ["larger than the template (written as 2048Mi... 3Gi): nothing", { storage: "3Gi" }, CLASSES, {}],
    ["the same size written otherwise (2048Mi): nothing", { storage: "2048Mi" }, CLASSES, {}],
    [
      "not bound yet: left until it is (the apiserver refuses it), and said so",
      { phase: "Pending" },
      CLASSES,
      { unbound: ["claim www-web-0 is not Bound (Pending): it grows to 2Gi once it is"] },
    ],
    ["not bound, StorageClasses not read: said so too", { phase: "Pending" }, undefined, { unbound: ["claim www-web-0 is not Bound (Pending): it grows to 2Gi once it is"] }],
    // Issue 34: only a Bound claim is ever grown.
    ["Lost (its volume gone): never grown, said so", { phase: "Lost" }, CLASSES, { unbound: ["claim www-web-0 is not Bound (Lost): it grows to 2Gi once it is"] }],
    ["no phase yet: never grown, said so", { phase: "none" }, CLASSES, { unbound: ["claim www-web-0 is not Bound (no phase yet): it grows to 2Gi once it is"] }],
    ["being deleted: left alone", { deleting: true }, CLASSES, {}],
    ["missing: the replicas phase creates it", undefined, CLASSES, {}],
    ["StorageClasses not read: nothing planned, nothing refused", {}, undefined, {}],
    [
      "a class without allowVolumeExpansion: refused, not written",
      { cls: "fixed" },
      CLASSES,
      { refused: [`claim www-web-0: StorageClass "fixed" does not allow volume expansion (allowVolumeExpansion is not true)`] },
    ],
    ["a class not found: refused", { cls: "gone" }, CLASSES, { refused: [`claim www-web-0: StorageClass "gone" not found`] }],
    ["no class: refused", { cls: "" }, CLASSES, { refused: ["claim www-web-0 has no StorageClass: it cannot be expanded"] }],
    ["grown, capacity not yet: resizing", { storage: "2Gi", capacity: "1Gi" }, CLASSES, { resizing: true }],
  ])("%s", (_, shape, classes, want) => {
    const claims = shape ? [claim(set, 0, shape)] : [];
    expect(calculateClaimUpdate(set, byName(claims), classes, 0, mounted)).toEqual({ expand: [], refused: [], unbound: [], remount: false, resizing: false, ...want });
  });

  it("a pod without an added template's volume must be recreated (remount); a missing pod need not", () => {
    const before = setWith("1Gi", "OnPodRollingUpdate");
    const old = pod(before, 0, rev);
    const added = setWith("1Gi", "OnPodRollingUpdate", { volumeClaimTemplates: [claimTemplate("www"), claimTemplate("logs")] });
    const claims = byName([claim(added, 0), claim(added, 0, { template: "logs" })]);
    expect(calculateClaimUpdate(added, claims, CLASSES, 0, old).remount).toBe(true);
    expect(calculateClaimUpdate(added, claims, CLASSES, 0, pod(added, 0, rev)).remount).toBe(false);
    expect(calculateClaimUpdate(added, claims, CLASSES, 0).remount).toBe(false);
  });
});

describe("claimsToExpand (whether the pass reads StorageClasses)", () => {
  it.each<[string, StatefulSet, ClaimShape[], boolean]>([
    ["OnPodRollingUpdate with a claim below its template", setWith("2Gi", "OnPodRollingUpdate"), [{}], true],
    ["OnPodRollingUpdate, every claim at size", setWith("2Gi", "OnPodRollingUpdate"), [{ storage: "2Gi" }], false],
    ["OnDelete (default) never", setWith("2Gi"), [{}], false],
    ["a claim of another template name is not this template's", setWith("2Gi", "OnPodRollingUpdate"), [{ template: "other" }], false],
  ])("%s", (_, set, shapes, want) => {
    expect(claimsToExpand(set, shapes.map((s, i) => claim(set, i, s)))).toBe(want);
  });
});

/** A 3-pod set at one revision whose template grew to 2Gi, its claims in `shapes`, pods in `states`. */
function grown(shapes: ClaimShape[], spec: Record<string, unknown> = {}, type: "OnDelete" | "OnPodRollingUpdate" = "OnPodRollingUpdate") {
  const set = setWith("2Gi", type, spec);
  const ctx = newPlanContext(set, getStatefulSetRevisions(set, [revisionOf(set)]), shapes.map((s, i) => claim(set, i, s)), NOW, CLASSES);
  const rev = ctx.revisions.updateName;
  const replicas = slotsOf(shapes.map((_, i) => pod(set, i, rev)));
  const templates = new Map(ctx.revisions.revisions.map((r) => [r.metadata?.name ?? "", revisionTemplate(r)]));
  return { set, ctx, replicas, templates };
}
const names = (pods: Pod[]) => pods.map((p) => p.metadata?.name);

describe("podsToUpdate and planRollingUpdate with OnPodRollingUpdate (one revision: only claims lag)", () => {
  it.each<[string, ClaimShape[], Record<string, unknown>, string[], number, string[]]>([
    ["every claim small: highest ordinal first, one at a time", [{}, {}, {}], {}, ["web-2", "web-1", "web-0"], 1, ["expandClaim www-web-2"]],
    ["maxUnavailable 2: two at once", [{}, {}, {}], { updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 2 } } }, ["web-2", "web-1", "web-0"], 2, ["expandClaim www-web-2", "expandClaim www-web-1"]],
    ["web-2 grown but still resizing: it holds the next", [{}, {}, { storage: "2Gi", capacity: "1Gi" }], {}, ["web-1", "web-0"], 0, []],
    ["web-2 done: web-1 next", [{}, {}, { storage: "2Gi" }], {}, ["web-1", "web-0"], 1, ["expandClaim www-web-1"]],
    ["the partition keeps lower ordinals' claims as they are", [{}, {}, {}], { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } } }, ["web-2"], 1, ["expandClaim www-web-2"]],
    ["paused: nothing", [{}, {}, {}], { updateStrategy: { type: "RollingUpdate", rollingUpdate: { paused: true } } }, ["web-2", "web-1", "web-0"], 0, []],
    ["a claim whose class refuses is no candidate (the others go on)", [{}, {}, { cls: "fixed" }], {}, ["web-1", "web-0"], 1, ["expandClaim www-web-1"]],
    ["all at size: nothing to do", [{ storage: "2Gi" }, { storage: "2Gi" }, { storage: "2Gi" }], {}, [], 0, []],
  ])("%s", (_, shapes, spec, candidates, limit, actions) => {
    const { ctx, replicas, templates } = grown(shapes, spec);
    const got = podsToUpdate(ctx, replicas, ctx.revisions.updateName, NOW, ctx.claimUpdates);
    expect(names(got.pods)).toEqual(candidates);
    expect(got.limit).toBe(limit);
    const planned = planRollingUpdate(ctx, replicas, countsOf(ctx, present(replicas)), templates);
    expect(brief(planned.actions, true)).toEqual(actions);
  });

  it("OnDelete (the default) leaves existing claims as they are", () => {
    const { ctx, replicas, templates } = grown([{}, {}, {}], {}, "OnDelete");
    expect(ctx.claimUpdates).toBeUndefined();
    expect(podsToUpdate(ctx, replicas, ctx.revisions.updateName, NOW, ctx.claimUpdates).pods).toEqual([]);
    expect(planRollingUpdate(ctx, replicas, countsOf(ctx, present(replicas)), templates).actions).toEqual([]);
  });

  it("a new revision too: the claims grow, then the pod is recreated, in one unit", () => {
    const set = setWith("2Gi", "OnPodRollingUpdate", { template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "img:2" }] } } });
    const oldSet = setWith("1Gi", "OnPodRollingUpdate");
    const claims = [0, 1, 2].map((i) => claim(set, i));
    const ctx = newPlanContext(set, getStatefulSetRevisions(set, [revisionOf(oldSet, 1), revisionOf(set, 2)]), claims, NOW, CLASSES);
    const oldRev = revisionOf(oldSet, 1).metadata?.name ?? "";
    const replicas = slotsOf([0, 1, 2].map((i) => pod(set, i, oldRev)));
    const templates = new Map(ctx.revisions.revisions.map((r) => [r.metadata?.name ?? "", revisionTemplate(r)]));
    const planned = planRollingUpdate(ctx, replicas, countsOf(ctx, present(replicas)), templates);
    expect(brief(planned.actions, true)).toEqual(["expandClaim www-web-2", "deletePod web-2 (update)"]);
    expect(planned.actions.map((a) => ("pod" in a && typeof a.pod === "string" ? a.pod : "name" in a ? a.name : ""))).toEqual(["web-2", "web-2"]);
  });
});

describe("a Ready pod whose claim is still resizing, in a rollout of a new revision", () => {
  // Found by test/reconciler/random-runs.test.ts (through the watch cache, seed 164 of
  // ORDINAL_RANDOM_SEED=164 ORDINAL_RANDOM_RUNS=1): a Parallel set's web-0, Ready and serving while
  // its claim grew, was deleted for the new revision in the pass that took the two pods that were
  // not Ready at no cost: three of three replicas down with maxUnavailable 1. A resizing claim holds
  // the next pod back (it counts as unavailable), but its pod still serves: taking it down costs
  // the budget like any available pod's.
  const set = setWith("2Gi", "OnPodRollingUpdate", { podManagementPolicy: "Parallel", template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "img:2" }] } } });
  const oldSet = setWith("2Gi", "OnPodRollingUpdate");
  const ctx = newPlanContext(set, getStatefulSetRevisions(set, [revisionOf(oldSet, 1), revisionOf(set, 2)]), [claim(set, 0, { storage: "2Gi", capacity: "1Gi" }), claim(set, 1, { storage: "2Gi" }), claim(set, 2, { storage: "2Gi" })], NOW, CLASSES);
  const oldRev = revisionOf(oldSet, 1).metadata?.name ?? "";
  const templates = new Map(ctx.revisions.revisions.map((r) => [r.metadata?.name ?? "", revisionTemplate(r)]));

  it("is not taken while the pods that are not Ready already use the budget", () => {
    const replicas = slotsOf([pod(set, 0, oldRev), pod(set, 1, oldRev, "pending"), pod(set, 2, oldRev, "pending")]);
    const got = podsToUpdate(ctx, replicas, ctx.revisions.updateName, NOW, ctx.claimUpdates);
    expect(names(got.pods.slice(0, got.limit))).toEqual(["web-2", "web-1"]);
    expect(brief(planRollingUpdate(ctx, replicas, countsOf(ctx, present(replicas)), templates).actions)).toEqual(["deletePod web-2 (update)", "deletePod web-1 (update)"]);
  });

  it("is taken when it is the only replica down (its own resize is not counted twice)", () => {
    const replicas = slotsOf([pod(set, 0, oldRev), pod(set, 1, ctx.revisions.updateName), pod(set, 2, ctx.revisions.updateName)]);
    const got = podsToUpdate(ctx, replicas, ctx.revisions.updateName, NOW, ctx.claimUpdates);
    expect(names(got.pods.slice(0, got.limit))).toEqual(["web-0"]);
  });
});

describe("an added claim template (OnPodRollingUpdate): pods recreated in rollout order to mount it", () => {
  const before = setWith("1Gi", "OnPodRollingUpdate");
  const rev = revisionOf(before).metadata?.name ?? "";
  const policy = (podUpdatePolicy: string) => ({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { podUpdatePolicy } } });
  const added = (spec: Record<string, unknown> = {}) => setWith("1Gi", "OnPodRollingUpdate", { volumeClaimTemplates: [claimTemplate("www"), claimTemplate("logs")], ...spec });
  const plan = (set: StatefulSet, pods: (Pod | undefined)[]) => {
    const claims = [0, 1, 2].flatMap((i) => [claim(set, i), claim(set, i, { template: "logs" })]);
    const ctx = newPlanContext(set, getStatefulSetRevisions(set, [revisionOf(set)]), claims, NOW, CLASSES);
    const replicas = slotsOf(pods);
    const templates = new Map(ctx.revisions.revisions.map((r) => [r.metadata?.name ?? "", revisionTemplate(r)]));
    return planRollingUpdate(ctx, replicas, countsOf(ctx, present(replicas)), templates);
  };
  const oldPods = () => [0, 1, 2].map((i) => pod(before, i, rev));

  it.each<[string, Record<string, unknown>, string[], string[]]>([
    ["ReCreate: web-2 first, saying why", {}, ["event RecreatingForNewClaims", "deletePod web-2 (update)"], []],
    ["InPlaceIfPossible: recreated too (volumes never change in place)", policy("InPlaceIfPossible"), ["event RecreatingForNewClaims", "deletePod web-2 (update)"], []],
    ["InPlaceOnly: left alone and reported", policy("InPlaceOnly"), [], ["pod web-2: a volume claim template was added: only a new pod mounts its claim"]],
  ])("%s", (_, spec, actions, blocked) => {
    const r = plan(added(spec), oldPods());
    expect(brief(r.actions, true)).toEqual(actions);
    expect(r.blocked).toEqual(blocked);
  });

  it("a pod made with the new template is done; the next one down goes", () => {
    const set = added();
    const pods = oldPods();
    pods[2] = pod(set, 2, rev);
    expect(brief(plan(set, pods).actions)).toEqual(["deletePod web-1 (update)"]);
  });

  it("OnDelete: pods keep their volumes until they are deleted", () => {
    const set = setWith("1Gi", "OnDelete", { volumeClaimTemplates: [claimTemplate("www"), claimTemplate("logs")] });
    expect(plan(set, oldPods()).actions).toEqual([]);
  });
});

describe("planReplicas: a missing pod's claims grow before it is created", () => {
  it("expands the existing claim, then creates the pod (OnPodRollingUpdate)", () => {
    const { ctx, replicas } = grown([{ storage: "2Gi" }, {}, {}]);
    const slots = slotsOf([replicas.pods.get(0), undefined, undefined]);
    const r = planReplicas(ctx, slots, countsOf(ctx, present(slots)));
    expect(brief(r.actions)).toEqual(["expandClaim www-web-1", "createPod web-1"]);
  });
  it("OnDelete: the claim stays as it is", () => {
    const { ctx, replicas } = grown([{ storage: "2Gi" }, {}, {}], {}, "OnDelete");
    const slots = slotsOf([replicas.pods.get(0), undefined, undefined]);
    expect(brief(planReplicas(ctx, slots, countsOf(ctx, present(slots))).actions)).toEqual(["createPod web-1"]);
  });
});

describe("volumeClaimStatus (Kruise's compatibleReplicas / compatibleReadyReplicas)", () => {
  it("counts claims at least the template's size, and of those the ones whose capacity caught up", () => {
    const set = setWith("2Gi", "OnPodRollingUpdate");
    const claims = byName([claim(set, 0, { storage: "2Gi" }), claim(set, 1, { storage: "2Gi", capacity: "1Gi" }), claim(set, 2), claim(set, 3, { storage: "4Gi", phase: "Pending" })]);
    const replicas = [0, 1, 2, 3, 4].map((o) => [o, pod(set, o, "r")] as const);
    expect(volumeClaimStatus(set, replicas, claims)).toEqual([{ volumeClaimName: "www", compatibleReplicas: 3, compatibleReadyReplicas: 2 }]);
  });
  it("does not count a claim its pod does not mount yet (a template added since the pod was made)", () => {
    const before = setWith("1Gi", "OnPodRollingUpdate");
    const set = setWith("1Gi", "OnPodRollingUpdate", { volumeClaimTemplates: [claimTemplate("www"), claimTemplate("logs")] });
    const claims = byName([claim(set, 0), claim(set, 0, { template: "logs" }), claim(set, 1), claim(set, 1, { template: "logs" })]);
    const replicas = [[0, pod(before, 0, "r")], [1, pod(set, 1, "r")]] as const;
    expect(volumeClaimStatus(set, replicas, claims)).toEqual([
      { volumeClaimName: "www", compatibleReplicas: 2, compatibleReadyReplicas: 2 },
      { volumeClaimName: "logs", compatibleReplicas: 1, compatibleReadyReplicas: 1 },
    ]);
  });
  it("is absent for a set without claim templates", () => {
    expect(volumeClaimStatus(makeSet({ volumeClaimTemplates: [] }), [], new Map())).toBeUndefined();
  });
  it("statusAfter counts an expansion done as compatible (not yet ready)", () => {
    const set = setWith("2Gi", "OnPodRollingUpdate");
    const observed = { replicas: 3, readyReplicas: 3, availableReplicas: 3, currentReplicas: 3, updatedReplicas: 3, updatedReadyReplicas: 3 };
    const basis = { observed, currentRevision: "r", updateRevision: "r", collisionCount: 0, volumeClaims: [{ volumeClaimName: "www", compatibleReplicas: 1, compatibleReadyReplicas: 1 }] };
    const done = [{ type: "expandClaim" as const, name: "www-web-2", uid: "u", storage: "2Gi", template: "www", pod: "web-2" }];
    expect(statusAfter(set, basis, done).volumeClaims).toEqual([{ volumeClaimName: "www", compatibleReplicas: 2, compatibleReadyReplicas: 1 }]);
    expect(basis.volumeClaims[0].compatibleReplicas).toBe(1);
  });
});

describe("statusAfter and the claims of a created pod", () => {
  it("counts a created pod's claims (created this pass or found) as compatible and ready: the pass after it has no status to write", () => {
    const set = setWith("1Gi", "OnPodRollingUpdate");
    const observed = { replicas: 1, readyReplicas: 1, availableReplicas: 1, currentReplicas: 1, updatedReplicas: 1, updatedReadyReplicas: 1 };
    const before = volumeClaimStatus(set, [[0, pod(set, 0, "r")]], byName([claim(set, 0)]));
    const basis = { observed, currentRevision: "r", updateRevision: "r", collisionCount: 0, volumeClaims: before, claims: byName([claim(set, 0), claim(set, 2)]) };
    const created = (o: number) => ({ type: "createPod" as const, pod: pod(set, o, "r"), reason: "create" as const });
    const done = [{ type: "createClaim" as const, claim: claim(set, 1), pod: "web-1" }, created(1), created(2)];
    expect(statusAfter(set, basis, done).volumeClaims).toEqual([{ volumeClaimName: "www", compatibleReplicas: 3, compatibleReadyReplicas: 3 }]);
    // What the next pass computes from the same objects.
    const replicas = [0, 1, 2].map((o) => [o, pod(set, o, "r")] as const);
    expect(volumeClaimStatus(set, replicas, byName([claim(set, 0), claim(set, 1), claim(set, 2)]))).toEqual(statusAfter(set, basis, done).volumeClaims);
  });

  it("does not count a created pod whose claim is neither found nor created", () => {
    const set = setWith("1Gi", "OnPodRollingUpdate");
    const observed = { replicas: 0, readyReplicas: 0, availableReplicas: 0, currentReplicas: 0, updatedReplicas: 0, updatedReadyReplicas: 0 };
    const basis = { observed, currentRevision: "r", updateRevision: "r", collisionCount: 0, volumeClaims: volumeClaimStatus(set, [], new Map()), claims: new Map() };
    const done = [{ type: "createPod" as const, pod: pod(set, 0, "r"), reason: "create" as const }];
    expect(statusAfter(set, basis, done).volumeClaims).toEqual([{ volumeClaimName: "www", compatibleReplicas: 0, compatibleReadyReplicas: 0 }]);
  });
});

describe("the VolumeExpansionBlocked condition", () => {
  const set = setWith("2Gi", "OnPodRollingUpdate");
  const status = { replicas: 3, readyReplicas: 3, updatedReplicas: 3, updateRevision: "r" };
  const why = `claim www-web-2: StorageClass "fixed" does not allow volume expansion (allowVolumeExpansion is not true)`;
  it("is True naming the claims, with one Warning event per change", () => {
    const r = rolloutConditions(set, status, { paused: false, blocked: [], claimRefusals: [why] }, NOW);
    expect(r.conditions.find((c) => c.type === "VolumeExpansionBlocked")).toMatchObject({ status: "True", reason: "ExpansionNotAllowed", message: why });
    expect(r.events).toEqual([{ type: "event", eventType: "Warning", reason: "VolumeExpansionBlocked", message: `StatefulSet ns/web cannot grow claims to their templates: ${why}` }]);
    const again = rolloutConditions({ ...set, status: { replicas: 3, conditions: r.conditions } }, status, { paused: false, blocked: [], claimRefusals: [why] }, NOW);
    expect(again.events).toEqual([]);
    const cleared = rolloutConditions({ ...set, status: { replicas: 3, conditions: r.conditions } }, status, { paused: false, blocked: [] }, NOW);
    expect(cleared.conditions.find((c) => c.type === "VolumeExpansionBlocked")).toMatchObject({ status: "False", reason: "ExpansionPossible" });
  });
  it("is absent for a set that never had one", () => {
    expect(rolloutConditions(set, status, { paused: false, blocked: [] }, NOW).conditions.map((c) => c.type)).toEqual(["Progressing"]);
  });
});

describe("Progressing while a claim to grow is not Bound", () => {
  // Every pod Ready at the update revision, web-0 and web-1's claims grown; web-2's is smaller than
  // its template and Pending: the expansion waits (it cannot be written), and the status says on what.
  const set = setWith("2Gi", "OnPodRollingUpdate");
  const rev = revisionOf(set).metadata?.name ?? "";
  const input = (third: ClaimShape) => ({
    set,
    pods: [0, 1, 2].map((i) => pod(set, i, rev)),
    claims: [claim(set, 0, { storage: "2Gi" }), claim(set, 1, { storage: "2Gi" }), claim(set, 2, third)],
    revisions: [revisionOf(set)],
    now: NOW,
    storageClasses: CLASSES,
  });
  const progressing = (p: ReturnType<typeof plan>) => p.status.conditions?.find((c) => c.type === "Progressing");
  it("says WaitingForClaim naming the claim, not RolloutComplete; writes nothing to the claim", () => {
    const p = plan(input({ phase: "Pending" }));
    expect(progressing(p)).toMatchObject({
      status: "True",
      reason: "WaitingForClaim",
      message: `3 of 3 pods at revision ${rev}, all ready; claims wait to be Bound before they can grow: claim www-web-2 is not Bound (Pending): it grows to 2Gi once it is`,
    });
    expect(p.actions.filter((a) => a.type === "expandClaim")).toEqual([]);
  });
  it("once it is Bound it grows, the rollout saying so (RollingUpdate, not RolloutComplete, while a claim lags), and once grown the rollout is complete", () => {
    const grows = plan(input({}));
    expect(grows.actions.filter((a) => a.type === "expandClaim").map((a) => ("name" in a ? a.name : ""))).toEqual(["www-web-2"]);
    const claimsWords = "claims of template www: 2 of 3 pods have theirs at the template's size and mounted";
    expect(progressing(grows)).toMatchObject({ status: "True", reason: "RollingUpdate", message: `3 of 3 pods at revision ${rev}, all ready; ${claimsWords}` });
    // Grown, its capacity not there yet (the resizer works): still the rollout's.
    expect(progressing(plan(input({ storage: "2Gi", capacity: "1Gi" })))).toMatchObject({ reason: "RollingUpdate", message: `3 of 3 pods at revision ${rev}, all ready; ${claimsWords}` });
    expect(progressing(plan(input({ storage: "2Gi" })))).toMatchObject({ reason: "RolloutComplete" });
  });
  it("a StorageClass that refuses: Progressing False VolumeExpansionBlocked naming it (as InPlaceOnly's block), not RolloutComplete", () => {
    expect(progressing(plan(input({ cls: "fixed" })))).toMatchObject({
      status: "False",
      reason: "VolumeExpansionBlocked",
      message: `3 of 3 pods at revision ${rev}, all ready; claims cannot grow: claim www-web-2: StorageClass "fixed" does not allow volume expansion (allowVolumeExpansion is not true)`,
    });
  });
});

describe("with reserveOrdinals (offsets are not ordinals)", () => {
  it("grows the claims of ordinals 3, 2, 0 in that order, never of the reserved 1", () => {
    const set = setWith("2Gi", "OnPodRollingUpdate", { reserveOrdinals: [1] });
    const ordinals = [0, 2, 3];
    const ctx = newPlanContext(set, getStatefulSetRevisions(set, [revisionOf(set)]), [0, 1, 2, 3].map((o) => claim(set, o)), NOW, CLASSES);
    const replicas = slotsOf(ordinals.map((o) => pod(set, o, ctx.revisions.updateName)));
    const got = podsToUpdate(ctx, replicas, ctx.revisions.updateName, NOW, ctx.claimUpdates);
    expect(names(got.pods)).toEqual(["web-3", "web-2", "web-0"]);
    const templates = new Map(ctx.revisions.revisions.map((r) => [r.metadata?.name ?? "", revisionTemplate(r)]));
    expect(brief(planRollingUpdate(ctx, replicas, countsOf(ctx, present(replicas)), templates).actions)).toEqual(["expandClaim www-web-3"]);
  });
});

describe("two serving pods whose resize waits for a restart (FileSystemResizePending), maxUnavailable 1", () => {
  const set = setWith("2Gi", "OnPodRollingUpdate", { template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "img:2" }] } } });
  const oldSet = setWith("2Gi", "OnPodRollingUpdate");
  const ctx = newPlanContext(set, getStatefulSetRevisions(set, [revisionOf(oldSet, 1), revisionOf(set, 2)]), [claim(set, 0, { storage: "2Gi" }), claim(set, 1, { storage: "2Gi", capacity: "1Gi" }), claim(set, 2, { storage: "2Gi", capacity: "1Gi" })], NOW, CLASSES);
  const oldRev = revisionOf(oldSet, 1).metadata?.name ?? "";
  it("the rollout takes the highest (its restart finishes its resize); the other resizing pod, which serves, does not block it", () => {
    const replicas = slotsOf([pod(set, 0, oldRev), pod(set, 1, oldRev), pod(set, 2, oldRev)]);
    const got = podsToUpdate(ctx, replicas, ctx.revisions.updateName, NOW, ctx.claimUpdates);
    expect({ limit: got.limit, first: names(got.pods.slice(0, got.limit)) }).toEqual({ limit: 1, first: ["web-2"] });
  });
});
