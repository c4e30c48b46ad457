/**
 * Automatic rollback (src/core/rollback.ts) and the deadline in the planner: which plan rolls back,
 * which only reports, and how the next plan heals the pods left at the failed revision.
 */
import { describe, expect, it } from "vitest";
import type { ControllerRevision, PersistentVolumeClaim, Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import type { Action } from "../../src/core/actions.ts";
import { plan } from "../../src/core/planner.ts";
import { failedRevisions, templatePatch } from "../../src/core/rollback.ts";
import { revisionTemplate } from "../../src/core/revisions.ts";
import { FAILED_REVISIONS_ANNOTATION, INPLACE_STATE_ANNOTATION } from "../../src/objects/constants.ts";
import { writeInPlaceState } from "../../src/core/inplace-state.ts";
import { newClaim, newPod, newSet, revisionOf } from "../support/fixtures.ts";
import { brief } from "./phases/helpers.ts";

const T0 = "2026-11-21T12:00:00Z";
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000);

interface Case {
  rollingUpdate?: Record<string, unknown>;
  spec?: Record<string, unknown>;
  annotations?: Record<string, string>;
  policy?: "OrderedReady" | "Parallel";
}

/**
 * A set of 3 whose template moved from img:1 (revision 1, fully rolled out) to img:2 (revision
 * 2): web-2 was recreated at revision 2 at T0 and was never Ready; the clock started at T0.
 */
function stuckRollout(c: Case = {}) {
  const spec = { progressDeadlineSeconds: 60, updateStrategy: { type: "RollingUpdate", rollingUpdate: { rollbackOnFailure: true, ...c.rollingUpdate } }, ...c.spec };
  const owner = { uid: "set-uid" };
  const r1 = revisionOf(newSet({ spec, policy: c.policy, metadata: owner }), 1);
  const r2 = revisionOf(newSet({ image: "img:2", spec, metadata: owner }), 2);
  const status = {
    replicas: 3,
    readyReplicas: 2,
    currentReplicas: 2,
    updatedReplicas: 1,
    updatedReadyReplicas: 0,
    currentRevision: r1.metadata!.name,
    updateRevision: r2.metadata!.name,
    observedGeneration: 2,
    conditions: [{ type: "Progressing", status: "True", lastTransitionTime: T0, reason: "RollingUpdate", message: "1 of 3", lastUpdateTime: T0 }],
  };
  const set = newSet({ image: "img:2", spec, policy: c.policy, metadata: { uid: "set-uid", generation: 2, resourceVersion: "42", annotations: c.annotations } }, status);
  const bad = newPod(set, 2, r2.metadata!.name!, "running", T0);
  bad.status!.startTime = T0 as unknown as Date;
  const pods: Pod[] = [newPod(set, 0, r1.metadata!.name!), newPod(set, 1, r1.metadata!.name!), bad];
  return { set, r1, r2, pods, revisions: [r1, r2] as ControllerRevision[] };
}

const events = (actions: Action[]) => actions.flatMap((a) => (a.type === "event" ? [`${a.reason}: ${a.message}`] : []));
const progressing = (set: StatefulSet, p: ReturnType<typeof plan>) => p.status.conditions?.find((c) => c.type === "Progressing");

