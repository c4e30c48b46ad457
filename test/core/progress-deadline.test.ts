/** The progress deadline (src/core/progress-deadline.ts): the clock, the verdict and the pod named, driven by `now`. */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import type { StatefulSet } from "../../src/api/statefulset.ts";
import { checkProgress } from "../../src/core/progress-deadline.ts";
import { rolloutBlocker, whyUnavailable } from "../../src/core/blocker.ts";
import type { ReplicaCounts } from "../../src/core/status.ts";
import { INPLACE_STATE_ANNOTATION } from "../../src/objects/constants.ts";
import { newPod, newSet } from "../support/fixtures.ts";
import { setView } from "../../src/core/plan-context.ts";

const T0 = "2026-11-21T12:00:00Z";
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000);

/** A set rolling from web-a to web-b with a 60 s deadline, its stored Progressing condition as given. */
function rolling(progressing: Record<string, unknown> | undefined, o: { spec?: Record<string, unknown>; updateRevision?: string; updatedReady?: number } = {}): StatefulSet {
  const conditions = progressing ? [{ type: "Progressing", status: "True", reason: "RollingUpdate", lastTransitionTime: T0, lastUpdateTime: T0, ...progressing }] : undefined;
  return newSet(
    { spec: { progressDeadlineSeconds: 60, ...o.spec } },
    { replicas: 3, readyReplicas: 2, updatedReplicas: 1, updatedReadyReplicas: o.updatedReady ?? 0, currentRevision: "web-a", updateRevision: o.updateRevision ?? "web-b", conditions },
  );
}

const counts = (c: Partial<ReplicaCounts> = {}): ReplicaCounts => ({ replicas: 3, readyReplicas: 2, availableReplicas: 2, currentReplicas: 2, updatedReplicas: 1, updatedReadyReplicas: 0, ...c });

/** web-0 and web-1 Ready at web-a; web-2 at web-b, started at T0 and never Ready. */
function pods(set: StatefulSet, stuck: (p: Pod) => void = () => {}): Pod[] {
  const bad = newPod(set, 2, "web-b", "running", T0);
  bad.status!.startTime = T0 as unknown as Date;
  stuck(bad);
  return [newPod(set, 0, "web-a"), newPod(set, 1, "web-a"), bad];
}

