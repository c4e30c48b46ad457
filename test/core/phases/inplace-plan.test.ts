/**
 * The planner with in-place updates, pause, maxUnavailable and healing: whole plans over observed
 * pods in every state of the per-pod state machine, and every fallback.
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../../src/api/k8s.ts";
import type { StatefulSet } from "../../../src/api/statefulset.ts";
import { INPLACE_STATE_ANNOTATION } from "../../../src/objects/constants.ts";
import { wasNeverReady } from "../../../src/core/healing.ts";
import { writeInPlaceState } from "../../../src/core/inplace-state.ts";
import { plan, type Plan } from "../../../src/core/planner.ts";
import { updateStrategyOf } from "../../../src/core/update-strategy.ts";
import { brief, claimFor, makeSet, pod, revisionOf, NOW } from "./helpers.ts";
import type { PodState } from "../fixtures.ts";

const tpl = (image: string, extra: Record<string, unknown> = {}) => ({ metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image, ...extra }] } });
const old = makeSet();
const oRev = revisionOf(old, 1);
const o = oRev.metadata?.name ?? "";

/** setWith returns the set after a template change, at generation 2, with `ru` as rollingUpdate. */
function setWith(ru: Record<string, unknown>, template = tpl("img:2"), spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}): StatefulSet {
  return makeSet({ template, updateStrategy: { type: "RollingUpdate", rollingUpdate: ru }, ...spec }, { generation: 2 }, { currentRevision: o, ...status });
}

/** running returns a pod at `rev` reporting container c with `image` (imageID `id-<image>`). */
function running(set: StatefulSet, i: number, rev: string, state: PodState = "ready", image = "img:1"): Pod {
  const p = pod(set, i, rev, state);
  p.spec!.containers[0].image = image;
  p.status!.containerStatuses = [
    { name: "c", image, imageID: `id-${image}`, ready: state === "ready", restartCount: 0, state: { running: { startedAt: "2026-11-21T10:00:00Z" as unknown as Date } } },
  ];
  p.status!.startTime = "2026-11-21T10:00:00Z" as unknown as Date;
  return p;
}

const setGate = (p: Pod, status: "True" | "False", at = "2026-11-21T11:59:59Z") => {
  const c = p.status!.conditions!.find((x) => x.type === "InPlaceUpdateReady")!;
  c.status = status;
  c.lastTransitionTime = at as unknown as Date;
  if (status === "False") p.status!.conditions!.find((x) => x.type === "Ready")!.status = "False";
  return p;
};

/** updated returns web-i after the in-place pod update to `rev` (image img:2), the kubelet `done` or not. */
function updated(set: StatefulSet, i: number, rev: string, done: boolean, gate: "True" | "False" = "False"): Pod {
  const p = setGate(running(set, i, rev, "running", done ? "img:2" : "img:1"), gate);
  p.spec!.containers[0].image = "img:2";
  p.metadata!.annotations = { [INPLACE_STATE_ANNOTATION]: writeInPlaceState({ revision: rev, updateTime: "2026-11-21T11:59:00Z", oldImageIDs: { c: "id-img:1" }, images: { c: "img:2" } }) };
  if (done) {
    p.status!.containerStatuses![0] = { ...p.status!.containerStatuses![0], ready: true, restartCount: 1, state: { running: { startedAt: "2026-11-21T11:59:30Z" as unknown as Date } } };
  }
  return p;
}

function run(set: StatefulSet, pods: Pod[], now = NOW): Plan & { got: string[] } {
  const n = revisionOf(set, 2);
  const p = plan({ set, pods, claims: pods.map((_, i) => claimFor(set, i)), revisions: [oRev, n], now });
  return { ...p, got: brief(p.actions, true).filter((x) => x !== "updateStatus") };
}

const nOf = (set: StatefulSet) => revisionOf(set, 2).metadata?.name ?? "";