describe("the deadline in the planner", () => {
  it("before the deadline: the rollout goes on and the plan asks to be looked at again when it falls due", () => {
    const s = stuckRollout();
    const p = plan({ set: s.set, pods: s.pods, claims: [], revisions: s.revisions, now: at(45) });
    expect(brief(p.actions).some((a) => a.startsWith("rollbackTemplate"))).toBe(false);
    expect(p.requeueAfterMs).toBe(15_000);
    expect(progressing(s.set, p)).toMatchObject({ status: "True", reason: "RollingUpdate", lastUpdateTime: T0 });
  });

  it("at the deadline with rollbackOnFailure: Progressing False, a Warning naming the pod, and the template of revision 1 written back (no pod write)", () => {
    const s = stuckRollout();
    const p = plan({ set: s.set, pods: s.pods, claims: [], revisions: s.revisions, now: at(60) });
    expect(brief(p.actions)).toEqual([`rollbackTemplate ${s.r2.metadata!.name} -> ${s.r1.metadata!.name}`, "updateStatus"]);
    expect(progressing(s.set, p)).toMatchObject({ status: "False", reason: "ProgressDeadlineExceeded", lastUpdateTime: T0 });
    expect(progressing(s.set, p)?.message).toBe("StatefulSet default/web has timed out progressing: no pod newly updated and Ready for 60s: pod web-2 was never Ready (Running)");
    expect(events(p.actions)).toEqual([
      `ProgressDeadlineExceeded: StatefulSet default/web has timed out progressing: no pod newly updated and Ready for 60s: pod web-2 was never Ready (Running); rolled back to revision ${s.r1.metadata!.name}`,
    ]);
    const rb = p.actions.find((a) => a.type === "rollbackTemplate");
    expect(rb).toEqual({
      type: "rollbackTemplate",
      from: s.r2.metadata!.name,
      to: s.r1.metadata!.name,
      patch: [
        { op: "test", path: "/metadata/resourceVersion", value: "42" },
        { op: "replace", path: "/spec/template", value: revisionTemplate(s.r1) },
        { op: "add", path: "/metadata/annotations", value: { [FAILED_REVISIONS_ANNOTATION]: s.r2.metadata!.name } },
      ],
    });
    expect(p.waiting).toBe(true);
  });

  // Parallel with maxUnavailable 2: the rolling update would take web-1 down next.
  const wide = { policy: "Parallel" as const, rollingUpdate: { maxUnavailable: 2 } };
  it.each<[string, Case, RegExp | undefined]>([
    ["with rollbackOnFailure, the rollback replaces the rollout's own writes", wide, undefined],
    ["without rollbackOnFailure: only the condition and the event; the rollout's own writes go on", { ...wide, rollingUpdate: { maxUnavailable: 2, rollbackOnFailure: undefined } }, /for 60s: pod web-2 was never Ready \(Running\)$/],
    ["the failing revision was rolled back from before and re-applied: never twice", { ...wide, annotations: { [FAILED_REVISIONS_ANNOTATION]: "web-x,REV2" } }, /not rolled back: revision REV2 was rolled back from before/],
    ["the last fully available revision failed itself once: never back to it", { ...wide, annotations: { [FAILED_REVISIONS_ANNOTATION]: "REV1" } }, /not rolled back: the last fully available revision REV1 failed before/],
  ])("%s", (_, c, message) => {
    const s = stuckRollout(c);
    const names = (v: string) => v.replace("REV1", s.r1.metadata!.name!).replace("REV2", s.r2.metadata!.name!);
    if (c.annotations) s.set.metadata.annotations = { [FAILED_REVISIONS_ANNOTATION]: names(c.annotations[FAILED_REVISIONS_ANNOTATION]) };
    const p = plan({ set: s.set, pods: s.pods, claims: [], revisions: s.revisions, now: at(60) });
    expect(brief(p.actions).some((a) => a.startsWith("rollbackTemplate"))).toBe(message === undefined);
    expect(progressing(s.set, p)).toMatchObject({ status: "False", reason: "ProgressDeadlineExceeded" });
    const ev = events(p.actions);
    expect(ev).toHaveLength(1);
    if (message) expect(ev[0]).toMatch(new RegExp(names(message.source)));
    expect(brief(p.actions).includes("deletePod web-1 (update)")).toBe(message !== undefined);
  });

  it("OnDelete: the condition is reported, nothing is rolled back", () => {
    const s = stuckRollout({ spec: { updateStrategy: { type: "OnDelete" } } });
    s.set.status!.conditions![0].reason = "WaitingForPodDeletion";
    const p = plan({ set: s.set, pods: s.pods, claims: [], revisions: s.revisions, now: at(61) });
    expect(brief(p.actions)).toEqual(["updateStatus"]);
    expect(progressing(s.set, p)).toMatchObject({ status: "False", reason: "ProgressDeadlineExceeded" });
  });

  it("paused: no clock, no rollback, no wake-up for the deadline", () => {
    const s = stuckRollout({ rollingUpdate: { paused: true } });
    const p = plan({ set: s.set, pods: s.pods, claims: [], revisions: s.revisions, now: at(600) });
    expect(brief(p.actions).some((a) => a.startsWith("rollbackTemplate"))).toBe(false);
    expect(progressing(s.set, p)).toMatchObject({ status: "Unknown", reason: "RolloutPaused" });
    expect(p.requeueAfterMs).toBeUndefined();
  });

  it("the event is written once: a later plan that still exceeds records none", () => {
    const s = stuckRollout({ rollingUpdate: { rollbackOnFailure: undefined } });
    const first = plan({ set: s.set, pods: s.pods, claims: [], revisions: s.revisions, now: at(60) });
    s.set.status = first.status;
    const again = plan({ set: s.set, pods: s.pods, claims: [], revisions: s.revisions, now: at(120) });
    expect(events(again.actions)).toEqual([]);
    expect(progressing(s.set, again)).toMatchObject({ status: "False", reason: "ProgressDeadlineExceeded", lastUpdateTime: T0 });
  });

  it.each<["OrderedReady" | "Parallel", string]>([
    ["OrderedReady", "deletePod web-2 (heal)"],
    ["Parallel", "deletePod web-2 (update)"],
  ])("after the rollback (%s), the next plan's update revision is revision 1 and the pod never Ready at revision 2 is replaced", (policy, deletion) => {
    const s = stuckRollout({ policy });
    const first = plan({ set: s.set, pods: s.pods, claims: [], revisions: s.revisions, now: at(60) });
    const rolledBack = newSet({ spec: { progressDeadlineSeconds: 60, updateStrategy: { type: "RollingUpdate", rollingUpdate: { rollbackOnFailure: true } } }, policy, metadata: { uid: "set-uid", generation: 3, annotations: { [FAILED_REVISIONS_ANNOTATION]: s.r2.metadata!.name! } } }, first.status);
    const next = plan({ set: rolledBack, pods: s.pods, claims: [], revisions: s.revisions, now: at(61) });
    expect(next.status.updateRevision).toBe(s.r1.metadata!.name);
    expect(brief(next.actions)).toContain(deletion);
    expect(progressing(rolledBack, next)).toMatchObject({ status: "True", reason: "RollingUpdate", lastUpdateTime: "2026-11-21T12:01:01Z" });
    expect(next.requeueAfterMs).toBe(60_000);
  });
});

