/**
 * rolloutConditions' words (src/core/conditions.ts): the exact condition messages and events a
 * user reads in `kubectl describe`, the OnDelete completion rule, and a resume from a stored
 * Paused=False (no event).
 */
import { describe, expect, it } from "vitest";
import type { Condition, StatefulSetStatus } from "../../src/api/statefulset.ts";
import { rolloutConditions } from "../../src/core/conditions.ts";
import { NOW, newSet } from "../support/fixtures.ts";

const status = (updated: number | undefined, ready = 3, replicas = 3): StatefulSetStatus => ({ replicas, readyReplicas: ready, updatedReplicas: updated, currentRevision: "web-1", updateRevision: "web-2" });
const set = (spec: Record<string, unknown> = {}, conditions?: Condition[]) => newSet({ spec }, conditions ? { conditions } : undefined);
const brief = (r: ReturnType<typeof rolloutConditions>) => ({
  conditions: r.conditions.map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`),
  events: r.events.map((e) => (e.type === "event" ? `${e.eventType} ${e.reason}: ${e.message}` : e.type)),
});

describe("rolloutConditions: what the user reads", () => {
  it.each<[string, ReturnType<typeof set>, StatefulSetStatus, { paused?: boolean; blocked?: string[] }, ReturnType<typeof brief>]>([
    ["rolling", set(), status(1), {}, { conditions: ["Progressing=True RollingUpdate: 1 of 3 pods at revision web-2"], events: [] }],
    ["no updated count yet", set(), status(undefined), {}, { conditions: ["Progressing=True RollingUpdate: 0 of 3 pods at revision web-2"], events: [] }],
    ["complete", set(), status(3), {}, { conditions: ["Progressing=True RolloutComplete: 3 of 3 pods at revision web-2, all ready"], events: [] }],
    [
      "OnDelete with pods left to delete",
      set({ updateStrategy: { type: "OnDelete", rollingUpdate: { partition: 2 } } }),
      status(1),
      {},
      { conditions: ["Progressing=True WaitingForPodDeletion: 1 of 3 pods at revision web-2: OnDelete updates a pod when it is deleted"], events: [] },
    ],
    ["complete but one pod short of replicas", set(), status(3, 3, 2), {}, { conditions: ["Progressing=True RollingUpdate: 3 of 3 pods at revision web-2"], events: [] }],
    [
      "paused",
      set(),
      status(1),
      { paused: true },
      {
        conditions: [
          "Progressing=Unknown RolloutPaused: rollout paused: 1 of 3 pods at revision web-2",
          "Paused=True Paused: spec.updateStrategy.rollingUpdate.paused is true: no pod is updated (1 of 3 pods at revision web-2)",
        ],
        events: ["Normal RolloutPaused: StatefulSet default/web rollout paused: 1 of 3 pods at revision web-2"],
      },
    ],
    [
      "resumed",
      set({}, [{ type: "Paused", status: "True", reason: "Paused", message: "x" }]),
      status(1),
      {},
      {
        conditions: ["Paused=False Resumed: spec.updateStrategy.rollingUpdate.paused is false", "Progressing=True RollingUpdate: 1 of 3 pods at revision web-2"],
        events: ["Normal RolloutResumed: StatefulSet default/web rollout resumed: 1 of 3 pods at revision web-2"],
      },
    ],
    [
      "still resumed (stored Paused=False): no event",
      set({}, [{ type: "Paused", status: "False", reason: "Resumed", message: "x" }]),
      status(1),
      {},
      { conditions: ["Paused=False Resumed: spec.updateStrategy.rollingUpdate.paused is false", "Progressing=True RollingUpdate: 1 of 3 pods at revision web-2"], events: [] },
    ],
    [
      "blocked by InPlaceOnly",
      set(),
      status(1),
      { blocked: ["pod web-2: a", "pod web-1: b"] },
      {
        conditions: ["Progressing=False InPlaceUpdateBlocked: rollout blocked by podUpdatePolicy InPlaceOnly: 1 of 3 pods at revision web-2", "InPlaceUpdateBlocked=True InPlaceOnly: pod web-2: a; pod web-1: b"],
        events: ["Warning InPlaceUpdateBlocked: StatefulSet default/web podUpdatePolicy InPlaceOnly leaves pod web-2: a; pod web-1: b"],
      },
    ],
    [
      "no longer blocked",
      set({}, [{ type: "InPlaceUpdateBlocked", status: "True", reason: "InPlaceOnly", message: "x" }]),
      status(1),
      {},
      { conditions: ["InPlaceUpdateBlocked=False InPlaceUpdatePossible: no pod needs a change that cannot be made in place", "Progressing=True RollingUpdate: 1 of 3 pods at revision web-2"], events: [] },
    ],
  ])("%s", (_, s, st, facts, want) => {
    expect(brief(rolloutConditions(s, st, { paused: false, blocked: [], ...facts }, NOW))).toEqual(want);
  });

  it("an InPlaceUpdateBlocked message is cut at 2048 characters", () => {
    const r = rolloutConditions(set(), status(1), { paused: false, blocked: ["x".repeat(3000)] }, NOW);
    expect(r.conditions.find((c) => c.type === "InPlaceUpdateBlocked")?.message).toHaveLength(2048);
  });
});