describe("plan: in-place update states (InPlaceIfPossible, grace 2s)", () => {
  const set = setWith({ podUpdatePolicy: "InPlaceIfPossible", inPlaceUpdateStrategy: { gracePeriodSeconds: 2 } });
  const n = nOf(set);
  const ready3 = () => [0, 1, 2].map((i) => running(set, i, o));

  it.each<[string, () => Pod[], Date, string[], number | undefined]>([
    ["1. all ready at the old revision: gate web-2 False first", ready3, NOW, ["gate web-2 False StartInPlaceUpdate"], 2000],
    ["2. web-2 gated 1s ago: wait out the grace period (and one second for whole-second times)", () => [...ready3().slice(0, 2), setGate(running(set, 2, o), "False", "2026-11-21T11:59:59Z")], NOW, [], 2000],
    ["3. grace over: one in-place pod update of web-2", () => [...ready3().slice(0, 2), setGate(running(set, 2, o), "False", "2026-11-21T11:59:50Z")], NOW, ["event SuccessfulUpdatePodInPlace", "updatePodInPlace web-2 img:2"].slice(1), undefined],
    ["4. web-2 updated, kubelet not done: nothing, web-1 not started (OrderedReady)", () => [...ready3().slice(0, 2), updated(set, 2, n, false)], NOW, [], undefined],
    ["5. web-2 done: gate True", () => [...ready3().slice(0, 2), updated(set, 2, n, true)], NOW, ["gate web-2 True InPlaceUpdateDone"], undefined],
    ["6. web-2 gate True, annotation left: remove it", () => [...ready3().slice(0, 2), updated(set, 2, n, true, "True")], NOW, ["clearInPlaceState web-2"], undefined],
  ])("%s", (_, pods, now, want, requeue) => {
    const r = run(set, pods(), now);
    expect(r.got).toEqual(want);
    expect(r.requeueAfterMs).toBe(requeue);
  });

  it.each<[string, number, boolean]>([
    ["below the partition (raised since): the gate goes back True", 3, true],
    ["at the partition: the update goes on (grace period)", 2, false],
  ])("a pod gated False with no update yet, %s", (_, partition, cancelled) => {
    const part = setWith({ podUpdatePolicy: "InPlaceIfPossible", inPlaceUpdateStrategy: { gracePeriodSeconds: 2 }, partition });
    const r = run(part, [running(part, 0, o), running(part, 1, o), setGate(running(part, 2, o), "False", "2026-11-21T11:59:59Z")]);
    expect(r.got.some((a) => a.startsWith("gate web-2 True"))).toBe(cancelled);
    if (!cancelled) expect(r.got).toEqual([]);
  });

  it("3. the pod update carries the revision, the images and the state annotation, with the observed resourceVersion", () => {
    const r = run(set, [...ready3().slice(0, 2), setGate(running(set, 2, o), "False", "2026-11-21T11:59:50Z")]);
    const a = r.actions.find((x) => x.type === "updatePodInPlace");
    expect(a?.type).toBe("updatePodInPlace");
    if (a?.type !== "updatePodInPlace") return;
    expect(a.patch.metadata.labels["controller-revision-hash"]).toBe(n);
    expect(a.patch.metadata.resourceVersion).toBe("1");
    expect(JSON.parse(a.patch.metadata.annotations[INPLACE_STATE_ANNOTATION] ?? "{}")).toEqual({ revision: n, updateTime: "2026-11-21T12:00:00Z", oldImageIDs: { c: "id-img:1" }, images: { c: "img:2" } });
  });

  it("updatedReplicas counts an in-place pod only once its update is done", () => {
    expect(run(set, [...ready3().slice(0, 2), updated(set, 2, n, true)]).status).toMatchObject({ updatedReplicas: 0, currentReplicas: 2 });
    const done = updated(set, 2, n, true, "True");
    delete done.metadata!.annotations;
    expect(run(set, [...ready3().slice(0, 2), done]).status).toMatchObject({ updatedReplicas: 1, currentReplicas: 2 });
  });

  it("Progressing says the rollout runs", () => {
    const c = run(set, ready3()).status.conditions?.find((x) => x.type === "Progressing");
    expect(c).toMatchObject({ status: "True", reason: "RollingUpdate", message: `0 of 3 pods at revision ${n}`, lastTransitionTime: "2026-11-21T12:00:00Z" });
  });
});

