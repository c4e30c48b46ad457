/** planPodUpdate and inPlaceRefusal (src/core/pod-update.ts): each podUpdatePolicy, unknown revisions, and the words of their events. */
import { describe, expect, it } from "vitest";
import type { PodTemplateSpec } from "../../src/api/k8s.ts";
import { REVISION_LABEL } from "../../src/objects/constants.ts";
import { inPlaceRefusal, planPodUpdate } from "../../src/core/pod-update.ts";
import { NOW, newPod, newSet } from "../support/fixtures.ts";
import { setView } from "../../src/core/plan-context.ts";

const policySet = (podUpdatePolicy?: string, inPlaceUpdateStrategy?: Record<string, unknown>) =>
  newSet({ spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { ...(podUpdatePolicy ? { podUpdatePolicy } : {}), ...(inPlaceUpdateStrategy ? { inPlaceUpdateStrategy } : {}) } } } });
const template = (image: string, env?: unknown[]): PodTemplateSpec => ({ metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image, ...(env ? { env } : {}) }] } }) as PodTemplateSpec;
const templates = new Map<string, PodTemplateSpec>([
  ["web-old", template("img:1")],
  ["web-img", template("img:2")],
  ["web-env", template("img:1", [{ name: "A", value: "1" }])],
  ["web-restart", { ...template("img:1"), metadata: { labels: { app: "web" }, annotations: { "kubectl.kubernetes.io/restartedAt": "2026-11-27T02:00:00Z" } } }],
]);
const podAt = (revision: string) => newPod(newSet(), 2, revision);
const plan = (set: ReturnType<typeof policySet>, revision: string, to: string, why?: "update" | "heal") => {
  const r = planPodUpdate(setView(set), podAt(revision), to, templates, NOW, why);
  return { ...r, actions: r.actions.map((a) => (a.type === "event" ? `event ${a.reason}: ${a.message}` : a.type === "deletePod" ? `deletePod ${a.name} ${a.uid} ${a.reason} ${a.revision}` : a.type)) };
};

describe("inPlaceRefusal", () => {
  it.each<[string, string, string, string | undefined]>([
    ["images only: none", "web-old", "web-img", undefined],
    ["an env change: the pointer", "web-old", "web-env", "patch cannot use in-place update: /spec/containers/0/env"],
    ["the pod's revision is gone", "web-gone", "web-img", "revision web-gone of pod web-2 is not known: nothing to diff"],
    ["the update revision is unknown", "web-old", "web-new", "revision web-old of pod web-2 is not known: nothing to diff"],
  ])("%s", (_, from, to, want) => {
    expect(inPlaceRefusal(podAt(from), to, templates)).toBe(want);
  });
  it("a pod without a revision label says (none)", () => {
    const pod = podAt("web-old");
    delete pod.metadata!.labels![REVISION_LABEL];
    expect(inPlaceRefusal(pod, "web-img", templates)).toBe("revision (none) of pod web-2 is not known: nothing to diff");
  });
});

describe("planPodUpdate", () => {
  it("ReCreate deletes, whatever the templates allow", () => {
    expect(plan(policySet(), "web-old", "web-img")).toEqual({ actions: ["deletePod web-2 pod-2-web-old update web-old"], deleted: true });
  });
  it("InPlaceIfPossible that can: the gate goes False first, nothing deleted", () => {
    const r = plan(policySet("InPlaceIfPossible"), "web-old", "web-img");
    expect(r.deleted).toBe(false);
    expect(r.actions).toEqual(["setPodCondition"]);
  });
  it("InPlaceIfPossible with a grace period asks to be looked at again after it", () => {
    const r = planPodUpdate(setView(policySet("InPlaceIfPossible", { gracePeriodSeconds: 5 })), podAt("web-old"), "web-img", templates, NOW);
    expect(r.deleted).toBe(false);
    expect(r.requeueAfterMs).toBe(5000);
  });
  it.each<[string, string, string]>([
    ["an env change", "web-env", "patch cannot use in-place update: /spec/containers/0/env"],
    ["an unknown revision", "web-new", "revision web-old of pod web-2 is not known: nothing to diff"],
    ["a restart", "web-restart", "a restart (template annotation kubectl.kubernetes.io/restartedAt set to 2026-11-27T02:00:00Z) needs new containers: in place would keep them"],
  ])("InPlaceIfPossible that cannot (%s): recreates and says why", (_, to, why) => {
    expect(plan(policySet("InPlaceIfPossible"), "web-old", to)).toEqual({
      actions: [`event InPlaceUpdateFallback: StatefulSet default/web recreates Pod web-2: ${why}`, "deletePod web-2 pod-2-web-old update web-old"],
      deleted: true,
    });
  });
  it("InPlaceOnly that cannot: left alone, blocked, naming the pod", () => {
    expect(plan(policySet("InPlaceOnly"), "web-old", "web-env")).toEqual({ actions: [], deleted: false, blocked: "pod web-2: patch cannot use in-place update: /spec/containers/0/env" });
  });
  it("InPlaceIfPossible refused by the pod itself (a template container it does not run): recreated", () => {
    const pod = podAt("web-old");
    pod.spec!.containers[0].name = "other";
    const r = planPodUpdate(setView(policySet("InPlaceIfPossible")), pod, "web-img", templates, NOW);
    expect(r.deleted).toBe(true);
    expect(r.actions[0]).toMatchObject({ type: "event", reason: "InPlaceUpdateFallback", message: expect.stringContaining('container "c" of the template is not in pod web-2') });
  });
  it("healing says so before the deletion, which carries its reason", () => {
    expect(plan(policySet(), "web-old", "web-img", "heal").actions).toEqual([
      "event HealingRollout: StatefulSet default/web is replacing Pod web-2, never Ready at revision web-old, which the rollout leaves, to revision web-img",
      "deletePod web-2 pod-2-web-old heal web-old",
    ]);
  });
});