describe("the deadline is judged after counting what the cluster shows (issue 34: never roll back a good release)", () => {
  /**
   * An in-place rollout from img:1 to img:2 whose last progress was at T0 (60 s deadline): web-2's
   * images were patched at T0+1 (state annotation, gate False); the kubelet restarted its container
   * with img:2 at T0+2 and it is ready. No pass ran since: only Ordinal's own step (the gate) is missing.
   */
  function finishedOnNode(ready = true) {
    const s = stuckRollout({ rollingUpdate: { podUpdatePolicy: "InPlaceIfPossible" } });
    const r2 = s.r2.metadata!.name!;
    const web2 = newPod(s.set, 2, r2, "running", T0);
    web2.spec!.containers[0].image = "img:2";
    web2.metadata!.annotations = { [INPLACE_STATE_ANNOTATION]: writeInPlaceState({ revision: r2, updateTime: "2026-11-21T12:00:01Z", oldImageIDs: { c: "id-1" }, images: { c: "img:2" } }) };
    web2.status!.conditions = [
      { type: "Ready", status: "False", reason: "ReadinessGatesNotReady", lastTransitionTime: "2026-11-21T12:00:01Z" as unknown as Date },
      { type: "InPlaceUpdateReady", status: "False", reason: "StartInPlaceUpdate", lastTransitionTime: "2026-11-21T12:00:00Z" as unknown as Date },
    ];
    web2.status!.containerStatuses = [{ name: "c", image: "img:2", imageID: "id-2", ready, restartCount: 1, started: true, state: { running: { startedAt: "2026-11-21T12:00:02Z" as unknown as Date } } }];
    return { ...s, pods: [s.pods[0], s.pods[1], web2] };
  }

  it("a pass long after the deadline finds the update done on the node: progress (fresh clock), the gate opened, nothing rolled back", () => {
    const s = finishedOnNode();
    const p = plan({ set: s.set, pods: s.pods, claims: [], revisions: s.revisions, now: at(90) });
    expect(brief(p.actions).some((a) => a.startsWith("rollbackTemplate"))).toBe(false);
    expect(events(p.actions)).toEqual([]);
    expect(p.actions.some((a) => a.type === "setPodCondition" && a.name === "web-2" && a.conditions.some((c) => c.type === "InPlaceUpdateReady" && c.status === "True"))).toBe(true);
    expect(progressing(s.set, p)).toMatchObject({ status: "True", reason: "RollingUpdate", lastUpdateTime: "2026-11-21T12:01:30Z" });
  });

  it("the same pod whose new container is not ready is the release's own failure: the deadline holds", () => {
    const s = finishedOnNode(false);
    const p = plan({ set: s.set, pods: s.pods, claims: [], revisions: s.revisions, now: at(90) });
    expect(brief(p.actions).some((a) => a.startsWith("rollbackTemplate"))).toBe(true);
    expect(progressing(s.set, p)?.message).toMatch(/pod web-2 has an in-place update that has not finished/);
  });

  it("a pod at the update revision Ready since the last progress counts, though the stored count already says as many (one went down meanwhile)", () => {
    const s = stuckRollout();
    s.set.status!.updatedReadyReplicas = 1;
    const r2 = s.r2.metadata!.name!;
    const pods = [newPod(s.set, 0, s.r1.metadata!.name!, "running", "2026-11-21T12:00:30Z"), newPod(s.set, 1, s.r1.metadata!.name!), newPod(s.set, 2, r2, "ready", "2026-11-21T12:00:40Z")];
    const p = plan({ set: s.set, pods, claims: [], revisions: s.revisions, now: at(90) });
    expect(brief(p.actions).some((a) => a.startsWith("rollbackTemplate"))).toBe(false);
    expect(progressing(s.set, p)).toMatchObject({ status: "True", lastUpdateTime: "2026-11-21T12:01:30Z" });
  });

  it("a pod to recreate that no pass created (the pass that deleted it died): Ordinal's own step, never judged; the pass that creates it starts the clock", () => {
    const s = stuckRollout();
    const p = plan({ set: s.set, pods: s.pods.slice(0, 2), claims: [], revisions: s.revisions, now: at(600) });
    expect(brief(p.actions)).toContain("createPod web-2");
    expect(brief(p.actions).some((a) => a.startsWith("rollbackTemplate"))).toBe(false);
    expect(progressing(s.set, p)).toMatchObject({ status: "True", reason: "RollingUpdate", lastUpdateTime: "2026-11-21T12:10:00Z" });
  });

  it("a claim grown since the last look (status.volumeClaims) is progress", () => {
    const s = stuckRollout({ spec: { volumeClaimTemplates: [{ metadata: { name: "www" }, spec: { resources: { requests: { storage: "1Gi" } } } }] } });
    s.set.status!.volumeClaims = [{ volumeClaimName: "www", compatibleReplicas: 3, compatibleReadyReplicas: 1 }];
    const bound = (i: number) => ({ ...newClaim(s.set, i), spec: { resources: { requests: { storage: "1Gi" } } }, status: { phase: "Bound", capacity: { storage: "1Gi" } } }) as PersistentVolumeClaim;
    const mount = (p: Pod, i: number) => ((p.spec!.volumes = [{ name: "www", persistentVolumeClaim: { claimName: `www-web-${i}` } }]), p);
    const pods = s.pods.map(mount);
    const grown = plan({ set: s.set, pods, claims: [0, 1, 2].map(bound), revisions: s.revisions, now: at(90) });
    expect(progressing(s.set, grown)).toMatchObject({ status: "True", lastUpdateTime: "2026-11-21T12:01:30Z" });
    s.set.status!.volumeClaims = [{ volumeClaimName: "www", compatibleReplicas: 3, compatibleReadyReplicas: 3 }];
    const same = plan({ set: s.set, pods, claims: [0, 1, 2].map(bound), revisions: s.revisions, now: at(90) });
    expect(progressing(s.set, same)).toMatchObject({ status: "False", reason: "ProgressDeadlineExceeded" });
  });
});

