// logRolloutChange: one info line per change of a set's rollout state (the Progressing condition's
// status and reason), nothing while the state stays; and a pass logs what it did at debug only.
import { describe, expect, it } from "vitest";
import type { StatefulSetStatus } from "../../src/api/statefulset.ts";
import { logRolloutChange } from "../../src/reconciler/rollout-log.ts";
import { memoryLogger } from "../admission/helpers.ts";

const status = (status: "True" | "False" | "Unknown", reason: string, ready = 1): StatefulSetStatus => ({
  replicas: 3,
  readyReplicas: ready,
  updatedReplicas: ready,
  updateRevision: "web-2",
  conditions: [{ type: "Progressing", status, reason, message: `${reason} message`, lastTransitionTime: "2026-12-04T00:00:00Z", lastUpdateTime: "2026-12-04T00:00:00Z" }],
});

describe("logRolloutChange", () => {
  it.each<[string, StatefulSetStatus | undefined, StatefulSetStatus | undefined, Record<string, unknown> | undefined]>([
    ["a new set's first status", { replicas: 0 }, status("True", "Scaling", 0), { state: "Scaling", progressing: "True", ready: 0 }],
    ["a rollout starts", status("True", "RolloutComplete", 3), status("True", "RollingUpdate", 2), { state: "RollingUpdate", was: "RolloutComplete" }],
    ["more pods ready within the same state", status("True", "RollingUpdate", 1), status("True", "RollingUpdate", 2), undefined],
    ["the rollout completes", status("True", "RollingUpdate", 2), status("True", "RolloutComplete", 3), { state: "RolloutComplete", was: "RollingUpdate", ready: 3 }],
    ["the deadline passes", status("True", "RollingUpdate"), status("False", "ProgressDeadlineExceeded"), { state: "ProgressDeadlineExceeded", progressing: "False", was: "RollingUpdate" }],
    ["no status written", status("True", "RollingUpdate"), undefined, undefined],
  ])("%s", (_, before, written, line) => {
    const log = memoryLogger();
    logRolloutChange(log, "default/web", before, written);
    expect(log.lines).toEqual(line ? [{ level: "info", msg: "rollout", fields: expect.objectContaining({ set: "default/web", ...line }) }] : []);
  });
});
