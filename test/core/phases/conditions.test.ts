import { describe, expect, it } from "vitest";
import type { StatefulSetStatus } from "../../../src/api/statefulset.ts";
import { rolloutConditions } from "../../../src/core/conditions.ts";
import { makeSet, NOW } from "./helpers.ts";

const status = (updated: number, ready = 3, replicas = 3): StatefulSetStatus => ({ replicas, readyReplicas: ready, updatedReplicas: updated, currentRevision: "web-1", updateRevision: "web-2" });
const progressing = (c: ReturnType<typeof rolloutConditions>) => c.conditions.find((x) => x.type === "Progressing");

describe("rolloutConditions", () => {
  it.each<[string, Record<string, unknown>, StatefulSetStatus, { paused?: boolean; blocked?: string[] }, string, string]>([
    ["rolling", {}, status(1), {}, "True", "RollingUpdate"],
    ["complete", {}, status(3), {}, "True", "RolloutComplete"],
    ["complete but not all ready", {}, status(3, 2), {}, "True", "RollingUpdate"],
    ["complete as far as the partition allows", { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } } }, status(1), {}, "True", "RolloutComplete"],
    ["OnDelete waits for deletions", { updateStrategy: { type: "OnDelete" } }, status(1), {}, "True", "WaitingForPodDeletion"],
    ["paused", {}, status(1), { paused: true }, "Unknown", "RolloutPaused"],
    ["blocked", {}, status(1), { blocked: ["pod web-2: patch cannot use in-place update: /spec/containers/0/env"] }, "False", "InPlaceUpdateBlocked"],
  ])("Progressing: %s", (_, spec, st, facts, want, reason) => {
    const c = rolloutConditions(makeSet(spec), st, { paused: false, blocked: [], ...facts }, NOW);
    expect(progressing(c)).toMatchObject({ status: want, reason });
  });

  it("a scale with the template unchanged says Scaling from how many to how many, not \"3 of 1 pods\"", () => {
    const set = makeSet({ replicas: 1 });
    const scaleIn: StatefulSetStatus = { replicas: 3, readyReplicas: 3, updatedReplicas: 3, currentRevision: "web-2", updateRevision: "web-2" };
    expect(progressing(rolloutConditions(set, scaleIn, { paused: false, blocked: [] }, NOW))).toMatchObject({
      status: "True",
      reason: "Scaling",
      message: "scaling from 3 to 1 pods at revision web-2",
    });
    // OnDelete scales as any set: no "OnDelete updates a pod when it is deleted" for a scale.
    const onDelete = makeSet({ replicas: 1, updateStrategy: { type: "OnDelete" } });
    expect(progressing(rolloutConditions(onDelete, scaleIn, { paused: false, blocked: [] }, NOW))).toMatchObject({ reason: "Scaling", message: "scaling from 3 to 1 pods at revision web-2" });
    // The last step of a scale-up: every pod exists, the last not Ready yet: still the scale (was RollingUpdate "5 of 5 pods").
    const lastStep: StatefulSetStatus = { replicas: 5, readyReplicas: 4, updatedReplicas: 5, currentRevision: "web-2", updateRevision: "web-2" };
    expect(progressing(rolloutConditions(makeSet({ replicas: 5 }), lastStep, { paused: false, blocked: [] }, NOW))).toMatchObject({ reason: "Scaling", message: "scaling to 5 pods at revision web-2: 4 of 5 ready" });
    // A template change under way stays a rolling update, counted against the replicas wanted.
    expect(progressing(rolloutConditions(makeSet({ replicas: 3 }), status(1, 3, 2), { paused: false, blocked: [] }, NOW))).toMatchObject({ reason: "RollingUpdate", message: "1 of 3 pods at revision web-2" });
  });

  it("keeps lastTransitionTime while the status stays, moves it when it changes, and keeps foreign conditions", () => {
    const prev = [
      { type: "Other", status: "True" as const, lastTransitionTime: "2026-01-01T00:00:00Z" },
      { type: "Progressing", status: "True" as const, lastTransitionTime: "2026-11-21T10:00:00Z", reason: "RollingUpdate", message: "x" },
    ];
    const set = makeSet({}, {}, { conditions: prev });
    const same = rolloutConditions(set, status(2), { paused: false, blocked: [] }, NOW);
    expect(same.conditions.map((c) => c.type)).toEqual(["Other", "Progressing"]);
    expect(progressing(same)?.lastTransitionTime).toBe("2026-11-21T10:00:00Z");
    const paused = rolloutConditions(set, status(2), { paused: true, blocked: [] }, NOW);
    expect(progressing(paused)?.lastTransitionTime).toBe("2026-11-21T12:00:00Z");
  });

  it("events on transitions only: paused, resumed, blocked (and when the blocked message changes)", () => {
    const reasons = (c: ReturnType<typeof rolloutConditions>) => c.events.map((e) => (e.type === "event" ? e.reason : e.type));
    const first = rolloutConditions(makeSet(), status(1), { paused: true, blocked: [] }, NOW);
    expect(reasons(first)).toEqual(["RolloutPaused"]);
    const again = rolloutConditions(makeSet({}, {}, { conditions: first.conditions }), status(1), { paused: true, blocked: [] }, NOW);
    expect(reasons(again)).toEqual([]);
    const resumed = rolloutConditions(makeSet({}, {}, { conditions: first.conditions }), status(1), { paused: false, blocked: [] }, NOW);
    expect(reasons(resumed)).toEqual(["RolloutResumed"]);
    expect(resumed.conditions.find((c) => c.type === "Paused")).toMatchObject({ status: "False", reason: "Resumed" });
    const blocked = rolloutConditions(makeSet(), status(1), { paused: false, blocked: ["pod web-2: a"] }, NOW);
    expect(reasons(blocked)).toEqual(["InPlaceUpdateBlocked"]);
    const changed = rolloutConditions(makeSet({}, {}, { conditions: blocked.conditions }), status(1), { paused: false, blocked: ["pod web-2: b"] }, NOW);
    expect(reasons(changed)).toEqual(["InPlaceUpdateBlocked"]);
    const cleared = rolloutConditions(makeSet({}, {}, { conditions: blocked.conditions }), status(1), { paused: false, blocked: [] }, NOW);
    expect(cleared.conditions.find((c) => c.type === "InPlaceUpdateBlocked")).toMatchObject({ status: "False" });
    expect(reasons(cleared)).toEqual([]);
  });
});