describe("checkProgress", () => {
  const running = {};
  it.each<[string, StatefulSet, ReplicaCounts, number, ReturnType<typeof checkProgress>]>([
    ["no progressDeadlineSeconds: no clock", rolling(running, { spec: { progressDeadlineSeconds: undefined } }), counts(), 90, undefined],
    ["paused: no clock", rolling(running, { spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { paused: true } } } }), counts(), 90, undefined],
    ["complete: no clock", rolling(running), counts({ updatedReplicas: 3, readyReplicas: 3, updatedReadyReplicas: 3 }), 90, undefined],
    ["a rollout starts (the stored update revision is another): the clock starts now", rolling(running, { updateRevision: "web-z" }), counts(), 30, { lastUpdateTime: "2026-11-21T12:00:30Z", requeueAfterMs: 60_000 }],
    ["no stored condition: the clock starts now", rolling(undefined), counts(), 5, { lastUpdateTime: "2026-11-21T12:00:05Z", requeueAfterMs: 60_000 }],
    ["a stored condition without lastUpdateTime (before the deadline was set): starts now", rolling({ lastUpdateTime: undefined }), counts(), 5, { lastUpdateTime: "2026-11-21T12:00:05Z", requeueAfterMs: 60_000 }],
    ["resumed (the stored condition says paused): starts now", rolling({ status: "Unknown", reason: "RolloutPaused" }), counts(), 100, { lastUpdateTime: "2026-11-21T12:01:40Z", requeueAfterMs: 60_000 }],
    ["after a completed rollout (a pod failed since): starts now", rolling({ reason: "RolloutComplete" }), counts(), 100, { lastUpdateTime: "2026-11-21T12:01:40Z", requeueAfterMs: 60_000 }],
    ["under way, 30 s without progress: due in 30 s", rolling(running), counts(), 30, { lastUpdateTime: T0, requeueAfterMs: 30_000 }],
    ["under way, 59.5 s: due in half a second", rolling(running), counts(), 59.5, { lastUpdateTime: T0, requeueAfterMs: 500 }],
    [
      "under way, 60 s without progress: exceeded, naming the pod and why",
      rolling(running),
      counts(),
      60,
      { lastUpdateTime: T0, exceeded: "no pod newly updated and Ready for 60s: pod web-2 was never Ready (Running)" },
    ],
    ["a pod newly updated and Ready: progress, the clock restarts", rolling(running), counts({ updatedReadyReplicas: 1 }), 90, { lastUpdateTime: "2026-11-21T12:01:30Z", requeueAfterMs: 60_000 }],
    [
      "already exceeded, still no progress: stays exceeded",
      rolling({ status: "False", reason: "ProgressDeadlineExceeded" }),
      counts(),
      600,
      { lastUpdateTime: T0, exceeded: "no pod newly updated and Ready for 60s: pod web-2 was never Ready (Running)" },
    ],
    ["exceeded, then progress: running again", rolling({ status: "False", reason: "ProgressDeadlineExceeded" }, { updatedReady: 0 }), counts({ updatedReadyReplicas: 1 }), 600, { lastUpdateTime: "2026-11-21T12:10:00Z", requeueAfterMs: 60_000 }],
    [
      "a scale with the template unchanged (Progressing Scaling) keeps its clock too",
      rolling({ reason: "Scaling" }),
      counts(),
      61,
      { lastUpdateTime: T0, exceeded: "no pod newly updated and Ready for 60s: pod web-2 was never Ready (Running)" },
    ],
    [
      "OnDelete waits for deletions: the deadline holds too",
      rolling({ reason: "WaitingForPodDeletion" }, { spec: { updateStrategy: { type: "OnDelete" } } }),
      counts(),
      61,
      { lastUpdateTime: T0, exceeded: "no pod newly updated and Ready for 60s: pod web-2 was never Ready (Running)" },
    ],
  ])("%s", (_, set, c, seconds, want) => {
    expect(checkProgress(setView(set), c, "web-b", pods(set), at(seconds))).toEqual(want);
  });

  describe("a scale-down: only pods going away left is no rollout to time out", () => {
    /** A set scaled from 3 to 1 at one revision (web-b), web-0 Ready; web-1 and web-2 as given. */
    const scaledDown = (stored: number) => newSet({ spec: { replicas: 1, progressDeadlineSeconds: 60 } }, { replicas: stored, readyReplicas: stored, updatedReplicas: stored, updatedReadyReplicas: stored, currentRevision: "web-b", updateRevision: "web-b", conditions: [{ type: "Progressing", status: "True", reason: "Scaling", lastTransitionTime: T0, lastUpdateTime: T0 }] });
    const terminating = (p: Pod) => {
      p.metadata!.deletionTimestamp = T0 as unknown as Date;
      return p;
    };
    const down = (set: StatefulSet, web1: "live" | "terminating" | "gone") => {
      const out = [newPod(set, 0, "web-b"), terminating(newPod(set, 2, "web-b"))];
      if (web1 !== "gone") out.push(web1 === "live" ? newPod(set, 1, "web-b") : terminating(newPod(set, 1, "web-b")));
      return out;
    };
    const observed = (n: number) => counts({ replicas: n, readyReplicas: n, updatedReplicas: n, updatedReadyReplicas: n, currentReplicas: n });
    it("every kept replica done, the rest terminating (a long grace period): no clock", () => {
      const set = scaledDown(3);
      expect(checkProgress(setView(set), observed(3), "web-b", down(set, "terminating"), at(600))).toBeUndefined();
    });
    it("a condemned pod not deleted yet (OrderedReady waits for the one above): no clock either", () => {
      const set = scaledDown(3);
      expect(checkProgress(setView(set), observed(3), "web-b", down(set, "live"), at(600))).toBeUndefined();
    });
    it("a scale-up: a pod created counts as progress (fresh clock); one that never gets Ready then times out", () => {
      const set = newSet({ spec: { replicas: 3, progressDeadlineSeconds: 60 } }, { replicas: 1, readyReplicas: 1, updatedReplicas: 1, updatedReadyReplicas: 1, currentRevision: "web-b", updateRevision: "web-b", conditions: [{ type: "Progressing", status: "True", reason: "Scaling", lastTransitionTime: T0, lastUpdateTime: T0 }] });
      const two = [newPod(set, 0, "web-b"), newPod(set, 1, "web-b", "running", T0)];
      const created = counts({ replicas: 2, readyReplicas: 1, updatedReplicas: 2, updatedReadyReplicas: 1, currentReplicas: 2 });
      expect(checkProgress(setView(set), created, "web-b", two, at(90))).toEqual({ lastUpdateTime: "2026-11-21T12:01:30Z", requeueAfterMs: 60_000 });
      const stored = newSet({ spec: { replicas: 3, progressDeadlineSeconds: 60 } }, { ...set.status, replicas: 2 });
      expect(checkProgress(setView(stored), created, "web-b", two, at(90))?.exceeded).toMatch(/^no pod newly updated and Ready for 60s: pod web-1/);
    });
  });

  describe("a lifecycle hook holding a pod (issue 22) stops the clock; released, a fresh one starts", () => {
    const hooked = { lifecycle: { preDelete: { labelsHandler: { "example.io/drain": "true" } }, inPlaceUpdate: { labelsHandler: { "example.io/drain": "true" } } } };
    /** web-1 in `state` carrying the hook's label while `hooked` (another controller removes it when done). */
    const withWeb1 = (set: StatefulSet, state: string, stillHooked: boolean) =>
      pods(set).map((p) => {
        if (p.metadata?.name !== "web-1") return p;
        p.metadata.labels = { ...p.metadata.labels, "ordinal.dev/lifecycle-state": state, "example.io/drain": stillHooked ? "true" : "false" };
        return p;
      });
    it.each([
      ["PreparingDelete", "PreparingDelete"],
      ["PreparingUpdate", "PreparingUpdate"],
    ])("held in %s past the deadline: no clock (no deadline, no rollback)", (_, state) => {
      const set = rolling({}, { spec: hooked });
      expect(checkProgress(setView(set), counts(), "web-b", withWeb1(set, state, true), at(600))).toBeUndefined();
    });
    it("held after the deadline was exceeded at this revision: it stays exceeded (a hold does not clear it)", () => {
      const set = rolling({ status: "False", reason: "ProgressDeadlineExceeded" }, { spec: hooked });
      expect(checkProgress(setView(set), counts(), "web-b", withWeb1(set, "PreparingDelete", true), at(600))).toMatchObject({ lastUpdateTime: T0, exceeded: expect.stringMatching(/^no pod newly updated and Ready for 60s/) });
    });
    it("released (the hook's label removed), or a pod in the state but not hooked by this set's hooks: the clock runs", () => {
      const set = rolling({}, { spec: hooked });
      expect(checkProgress(setView(set), counts(), "web-b", withWeb1(set, "PreparingDelete", false), at(600))?.exceeded).toMatch(/^no pod newly updated and Ready for 60s/);
      const noHook = rolling({});
      expect(checkProgress(setView(noHook), counts(), "web-b", withWeb1(noHook, "PreparingDelete", true), at(600))?.exceeded).toMatch(/^no pod newly updated and Ready for 60s/);
    });
    it("the pass after a hold (stored Progressing without lastUpdateTime) starts a fresh clock", () => {
      const set = rolling({ lastUpdateTime: undefined }, { spec: hooked });
      expect(checkProgress(setView(set), counts(), "web-b", withWeb1(set, "PreparingDelete", false), at(600))).toEqual({ lastUpdateTime: "2026-11-21T12:10:00Z", requeueAfterMs: 60_000 });
    });
  });

  it("a set being deleted has no clock", () => {
    const set = rolling({}, {});
    set.metadata.deletionTimestamp = T0;
    expect(checkProgress(setView(set), counts(), "web-b", pods(set), at(600))).toBeUndefined();
  });
});

