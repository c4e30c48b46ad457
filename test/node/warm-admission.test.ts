// The admission warm-up `ordinal serve` runs before it listens (issue 20: a set's CREATE ran its
// validation cold, 6–26 ms inside the user's apply and before the set's first pod).
import { describe, expect, it } from "vitest";
import { warmAdmission } from "../../src/node/warm-admission.ts";
import { WEBHOOK_PATHS } from "../../src/webhook-config/webhook-configs.ts";

describe("warmAdmission", () => {
  it("runs the set's and its first pod's webhooks to the end: every sample is allowed (a refusal would skip the work it warms)", async () => {
    const answers = await warmAdmission({ reconcilerUsername: "ordinal-reconciler", validateAppsV1StatefulSets: false }, 2);
    expect(answers).toEqual(
      [WEBHOOK_PATHS.mutateStatefulSets, WEBHOOK_PATHS.validateStatefulSets, WEBHOOK_PATHS.mutatePods, WEBHOOK_PATHS.validatePods].map((path) => ({ path, status: 200, allowed: true })),
    );
  });
});
