// Ordinal's rules for changing a stored set's volumeClaimTemplates (src/validation/statefulset-claims.ts):
// add a template or grow a request (both strategies); never remove one or shrink; with OnPodRollingUpdate
// nothing else may change in a template; with OnDelete anything else may (new claims only).
import { describe, expect, it } from "vitest";
import { validateStatefulSet } from "../../src/validation/index.ts";
import { type Raw, messages, validSet, with_ } from "./helpers.ts";

const ordinal = { group: "apps.ordinal.dev" } as const;
const strategy = (type?: string) => (s: Raw) => {
  if (type) s.spec.volumeClaimUpdateStrategy = { type };
};
/** update validates `old` (validSet with `before`) changed by `edit`. */
const update = (before: (s: Raw) => void, edit: (s: Raw) => void) => {
  const old = with_(validSet, before);
  const next = with_(() => structuredClone(old), edit);
  return messages(validateStatefulSet(next, old, ordinal).errors);
};
const storage = (v: string) => (s: Raw) => (s.spec.volumeClaimTemplates[0].spec.resources.requests.storage = v);
const addLogs = (s: Raw) => {
  s.spec.volumeClaimTemplates.push({ metadata: { name: "logs" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } });
  s.spec.template.spec.containers[0].volumeMounts.push({ name: "logs", mountPath: "/logs" });
};
const both = (...edits: ((s: Raw) => void)[]) => (s: Raw) => edits.forEach((e) => e(s));

const OTHER_CHANGE =
  "spec.volumeClaimTemplates[0]: Forbidden: with volumeClaimUpdateStrategy OnPodRollingUpdate only spec.resources.requests.storage may change (to a larger value): other changes (storage class, access modes, labels…) cannot reach the existing claims; with volumeClaimUpdateStrategy OnDelete they apply to new claims only";

describe("validateClaimTemplatesUpdate (through validateStatefulSet, apps.ordinal.dev)", () => {
  const cases: Array<[string, (s: Raw) => void, (s: Raw) => void, string[]]> = [
    ["OnDelete: a larger request", strategy(), storage("2Gi"), []],
    ["OnPodRollingUpdate: a larger request", strategy("OnPodRollingUpdate"), storage("2Gi"), []],
    ["switching to OnPodRollingUpdate with a larger request", strategy(), both(strategy("OnPodRollingUpdate"), storage("2Gi")), []],
    ["the same request written otherwise (1Gi = 1024Mi)", strategy("OnPodRollingUpdate"), storage("1024Mi"), []],
    ["OnDelete: a template added", strategy(), addLogs, []],
    ["OnPodRollingUpdate: a template added", strategy("OnPodRollingUpdate"), addLogs, []],
    ["OnDelete: another storage class (new claims only)", strategy(), (s) => (s.spec.volumeClaimTemplates[0].spec.storageClassName = "fast"), []],
    ["OnDelete: other access modes", strategy(), (s) => (s.spec.volumeClaimTemplates[0].spec.accessModes = ["ReadWriteMany"]), []],
    [
      "a smaller request (either strategy)",
      strategy(),
      storage("512Mi"),
      ["spec.volumeClaimTemplates[0].spec.resources.requests.storage: Forbidden: may not be less than the previous value 1Gi: a claim can only grow"],
    ],
    [
      "a template removed",
      both(strategy("OnPodRollingUpdate"), addLogs),
      (s) => (s.spec.volumeClaimTemplates.pop(), s.spec.template.spec.containers[0].volumeMounts.pop()),
      [`spec.volumeClaimTemplates: Forbidden: volume claim template "logs" may not be removed: its claims hold the pods' data and each pod mounts one (templates may only be added)`],
    ],
    ["a template renamed (removed and added)", strategy(), (s) => (s.spec.volumeClaimTemplates[0].metadata.name = s.spec.template.spec.containers[0].volumeMounts[0].name = "data2"), [
      `spec.volumeClaimTemplates: Forbidden: volume claim template "data" may not be removed: its claims hold the pods' data and each pod mounts one (templates may only be added)`,
    ]],
    ["OnPodRollingUpdate: another storage class", strategy("OnPodRollingUpdate"), (s) => (s.spec.volumeClaimTemplates[0].spec.storageClassName = "fast"), [OTHER_CHANGE]],
    ["OnPodRollingUpdate: other access modes", strategy("OnPodRollingUpdate"), (s) => (s.spec.volumeClaimTemplates[0].spec.accessModes = ["ReadWriteMany"]), [OTHER_CHANGE]],
    ["OnPodRollingUpdate: a label", strategy("OnPodRollingUpdate"), (s) => (s.spec.volumeClaimTemplates[0].metadata.labels = { tier: "db" }), [OTHER_CHANGE]],
    [
      "switching to OnPodRollingUpdate with another storage class",
      strategy(),
      both(strategy("OnPodRollingUpdate"), (s) => (s.spec.volumeClaimTemplates[0].spec.storageClassName = "fast")),
      [OTHER_CHANGE],
    ],
    [
      "OnPodRollingUpdate: a smaller request and another class, both said",
      strategy("OnPodRollingUpdate"),
      both(storage("1Mi"), (s) => (s.spec.volumeClaimTemplates[0].spec.storageClassName = "fast")),
      ["spec.volumeClaimTemplates[0].spec.resources.requests.storage: Forbidden: may not be less than the previous value 1Gi: a claim can only grow", OTHER_CHANGE],
    ],
  ];
  for (const [name, before, edit, want] of cases)
    it(name, () => {
      expect(update(before, edit)).toEqual(want);
    });

  it("refuses an unknown volumeClaimUpdateStrategy.type, on create too", () => {
    const s = with_(validSet, strategy("Always"));
    expect(messages(validateStatefulSet(s, undefined, ordinal).errors)).toEqual([
      `spec.volumeClaimUpdateStrategy.type: Unsupported value: "Always": supported values: "OnDelete", "OnPodRollingUpdate"`,
    ]);
  });
});