describe("rolloutBlocker and whyUnavailable", () => {
  const set = rolling({});
  const failing = (reason: string, message?: string) => (p: Pod) => {
    p.status!.containerStatuses = [{ name: "app", ready: false, restartCount: 3, image: "img:2", imageID: "", state: { waiting: { reason, message } } }];
  };
  it.each<[string, (p: Pod) => void, string]>([
    ["a bad image", failing("ErrImagePull", "pull access denied"), "pod web-2 container app: image img:2 cannot be pulled (ErrImagePull: pull access denied)"],
    ["a crash loop", failing("CrashLoopBackOff"), "pod web-2 container app is crashing (CrashLoopBackOff)"],
    ["never Ready", () => {}, "pod web-2 was never Ready (Running)"],
    ["never Ready, with the kubelet's message", (p) => (p.status!.conditions![0].message = "containers with unready status: [app]"), "pod web-2 was never Ready (Running): containers with unready status: [app]"],
    ["Ready before, not now", (p) => (p.status!.conditions![0].lastTransitionTime = "2026-11-21T12:05:00Z" as unknown as Date), "pod web-2 is not Ready (Running)"],
    ["not scheduled", (p) => {
      p.status!.phase = "Pending";
      p.status!.conditions!.push({ type: "PodScheduled", status: "False", message: "0/3 nodes are available" });
    }, "pod web-2 is not scheduled: 0/3 nodes are available"],
    ["terminating", (p) => (p.metadata!.deletionTimestamp = T0 as unknown as Date), "pod web-2 is terminating"],
    ["an in-place update holds it", (p) => (p.metadata!.annotations = { [INPLACE_STATE_ANNOTATION]: "{}" }), "pod web-2 has an in-place update that has not finished (the kubelet has not restarted its containers with the new images)"],
  ])("%s", (_, stuck, want) => {
    expect(rolloutBlocker(setView(set), pods(set, stuck), "web-b", at(60)).words).toBe(want);
  });

  it("prefers a pod at the update revision, then the lowest ordinal", () => {
    const old = newPod(set, 0, "web-a", "running");
    const updated = [newPod(set, 2, "web-b", "running"), newPod(set, 1, "web-b", "running")];
    expect(rolloutBlocker(setView(set), [old, ...updated], "web-b", at(60)).words).toMatch(/^pod web-1 /);
    expect(rolloutBlocker(setView(set), [newPod(set, 1, "web-a", "running"), old], "web-b", at(60)).words).toMatch(/^pod web-0 /);
    expect(rolloutBlocker(setView(set), [newPod(set, 0, "web-a")], "web-b", at(60)).words).toBe("pod web-1 is not created yet: Ordinal creates it next");
    expect(rolloutBlocker(setView(set), [0, 1, 2].map((i) => newPod(set, i, "web-a")), "web-b", at(60))).toEqual({ kind: "ordinal", pod: "", words: "no pod is unavailable: the next step is Ordinal's" });
  });

  it("Ready for less than minReadySeconds", () => {
    const slow = newSet({ spec: { minReadySeconds: 30, progressDeadlineSeconds: 60 } });
    expect(whyUnavailable(newPod(slow, 0, "web-b", "ready", "2026-11-21T12:00:50Z"), 30)).toBe("has been Ready for less than minReadySeconds (30s)");
    expect(rolloutBlocker(setView(slow), [newPod(slow, 0, "web-b", "ready", "2026-11-21T12:00:50Z")], "web-b", at(60)).words).toBe("pod web-0 has been Ready for less than minReadySeconds (30s)");
  });
});

