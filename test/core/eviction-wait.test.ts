/** The Progressing message's list of chosen pods a PodDisruptionBudget holds (src/core/eviction-wait.ts). */
import { describe, expect, it } from "vitest";
import type { StatefulSetStatus } from "../../src/api/statefulset.ts";
import { evictionsWaiting, withEvictionsWaiting } from "../../src/core/eviction-wait.ts";

const WHY = "Cannot evict pod as it would violate the pod's disruption budget. The disruption budget web needs 3 healthy pods and has 3 currently";
const LIST = "; chosen pods wait for a PodDisruptionBudget to allow their eviction: ";
const TIMED_OUT = "StatefulSet default/web has timed out progressing: no pod newly updated and Ready for 10s";
/** What the deadline says of a held pod (blocker.ts). */
const hold = (pod: string, why: string) => `pod ${pod} is chosen for deletion and a PodDisruptionBudget refuses its eviction: ${why}`;
const progressing = (message: string): StatefulSetStatus => ({ replicas: 3, conditions: [{ type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded", message }] });

describe("withEvictionsWaiting", () => {
  it.each<[string, string, string[], string]>([
    ["a rollout under way: the list is appended", "1 of 3 pods at revision web-2", [`pod web-2: ${WHY}`], `1 of 3 pods at revision web-2${LIST}pod web-2: ${WHY}`],
    ["the deadline names the hold: said once, in the list", `${TIMED_OUT}: ${hold("web-2", WHY)}`, [`pod web-2: ${WHY}`], `${TIMED_OUT}${LIST}pod web-2: ${WHY}`],
    [
      "the deadline names last pass's answer: this pass's, once",
      `${TIMED_OUT}: ${hold("web-2", "Cannot evict pod as it would violate the pod's disruption budget. The disruption budget web needs 3 healthy pods and has 2 currently")}`,
      [`pod web-2: ${WHY}`],
      `${TIMED_OUT}${LIST}pod web-2: ${WHY}`,
    ],
    ["the deadline names a pod no longer held: kept", `${TIMED_OUT}: ${hold("web-1", WHY)}`, [`pod web-2: ${WHY}`], `${TIMED_OUT}: ${hold("web-1", WHY)}${LIST}pod web-2: ${WHY}`],
    [
      "two held, the deadline names the first",
      `${TIMED_OUT}: ${hold("web-1", WHY)}`,
      [`pod web-1: ${WHY}`, `pod web-2: ${WHY}`],
      `${TIMED_OUT}${LIST}pod web-1: ${WHY}; pod web-2: ${WHY}`,
    ],
  ])("%s", (_, message, waiting, want) => {
    const out = withEvictionsWaiting(progressing(message), waiting);
    expect(out.conditions?.[0].message).toBe(want);
    // What the next pass remembers is every pod held now, with this pass's answer.
    expect([...evictionsWaiting(out.conditions).values()]).toEqual(waiting);
  });

  it("nothing held: the status is unchanged", () => {
    const status = progressing(`${TIMED_OUT}: pod web-2 is not Ready`);
    expect(withEvictionsWaiting(status, [])).toBe(status);
  });
});