describe("plan: fallbacks", () => {
  const env = tpl("img:2", { env: [{ name: "A", value: "1" }] });
  it("InPlaceIfPossible recreates when the template changes more than images, naming the pointer", () => {
    const set = setWith({ podUpdatePolicy: "InPlaceIfPossible" }, env);
    const r = run(set, [0, 1, 2].map((i) => running(set, i, o)));
    expect(r.got).toEqual(["event InPlaceUpdateFallback", "deletePod web-2 (update)"]);
    expect(r.actions.filter((a) => a.type === "event")).toEqual([
      { type: "event", eventType: "Normal", reason: "InPlaceUpdateFallback", message: "StatefulSet ns/web recreates Pod web-2: patch cannot use in-place update: /spec/containers/0/env" },
    ]);
  });

  it("InPlaceOnly leaves the pods, sets InPlaceUpdateBlocked with the pointer and records a warning once", () => {
    const set = setWith({ podUpdatePolicy: "InPlaceOnly" }, env);
    const r = run(set, [0, 1, 2].map((i) => running(set, i, o)));
    expect(r.got).toEqual(["event InPlaceUpdateBlocked"]);
    const blocked = r.status.conditions?.find((c) => c.type === "InPlaceUpdateBlocked");
    expect(blocked).toMatchObject({ status: "True", reason: "InPlaceOnly" });
    expect(blocked?.message).toContain("pod web-2: patch cannot use in-place update: /spec/containers/0/env");
    expect(r.status.conditions?.find((c) => c.type === "Progressing")).toMatchObject({ status: "False", reason: "InPlaceUpdateBlocked" });
    expect(r.waiting).toBe(false);
    // Next pass, same facts: the condition is unchanged, so no event and no status write.
    const again = setWith({ podUpdatePolicy: "InPlaceOnly" }, env, {}, { ...r.status });
    const r2 = run(again, [0, 1, 2].map((i) => running(again, i, o)));
    expect(r2.actions.map((a) => a.type)).toEqual([]);
  });

  it("ReCreate ignores in-place possibilities", () => {
    const set = setWith({ podUpdatePolicy: "ReCreate" });
    expect(run(set, [0, 1, 2].map((i) => running(set, i, o))).got).toEqual(["deletePod web-2 (update)"]);
  });

  it("a pod whose revision is gone cannot be diffed: recreated with the reason", () => {
    const set = setWith({ podUpdatePolicy: "InPlaceIfPossible" });
    const pods = [0, 1, 2].map((i) => running(set, i, o));
    pods[2].metadata!.labels!["controller-revision-hash"] = "web-gone";
    const r = run(set, pods);
    expect(r.got).toEqual(["event InPlaceUpdateFallback", "deletePod web-2 (update)"]);
    expect(r.actions.find((a) => a.type === "event")).toMatchObject({ message: "StatefulSet ns/web recreates Pod web-2: revision web-gone of pod web-2 is not known: nothing to diff" });
  });

  it("a gated pod whose update became impossible (template changed again) is recreated at once", () => {
    const set = setWith({ podUpdatePolicy: "InPlaceIfPossible" }, env);
    const pods = [0, 1, 2].map((i) => running(set, i, o));
    setGate(pods[2], "False");
    const r = run(set, pods);
    expect(r.got).toEqual(["event InPlaceUpdateFallback", "deletePod web-2 (update)"]);
    // The deleted pod no longer counts at the current revision (upstream's CurrentReplicas--).
    expect(r.status).toMatchObject({ replicas: 3, currentReplicas: 2, updatedReplicas: 0 });
  });

  it("the earliest requeue of all phases wins (Parallel): web-2's grace period ends before web-1's", () => {
    const set = setWith({ podUpdatePolicy: "InPlaceIfPossible", maxUnavailable: 2, inPlaceUpdateStrategy: { gracePeriodSeconds: 30 } }, tpl("img:2"), { podManagementPolicy: "Parallel" });
    const pods = [running(set, 0, o), running(set, 1, o), setGate(running(set, 2, o), "False", "2026-11-21T11:59:50Z")];
    const r = run(set, pods);
    expect(r.got).toEqual(["gate web-1 False StartInPlaceUpdate"]);
    expect(r.requeueAfterMs).toBe(21_000);
  });
});

describe("plan: OnDelete with rollingUpdate settings left over", () => {
  const od = (ru: Record<string, unknown>) => makeSet({ template: tpl("img:2"), updateStrategy: { type: "OnDelete", rollingUpdate: ru } }, { generation: 2 }, { currentRevision: o });
  it.each<[string, Record<string, unknown>]>([
    ["an in-place policy", { podUpdatePolicy: "InPlaceIfPossible" }],
    ["paused", { podUpdatePolicy: "InPlaceIfPossible", paused: true }],
  ])("%s: updates nothing and is not reported paused", (_, ru) => {
    const set = od(ru);
    const r = run(set, [0, 1, 2].map((i) => running(set, i, o)));
    expect(r.got).toEqual([]);
    expect(r.status.conditions?.map((c) => `${c.type}=${c.status}`)).not.toContain("Paused=True");
  });
  it("puts a gated pod back into traffic", () => {
    const set = od({ podUpdatePolicy: "InPlaceIfPossible" });
    const r = run(set, [running(set, 0, o), running(set, 1, o), setGate(running(set, 2, o), "False")]);
    expect(r.got).toEqual(["gate web-2 True InPlaceUpdateCancelled"]);
  });
});