describe("failedRevisions", () => {
  it.each<[string | undefined, string[]]>([
    [undefined, []],
    ["", []],
    ["web-a", ["web-a"]],
    [" web-a, ,web-b ", ["web-a", "web-b"]],
  ])("%j", (v, want) => {
    expect(failedRevisions({ metadata: { annotations: v === undefined ? undefined : { [FAILED_REVISIONS_ANNOTATION]: v } } })).toEqual(want);
  });

  it("keeps the last 10 when a rollback adds one", () => {
    const ten = Array.from({ length: 10 }, (_, i) => `web-${i}`).join(",");
    const s = stuckRollout();
    s.set.metadata.annotations = { [FAILED_REVISIONS_ANNOTATION]: ten };
    const p = plan({ set: s.set, pods: s.pods, claims: [], revisions: s.revisions, now: at(60) });
    const rb = p.actions.find((a) => a.type === "rollbackTemplate");
    const op = rb?.type === "rollbackTemplate" ? rb.patch[2] : undefined;
    expect(op).toEqual({ op: "add", path: "/metadata/annotations/ordinal.dev~1failed-revisions", value: `${ten.split(",").slice(1).join(",")},${s.r2.metadata!.name}` });
  });
});

describe("templatePatch", () => {
  it("replaces the whole template guarded by resourceVersion, as `ordinal rollout undo` writes it", () => {
    expect(templatePatch({ metadata: { resourceVersion: "7" } }, { metadata: { labels: { app: "web" } } })).toEqual([
      { op: "test", path: "/metadata/resourceVersion", value: "7" },
      { op: "replace", path: "/spec/template", value: { metadata: { labels: { app: "web" } } } },
    ]);
  });
});
