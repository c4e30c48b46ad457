/** refreshInPlaceUpdates (src/core/inplace-refresh.ts): a pod whose gate an update set False goes on, falls back, is blocked or gets its gate back. */
import { describe, expect, it } from "vitest";
import type { Pod, PodTemplateSpec } from "../../../src/api/k8s.ts";
import { refreshInPlaceUpdates } from "../../../src/core/inplace-refresh.ts";
import { writeInPlaceState } from "../../../src/core/inplace-state.ts";
import { INPLACE_STATE_ANNOTATION, SPECIFIED_DELETE_LABEL, SWITCHOVER_REQUEST_ANNOTATION } from "../../../src/objects/constants.ts";
import { brief, makeSet, NOW, pod, slotsOf } from "./helpers.ts";
import { setView } from "../../../src/core/plan-context.ts";

const tpl = (image: string, env?: unknown[]): PodTemplateSpec => ({ metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image, ...(env ? { env } : {}) }] } }) as PodTemplateSpec;
const templates = new Map<string, PodTemplateSpec>([
  ["web-old", tpl("img:1")],
  ["web-img", tpl("img:2")],
  ["web-env", tpl("img:1", [{ name: "A", value: "1" }])],
]);
const setWith = (rollingUpdate: Record<string, unknown>) => makeSet({ updateStrategy: { type: "RollingUpdate", rollingUpdate } });
/** held is the set's pod `i` at web-old whose InPlaceUpdateReady gate an update just set False (no image changed yet). */
function held(i: number, state: "running" | "terminating" = "running"): Pod {
  const p = pod(makeSet(), i, "web-old", state);
  p.metadata!.uid = `uid-${i}`;
  p.status!.conditions = [{ type: "Ready", status: "False" }, { type: "InPlaceUpdateReady", status: "False", reason: "StartInPlaceUpdate", lastTransitionTime: NOW.toISOString() as unknown as Date }];
  return p;
}
const run = (rollingUpdate: Record<string, unknown>, to: string, replicas: (Pod | undefined)[], o: { condemned?: Pod[]; rolling?: boolean; updateMin?: number } = {}) => {
  const r = refreshInPlaceUpdates({ view: setView(setWith(rollingUpdate)), replicas: slotsOf(replicas), condemned: o.condemned ?? [], updateRevision: to, templates, targets: (i) => i >= (o.updateMin ?? 0), rolling: o.rolling ?? true, now: NOW });
  return { ...r, raw: r.actions, actions: brief(r.actions, true) };
};