describe("rolloutBlocker: one rule names what holds the rollout, and whether the next step is Ordinal's (issue 34)", () => {
  const set = rolling({});
  const ready3 = (s: StatefulSet, rev = "web-b") => [0, 1, 2].map((i) => newPod(s, i, rev));
  const refused = (s: StatefulSet, pod: string) => {
    s.status!.conditions = [{ type: "ReplicaFailure", status: "True", reason: "FailedCreate", lastTransitionTime: T0, lastUpdateTime: "2026-11-21T12:00:30Z", message: `create of pod ${pod} refused: exceeded quota: pods` }];
    return s;
  };
  it("a refused create of a missing replica, with the apiserver's message and when it was last refused", () => {
    const s = refused(rolling({}), "web-2");
    expect(rolloutBlocker(setView(s), ready3(s).slice(0, 2), "web-b", at(60))).toEqual({ kind: "refused", pod: "web-2", words: "create of pod web-2 refused: exceeded quota: pods", release: true, lasting: true, lastRefusedMs: Date.parse("2026-11-21T12:00:30Z") });
  });
  it("a refusal of a pod that exists since, or is no replica any more, blocks nothing", () => {
    const s = refused(rolling({}), "web-2");
    expect(rolloutBlocker(setView(s), ready3(s), "web-b", at(60)).kind).toBe("ordinal");
    const gone = refused(rolling({}), "web-7");
    expect(rolloutBlocker(setView(gone), ready3(gone), "web-b", at(60)).kind).toBe("ordinal");
  });
  it("Running but not Ready: names the readiness gate that is not True", () => {
    const gated = pods(set, (p) => {
      p.spec!.readinessGates = [{ conditionType: "example.io/lb" }];
      p.status!.conditions!.push({ type: "example.io/lb", status: "False", reason: "Pending", message: "target not registered" });
    });
    expect(rolloutBlocker(setView(set), gated, "web-b", at(60))).toMatchObject({ kind: "pod", words: "pod web-2 was never Ready (Running): readiness gate example.io/lb is False (Pending: target not registered)" });
  });
  it("Running but not Ready: names the container whose readiness probe does not pass", () => {
    const unready = pods(set, (p) => (p.status!.containerStatuses = [{ name: "app", image: "img:2", imageID: "id", ready: false, restartCount: 0, state: { running: { startedAt: T0 as unknown as Date } } }]));
    expect(rolloutBlocker(setView(set), unready, "web-b", at(60)).words).toBe("pod web-2 was never Ready (Running): container app is running but not ready (its readiness probe does not pass)");
  });
  it("a lifecycle hook holding a pod: what it waits for another controller to remove", () => {
    const hooked = rolling({}, { spec: { lifecycle: { preDelete: { labelsHandler: { "example.io/drain": "true" } } } } });
    const ps = ready3(hooked);
    ps[1].metadata!.labels = { ...ps[1].metadata!.labels, "ordinal.dev/lifecycle-state": "PreparingDelete", "example.io/drain": "true" };
    expect(rolloutBlocker(setView(hooked), ps, "web-b", at(60))).toMatchObject({ kind: "hook", pod: "web-1", words: "pod web-1 is held in PreparingDelete by a lifecycle hook until another controller removes label example.io/drain=true" });
  });
  it("claims waiting or refused, and InPlaceOnly, when every pod is available", () => {
    expect(rolloutBlocker(setView(set), ready3(set), "web-b", at(60), { claimWaits: ["claim www-web-2 is not Bound (Pending): it grows to 2Gi once it is"] })).toMatchObject({ kind: "claim", words: "claim www-web-2 is not Bound (Pending): it grows to 2Gi once it is" });
    expect(rolloutBlocker(setView(set), ready3(set), "web-b", at(60), { blocked: ["pod web-2: /spec/containers/0/env"] })).toMatchObject({ kind: "blocked" });
  });
  it("OnDelete: a pod at the old revision waits for a person to delete it", () => {
    const onDelete = rolling({}, { spec: { updateStrategy: { type: "OnDelete" } } });
    expect(rolloutBlocker(setView(onDelete), ready3(onDelete, "web-a"), "web-b", at(60))).toMatchObject({ kind: "person", pod: "web-0" });
  });
  it.each<[string, (p: Pod) => void, string]>([
    ["a failed pod (Ordinal replaces it)", (p) => (p.status!.phase = "Failed"), "pod web-2 has failed: Ordinal replaces it next"],
    [
      "the gate False and the images not changed yet",
      (p) => p.status!.conditions!.push({ type: "InPlaceUpdateReady", status: "False", reason: "StartInPlaceUpdate" }),
      "pod web-2 is out of traffic for its in-place update: Ordinal has yet to change its images",
    ],
  ])("Ordinal's own next step: %s", (_, stuck, words) => {
    const ps = pods(set, (p) => {
      p.status!.conditions = p.status!.conditions!.filter((c) => c.type !== "InPlaceUpdateReady");
      stuck(p);
    });
    expect(rolloutBlocker(setView(set), ps, "web-b", at(60))).toEqual({ kind: "ordinal", pod: "web-2", words });
  });
});