describe("plan: maxUnavailable", () => {
  it.each<[string, number | string, number, number]>([
    ["default 1", 1, 3, 1],
    ["2 of 3", 2, 3, 2],
    ["50% of 3 rounds up to 2", "50%", 3, 2],
    ["0% still allows 1", "0%", 3, 1],
    ["100% of 4", "100%", 4, 4],
  ])("updateStrategyOf maxUnavailable %s", (_, mu, replicas, want) => {
    expect(updateStrategyOf(setWith({ maxUnavailable: mu }, tpl("img:2"), { replicas })).maxUnavailable).toBe(want);
  });

  it("2: gates the two highest ordinals at once (OrderedReady order kept)", () => {
    const set = setWith({ podUpdatePolicy: "InPlaceIfPossible", maxUnavailable: 2 });
    expect(run(set, [0, 1, 2].map((i) => running(set, i, o))).got).toEqual(["gate web-2 False StartInPlaceUpdate", "gate web-1 False StartInPlaceUpdate"]);
  });

  it("2 with ReCreate: deletes the two highest", () => {
    const set = setWith({ maxUnavailable: 2 });
    expect(run(set, [0, 1, 2].map((i) => running(set, i, o))).got).toEqual(["deletePod web-2 (update)", "deletePod web-1 (update)"]);
  });

  it("an unavailable pod is not counted twice: Parallel, web-3 not ready at the old revision, maxUnavailable 2 → web-3 and web-2", () => {
    const set = setWith({ maxUnavailable: 2 }, tpl("img:2"), { replicas: 4, podManagementPolicy: "Parallel" });
    const pods = [0, 1, 2, 3].map((i) => running(set, i, o, i === 3 ? "running" : "ready"));
    expect(run(set, pods).got).toEqual(["deletePod web-3 (update)", "deletePod web-2 (update)"]);
  });

  it("an unavailable pod at the update revision uses the budget: Parallel, web-0 not ready, maxUnavailable 2 → only web-2", () => {
    const set = setWith({ maxUnavailable: 2 }, tpl("img:2"), { podManagementPolicy: "Parallel" });
    const n = nOf(set);
    const pods = [running(set, 0, n, "running", "img:2"), running(set, 1, o), running(set, 2, o)];
    expect(run(set, pods).got).toEqual(["deletePod web-2 (update)"]);
  });

  it("minReadySeconds counts: a pod ready for less than minReadySeconds is unavailable (Parallel, maxUnavailable 1)", () => {
    const set = setWith({}, tpl("img:2"), { podManagementPolicy: "Parallel", minReadySeconds: 30 });
    const n = nOf(set);
    const fresh = running(set, 2, n, "ready", "img:2");
    fresh.status!.conditions!.find((c) => c.type === "Ready")!.lastTransitionTime = "2026-11-21T11:59:50Z" as unknown as Date;
    expect(run(set, [running(set, 0, o), running(set, 1, o), fresh]).got).toEqual([]);
    expect(run(set, [running(set, 0, o), running(set, 1, o), fresh], new Date("2026-11-21T12:00:21Z")).got).toEqual(["deletePod web-1 (update)"]);
  });
});

describe("plan: pause", () => {
  const paused = setWith({ paused: true, podUpdatePolicy: "InPlaceIfPossible" }, tpl("img:2"), { replicas: 4 });
  it("no pod is updated, scaling goes on, the Paused condition and an event say so", () => {
    const r = run(paused, [0, 1, 2].map((i) => running(paused, i, o)));
    expect(r.got).toEqual(["event RolloutPaused", "createClaim www-web-3", "createPod web-3"]);
    expect(r.status.conditions?.find((c) => c.type === "Paused")).toMatchObject({ status: "True", reason: "Paused" });
    expect(r.status.conditions?.find((c) => c.type === "Progressing")).toMatchObject({ status: "Unknown", reason: "RolloutPaused" });
  });

  it("a failed pod is still replaced", () => {
    const pods = [0, 1, 2, 3].map((i) => running(paused, i, o, i === 1 ? "failed" : "ready"));
    expect(run(paused, pods).got).toEqual(["event RolloutPaused", "deletePod web-1 (failed)"]);
  });

  it("a pod gated but not yet updated goes back into traffic; one already updated finishes", () => {
    const n = nOf(paused);
    const pods = [running(paused, 0, o), running(paused, 1, o), updated(paused, 2, n, true), setGate(running(paused, 3, o), "False")];
    expect(run(paused, pods).got).toEqual(["event RolloutPaused", "gate web-2 True InPlaceUpdateDone", "gate web-3 True InPlaceUpdateCancelled"]);
  });

  it("resuming continues where it stopped, with Paused False and an event", () => {
    const resumed = setWith({ podUpdatePolicy: "InPlaceIfPossible" }, tpl("img:2"), { replicas: 4 }, { conditions: [{ type: "Paused", status: "True", reason: "Paused", message: "x", lastTransitionTime: "2026-11-21T11:00:00Z" }] });
    const n = nOf(resumed);
    const r = run(resumed, [running(resumed, 0, o), running(resumed, 1, o), running(resumed, 2, o), running(resumed, 3, n, "ready", "img:2")]);
    expect(r.got).toEqual(["event RolloutResumed", "gate web-2 False StartInPlaceUpdate"]);
    expect(r.status.conditions?.find((c) => c.type === "Paused")).toMatchObject({ status: "False", reason: "Resumed" });
  });
});

