/**
 * pullerTarget, withNodeEligible and pullSecretsFor (src/core/puller-target.ts, issues 19.2 and
 * 21): a puller pod goes only to a node that runs a pod of the ImageList's namespace, with only
 * those pods' tolerations, and the pull secrets of the list and of the sets that added entries.
 */
import { describe, expect, it } from "vitest";
import { ImageListSchema, type ImageList } from "../../src/api/imagelist.ts";
import type { Pod } from "../../src/api/k8s.ts";
import { PULLER_LABEL } from "../../src/objects/constants.ts";
import { MAX_PULLER_PULL_SECRETS, MAX_PULLER_TOLERATIONS, pullerTarget, pullSecretsFor, withNodeEligible } from "../../src/core/puller-target.ts";

const NOW = new Date("2026-11-21T12:00:00Z");
const pod = (o: { tolerations?: object[]; phase?: string; puller?: boolean } = {}): Pod => ({
  metadata: { name: "p", namespace: "ns", ...(o.puller ? { labels: { [PULLER_LABEL]: "true" } } : {}) },
  spec: { nodeName: "node-a", containers: [{ name: "c", image: "x" }], ...(o.tolerations ? { tolerations: o.tolerations as never } : {}) },
  ...(o.phase ? { status: { phase: o.phase } } : {}),
});
const list = (extra: Partial<ImageList["spec"]> = {}, status?: ImageList["status"]): ImageList =>
  ImageListSchema.parse({ metadata: { name: "node-a", namespace: "ns" }, spec: { images: {}, ...extra }, ...(status ? { status } : {}) });
const noExecute = { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 };
const dedicated = { key: "dedicated", operator: "Equal", value: "db", effect: "NoSchedule" };

describe("pullerTarget", () => {
  it.each<[string, Pod[], boolean]>([
    ["no pod of the namespace on the node: not eligible", [], false],
    ["only a puller pod: not eligible", [pod({ puller: true })], false],
    ["only finished pods: not eligible", [pod({ phase: "Succeeded" }), pod({ phase: "Failed" })], false],
    ["a pending pod bound there: eligible", [pod({ phase: "Pending" })], true],
    ["a running pod: eligible", [pod({ phase: "Running" })], true],
  ])("%s", (_, pods, eligible) => {
    expect(pullerTarget(pods).eligible).toBe(eligible);
  });

  it("tolerates exactly the union of those pods' tolerations, deduplicated, never more", () => {
    const t = pullerTarget([pod({ tolerations: [noExecute, dedicated] }), pod({ tolerations: [dedicated] }), pod(), pod({ puller: true, tolerations: [{ operator: "Exists" }] })]);
    expect(t.tolerations).toHaveLength(2);
    expect(t.tolerations).toEqual(expect.arrayContaining([noExecute, dedicated]));
    expect(t.tolerations).not.toContainEqual({ operator: "Exists" });
    expect(pullerTarget([pod()]).tolerations).toEqual([]);
  });

  it("keeps at most MAX_PULLER_TOLERATIONS, in a canonical order", () => {
    const many = Array.from({ length: 100 }, (_, i) => ({ key: `k${String(i).padStart(3, "0")}`, operator: "Exists" }));
    const t = pullerTarget([pod({ tolerations: [...many].reverse() })]);
    expect(t.tolerations).toHaveLength(MAX_PULLER_TOLERATIONS);
    expect(t.tolerations[0]).toEqual(many[0]);
  });
});

describe("withNodeEligible", () => {
  it("adds NodeEligible, keeps other conditions, moves lastTransitionTime only on a change", () => {
    const other = { type: "Other", status: "True" as const, lastTransitionTime: "2026-01-01T00:00:00Z" };
    const no = withNodeEligible(list({}, { conditions: [other] }), false, NOW);
    expect(no).toEqual([
      other,
      { type: "NodeEligible", status: "False", lastTransitionTime: "2026-11-21T12:00:00Z", reason: "NoPodOfNamespace", message: 'node "node-a" runs no pod of namespace "ns": Ordinal pre-warms only nodes that run this namespace\'s pods' },
    ]);
    const later = new Date(NOW.getTime() + 60_000);
    expect(withNodeEligible(list({}, { conditions: no }), false, later)[1].lastTransitionTime).toBe("2026-11-21T12:00:00Z");
    expect(withNodeEligible(list({}, { conditions: no }), true, later)[1]).toMatchObject({ status: "True", reason: "NamespaceRunsOnNode", lastTransitionTime: "2026-11-21T12:01:00Z" });
  });
});

describe("pullSecretsFor", () => {
  it("the list's secrets, then each set's template and ServiceAccount secrets, deduplicated", () => {
    const l = list({ imagePullSecrets: [{ name: "mine" }] });
    expect(pullSecretsFor(l, [])).toEqual(["mine"]);
    expect(pullSecretsFor(l, [{ templateSecrets: ["tpl", "mine"], serviceAccountSecrets: ["sa"] }, { templateSecrets: [], serviceAccountSecrets: ["sa", "sa2"] }])).toEqual(["mine", "tpl", "sa", "sa2"]);
    expect(pullSecretsFor(list(), [])).toEqual([]);
  });

  it("is bounded", () => {
    const sets = [{ templateSecrets: Array.from({ length: 100 }, (_, i) => `s${i}`), serviceAccountSecrets: [] }];
    expect(pullSecretsFor(list(), sets)).toHaveLength(MAX_PULLER_PULL_SECRETS);
  });
});