describe("refreshInPlaceUpdates", () => {
  it("goes on with an image-only update (the pod's images are changed)", () => {
    const r = run({ podUpdatePolicy: "InPlaceIfPossible" }, "web-img", [undefined, held(1)]);
    expect(r.actions).toEqual(["updatePodInPlace web-1 img:2"]);
    expect(r.deleted).toEqual([]);
    expect(r.blocked).toEqual([]);
    expect(r.requeueAfterMs).toBeUndefined();
  });
  it("waits out the grace period first, asking to be looked at again", () => {
    const r = run({ podUpdatePolicy: "InPlaceIfPossible", inPlaceUpdateStrategy: { gracePeriodSeconds: 30 } }, "web-img", [held(0), held(1)]);
    expect(r.actions).toEqual([]);
    // The gate was set False just now: gracePeriodSeconds plus the second times are rounded to.
    expect(r.requeueAfterMs).toBe(31_000);
  });
  it("falls back to recreating when the template changed more than images, and says which index went", () => {
    const r = run({ podUpdatePolicy: "InPlaceIfPossible" }, "web-env", [undefined, undefined, held(2)]);
    expect(r.actions).toEqual(["event InPlaceUpdateFallback", "deletePod web-2 (update)"]);
    expect(r.deleted).toEqual([2]);
  });
  it("an unfinished in-place update to a revision the rollout abandoned is moved on: recreated, as healing", () => {
    const p = pod(makeSet(), 2, "web-img", "running");
    p.metadata!.annotations = { [INPLACE_STATE_ANNOTATION]: writeInPlaceState({ revision: "web-img", updateTime: "2026-11-21T11:00:00Z", oldImageIDs: { c: "id-1" }, images: { c: "img:2" } }) };
    const r = run({ podUpdatePolicy: "InPlaceIfPossible" }, "web-env", [undefined, undefined, p]);
    expect(r.actions).toEqual(["event InPlaceUpdateFallback", "event HealingRollout", "deletePod web-2 (heal)"]);
    expect(r.deleted).toEqual([2]);
  });
  it("InPlaceOnly that cannot: blocked, and the gate goes back True", () => {
    const r = run({ podUpdatePolicy: "InPlaceOnly" }, "web-env", [held(0)]);
    expect(r.blocked).toEqual(["pod web-0: patch cannot use in-place update: /spec/containers/0/env"]);
    expect(r.actions).toEqual(["gate web-0 True InPlaceUpdateCancelled"]);
    expect(r.deleted).toEqual([]);
  });
  it.each<[string, { condemned?: Pod[]; rolling?: boolean; updateMin?: number }, (Pod | undefined)[]]>([
    ["the rollout is paused (not rolling)", { rolling: false }, [held(0)]],
    ["below the partition", { updateMin: 1 }, [held(0)]],
    ["a condemned pod (being scaled away)", { condemned: [held(5)] }, []],
  ])("the gate goes back True when %s", (_, o, replicas) => {
    const r = run({ podUpdatePolicy: "InPlaceIfPossible" }, "web-img", replicas, o);
    expect(r.actions).toEqual([`gate web-${o.condemned ? 5 : 0} True InPlaceUpdateCancelled`]);
    expect(r.deleted).toEqual([]);
    const gate = r.raw[0].type === "setPodCondition" ? r.raw[0].conditions.find((c) => c.type === "InPlaceUpdateReady") : undefined;
    expect(gate?.message).toBe("the rollout no longer updates this pod now");
  });
  it("a terminating pod and a pod without a held gate are left alone", () => {
    const free = pod(makeSet(), 1, "web-old", "running");
    expect(run({ podUpdatePolicy: "InPlaceIfPossible" }, "web-img", [held(0, "terminating"), free])).toEqual({ raw: [], actions: [], deleted: [], blocked: [], held: [] });
  });
});

describe("refreshInPlaceUpdates: a chosen pod in PreparingDelete that holds a switchover role", () => {
  const set = makeSet({ roles: { labelKey: "spilo-role", updateOrder: ["replica", "master"], switchover: { roles: ["master"], timeoutSeconds: 60 } } });
  /** web-1 chosen for deletion, moved to PreparingDelete, still the leader; its request `ago` ms old. */
  const leader = (ago: number) => {
    const p = pod(set, 1, "web-old", "ready");
    p.metadata!.labels = { ...p.metadata!.labels, [SPECIFIED_DELETE_LABEL]: "true", "ordinal.dev/lifecycle-state": "PreparingDelete", "spilo-role": "master" };
    p.metadata!.annotations = { ...p.metadata!.annotations, [SWITCHOVER_REQUEST_ANNOTATION]: new Date(NOW.getTime() - ago).toISOString().replace(/\.\d+Z$/, "Z") };
    return refreshInPlaceUpdates({ view: setView(set), replicas: slotsOf([undefined, p]), condemned: [], updateRevision: "web-old", templates, targets: () => true, rolling: true, now: NOW });
  };
  it.each([
    [20_000, 40_000],
    [59_000, 1_000],
  ])("request %i ms old: not deleted, looked at again when the switchover times out (in %i ms)", (ago, due) => {
    const r = leader(ago);
    expect(brief(r.actions, true)).toEqual([]);
    expect(r.deleted).toEqual([]);
    expect(r.requeueAfterMs).toBe(due);
  });
});