describe("checkProgress judges only after counting what the cluster shows (issue 34)", () => {
  /** The rollout stuck since T0 as in pods(), but web-2 is missing: its create refused at `lastRefused` (seconds after T0), or not tried. */
  const missingWeb2 = (lastRefused?: number) => {
    const set = rolling({});
    if (lastRefused !== undefined)
      set.status!.conditions!.push({ type: "ReplicaFailure", status: "True", reason: "FailedCreate", lastTransitionTime: T0, lastUpdateTime: at(lastRefused).toISOString(), message: "create of pod web-2 refused: exceeded quota" });
    return { set, pods: pods(set).slice(0, 2) };
  };
  it("a replica no pass created yet is Ordinal's own step: never judged, the clock starts afresh", () => {
    const { set, pods: ps } = missingWeb2();
    expect(checkProgress(setView(set), counts({ replicas: 2 }), "web-b", ps, at(600))).toEqual({ lastUpdateTime: "2026-11-21T12:10:00Z", requeueAfterMs: 60_000 });
  });
  it("a create refused before the deadline and not tried since: this pass tries again before judging", () => {
    const { set, pods: ps } = missingWeb2(30);
    expect(checkProgress(setView(set), counts({ replicas: 2 }), "web-b", ps, at(600))).toEqual({ lastUpdateTime: T0, requeueAfterMs: 60_000 });
  });
  it("a create refused again at or after the deadline: exceeded, naming the refusal", () => {
    const { set, pods: ps } = missingWeb2(60);
    expect(checkProgress(setView(set), counts({ replicas: 2 }), "web-b", ps, at(61))).toEqual({ lastUpdateTime: T0, exceeded: "no pod newly updated and Ready for 60s: create of pod web-2 refused: exceeded quota" });
  });
  it("a pod's time starts no earlier than Ordinal's step on it: created at the update revision 50 s after the last progress, it is judged 60 s after its creation", () => {
    const set = rolling({});
    const ps = pods(set, (p) => (p.metadata!.creationTimestamp = at(50) as unknown as Date));
    expect(checkProgress(setView(set), counts(), "web-b", ps, at(100))).toEqual({ lastUpdateTime: T0, requeueAfterMs: 10_000 });
    expect(checkProgress(setView(set), counts(), "web-b", ps, at(110))?.exceeded).toMatch(/pod web-2 was never Ready/);
  });
});