describe("plan: healing a stuck rollout (Forced rollback)", () => {
  // Revisions: 1 = img:1 (current), 2 = img:bad (abandoned), 3 = img:1 again after the revert.
  const reverted = makeSet({}, { generation: 3 }, { currentRevision: o });
  const bad = makeSet({ template: tpl("img:bad") });
  const b = revisionOf(bad, 2).metadata?.name ?? "";
  const stuck = (readyOnce: boolean) => {
    const p = running(bad, 2, b, "running", "img:bad");
    if (readyOnce) p.status!.conditions!.find((c) => c.type === "Ready")!.lastTransitionTime = "2026-11-21T11:30:00Z" as unknown as Date;
    else p.status!.conditions!.find((c) => c.type === "Ready")!.lastTransitionTime = "2026-11-21T10:00:00Z" as unknown as Date;
    return p;
  };
  const actionsOf = (set: StatefulSet, web2: Pod) =>
    plan({ set, pods: [running(set, 0, o), running(set, 1, o), web2], claims: [0, 1, 2].map((i) => claimFor(set, i)), revisions: [{ ...revisionOf(reverted, 3), metadata: { ...oRev.metadata } }, revisionOf(bad, 2)], now: NOW }).actions;
  const planWith = (set: StatefulSet, web2: Pod) => brief(actionsOf(set, web2), true).filter((x) => x !== "updateStatus");

  it("a pod never Ready at the abandoned revision is replaced at once", () => {
    expect(planWith(reverted, stuck(false))).toEqual(["event HealingRollout", "deletePod web-2 (heal)"]);
    expect(actionsOf(reverted, stuck(false)).filter((a) => a.type === "event")).toEqual([
      { type: "event", eventType: "Normal", reason: "HealingRollout", message: `StatefulSet ns/web is replacing Pod web-2, never Ready at revision ${b}, which the rollout leaves, to revision ${o}` },
    ]);
  });
  it("a pod that was Ready at that revision is waited for, as upstream does", () => {
    expect(planWith(reverted, stuck(true))).toEqual([]);
  });
  it("not while paused", () => {
    const pausedSet = makeSet({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { paused: true } } }, { generation: 3 }, { currentRevision: o });
    expect(planWith(pausedSet, stuck(false))).toEqual(["event RolloutPaused"]);
  });
  it.each([
    ["not below the partition", 3, []],
    ["at the partition: the rollout owns it", 2, ["event HealingRollout", "deletePod web-2 (heal)"]],
  ])("%s", (_, partition, want) => {
    const part = makeSet({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition } } }, { generation: 3 }, { currentRevision: o });
    expect(planWith(part, stuck(false))).toEqual(want);
  });
  it("in place when the policy allows it (only the image differs)", () => {
    const ip = makeSet({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible" } } }, { generation: 3 }, { currentRevision: o });
    expect(planWith(ip, stuck(false))).toEqual(["gate web-2 False StartInPlaceUpdate"]);
  });

  it.each<[string, Record<string, unknown>, boolean]>([
    ["no Ready condition", { conditions: [] }, true],
    ["Ready False since the start", { startTime: "2026-11-21T10:00:00Z", conditions: [{ type: "Ready", status: "False", lastTransitionTime: "2026-11-21T10:00:01Z" }] }, true],
    ["Ready False since later (was Ready)", { startTime: "2026-11-21T10:00:00Z", conditions: [{ type: "Ready", status: "False", lastTransitionTime: "2026-11-21T10:05:00Z" }] }, false],
    ["Ready True", { startTime: "2026-11-21T10:00:00Z", conditions: [{ type: "Ready", status: "True", lastTransitionTime: "2026-11-21T10:00:00Z" }] }, false],
  ])("wasNeverReady: %s", (_, status, want) => {
    expect(wasNeverReady({ metadata: {}, status } as Pod)).toBe(want);
  });
});