describe("the deadline and healing agree (issue 36)", () => {
  /**
   * A set rolling from web-a (current, completed with no pods: never seen Ready) to web-b, its
   * clock running since T0; web-0 at web-a, started at T0 and never Ready since.
   */
  const unproven = (progressing: Record<string, unknown> = {}) => {
    const set = rolling(progressing);
    const web0 = newPod(set, 0, "web-a", "running", T0);
    web0.status!.startTime = T0 as unknown as Date;
    return { set, ps: [web0] };
  };
  const one = counts({ replicas: 1, readyReplicas: 0, availableReplicas: 0, currentReplicas: 1, updatedReplicas: 0 });
  it("a pod healing replaces is Ordinal's own next step, named so, whether the plan or status.currentRevision says the current revision", () => {
    const { set, ps } = unproven();
    const want = { kind: "ordinal", pod: "web-0", words: "pod web-0 was never Ready at the current revision web-a, which no pod was ever Ready at: Ordinal replaces it next" };
    expect(rolloutBlocker(setView(set), ps, "web-b", at(600), { currentRevision: "web-a" })).toEqual(want);
    expect(rolloutBlocker(setView(set), ps, "web-b", at(600))).toEqual(want);
  });
  it("the same pod with a sibling Ready at web-a is waited for: a pod, not the release's (no rollback for it)", () => {
    const { set, ps } = unproven();
    expect(rolloutBlocker(setView(set), [...ps, newPod(set, 1, "web-a")], "web-b", at(600))).toMatchObject({ kind: "pod", pod: "web-0", release: false });
  });
  it("a pass late past the deadline with that pod still there: not judged (no 'not rolled back' for the wrong reason), a fresh clock", () => {
    const { set, ps } = unproven();
    expect(checkProgress(setView(set), one, "web-b", ps, at(600))).toEqual({ lastUpdateTime: "2026-11-21T12:10:00Z", requeueAfterMs: 60_000 });
  });
  it("exceeded before (for another reason), then the pod made again at the update revision: it gets its own deadline before any rollback", () => {
    const set = rolling({ status: "False", reason: "ProgressDeadlineExceeded" });
    const web0 = newPod(set, 0, "web-b", "pending", T0);
    web0.metadata!.creationTimestamp = at(300) as unknown as Date;
    expect(checkProgress(setView(set), one, "web-b", [web0], at(301))).toEqual({ lastUpdateTime: T0, requeueAfterMs: 59_000 });
    expect(checkProgress(setView(set), one, "web-b", [web0], at(360))?.exceeded).toMatch(/^no pod newly updated and Ready for 60s: pod web-0 was never Ready/);
    // Created before the deadline was exceeded: it had its time, it stays exceeded.
    web0.metadata!.creationTimestamp = at(30) as unknown as Date;
    expect(checkProgress(setView(set), one, "web-b", [web0], at(301))?.exceeded).toMatch(/pod web-0/);
  });
});
