/**
 * mutatePod at its edges: which namespace the set is looked up in, the ordinal range's bounds,
 * existing readiness gates, a handler that never edits the request, and the failure answer
 * (src/admission/mutate-pods.ts).
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { mutatePod, mutatePodFailed, withOrdinalIdentity } from "../../src/admission/mutate-pods.ts";
import { decodePatch } from "../../src/admission/patch.ts";
import { INPLACE_READY_CONDITION, POD_NAME_LABEL } from "../../src/objects/constants.ts";
import { handMadePod, request, sampleSet } from "./helpers.ts";

/** run answers a CREATE of `pod` with a lookup that records where it looked and finds `set` anywhere. */
async function run(pod: Pod, fields: Parameters<typeof request>[0] = {}, set = sampleSet()) {
  const looked: string[] = [];
  const req = request({ object: pod, name: pod.metadata?.name, ...fields });
  const { response } = await mutatePod(req, {
    lookupStatefulSet: async (ns, name) => {
      looked.push(`${ns}/${name}`);
      return set;
    },
  });
  return { response, looked, ops: response.patch ? decodePatch(response.patch) : [] };
}

const withoutNamespace = (name = "web-0") => {
  const p = handMadePod(name);
  delete p.metadata!.namespace;
  return p;
};

describe("the namespace the set is looked up in", () => {
  it.each<[string, Pod, string | undefined, string]>([
    ["the pod's", handMadePod("web-0"), "ns-of-request", "default/web"],
    ["the request's when the pod names none", withoutNamespace(), "ns1", "ns1/web"],
    ["default when neither names one", withoutNamespace(), undefined, "default/web"],
  ])("%s", async (_, pod, namespace, want) => {
    expect((await run(pod, { namespace })).looked).toEqual([want]);
  });
  it("the pod name from the request when the object has none", async () => {
    const pod = handMadePod("web-0");
    delete pod.metadata!.name;
    const { ops, response } = await run(pod, { name: "web-2" });
    expect(response.warnings).toBeUndefined();
    expect(ops).toContainEqual({ op: "add", path: `/metadata/labels/${POD_NAME_LABEL.replace("/", "~1")}`, value: "web-2" });
  });
});

describe("the ordinal range [start, start + replicas)", () => {
  const set = sampleSet({ start: 2, replicas: 3 });
  it.each<[string, string, boolean]>([
    ["below the start", "web-1", true],
    ["the start", "web-2", false],
    ["the last", "web-4", false],
    ["the end (one past the last)", "web-5", true],
  ])("%s", async (_, name, _outside) => {
    const { response, ops } = await run(handMadePod(name), {}, set);
    expect(ops.length).toBeGreaterThan(0);
    // G7 (issue 35): in range or not, the same answer: the identity, no warning that tells the range.
    expect(response.warnings).toBeUndefined();
  });
});

describe("the ordinal range with reserveOrdinals", () => {
  // start 2, replicas 3, reserve 3 and 5-6: the replicas are web-2, web-4, web-7.
  const set = sampleSet({ start: 2, replicas: 3, reserveOrdinals: [3, "5-6"] });
  it.each<[string, string, boolean]>([
    ["the start", "web-2", false],
    ["a reserved ordinal", "web-3", true],
    ["between two reservations", "web-4", false],
    ["inside a reserved range", "web-6", true],
    ["the last, after the reservations", "web-7", false],
    ["one past the last", "web-8", true],
  ])("%s", async (_, name, _outside) => {
    const { response, ops } = await run(handMadePod(name), {}, set);
    // Identity either way (the pod exists): the reconciler deletes a pod outside the range.
    expect(ops.length).toBeGreaterThan(0);
    expect(response.warnings).toBeUndefined();
  });
});

describe("readiness gates and purity", () => {
  it("an existing gate is kept, ours appended, and the request's pod is left as it was", async () => {
    const pod = handMadePod("web-1");
    pod.spec!.readinessGates = [{ conditionType: "example.com/other" }];
    const before = structuredClone(pod);
    const { ops } = await run(pod);
    expect(pod).toEqual(before);
    expect(ops).toContainEqual({ op: "add", path: "/spec/readinessGates/1", value: { conditionType: INPLACE_READY_CONDITION } });
    expect(ops.filter((o) => o.path.startsWith("/spec/readinessGates/0"))).toEqual([]);
  });
  it("withOrdinalIdentity never edits its argument, labels and gates included", () => {
    const pod = handMadePod("web-1");
    pod.spec!.readinessGates = [{ conditionType: "example.com/other" }];
    const before = structuredClone(pod);
    const out = withOrdinalIdentity(sampleSet(), pod, 1);
    expect(pod).toEqual(before);
    expect(out.spec?.readinessGates).toEqual([{ conditionType: "example.com/other" }, { conditionType: INPLACE_READY_CONDITION }]);
  });
});

describe("withOrdinalIdentity on a bare pod", () => {
  it("a pod with neither metadata nor spec gets both, with the identity", () => {
    const out = withOrdinalIdentity(sampleSet(), {}, 1);
    expect(out.metadata).toMatchObject({ name: "web-1", namespace: "default", labels: { [POD_NAME_LABEL]: "web-1" } });
    expect(out.spec).toMatchObject({ hostname: "web-1", subdomain: "web", readinessGates: [{ conditionType: INPLACE_READY_CONDITION }] });
  });
});

describe("mutatePodFailed", () => {
  it("refuses a pod of an Ordinal set with a 500 InternalError the creator retries", () => {
    const r = mutatePodFailed(request({ object: handMadePod("web-0") }), "boom").response;
    expect(r).toMatchObject({ allowed: false, status: { code: 500, reason: "InternalError" } });
    expect(r.status?.message).toBe("Ordinal's mutating webhook failed (boom): a pod of StatefulSet web is refused rather than created without its identity; retry");
  });
});

describe("withOrdinalIdentity after a claim template was added (issue 23)", () => {
  const before = sampleSet({ claims: ["data"] });
  const after = sampleSet({ claims: ["data", "logs"] });
  const claimVolumes = (p: Pod) => (p.spec?.volumes ?? []).filter((v) => v.persistentVolumeClaim).map((v) => `${v.name}=${v.persistentVolumeClaim?.claimName}`);

  it("gives a hand-made pod the volume of every template, the added one included", () => {
    expect(claimVolumes(withOrdinalIdentity(after, handMadePod("web-1"), 1))).toEqual(["data=data-web-1", "logs=logs-web-1"]);
  });

  it("keeps the added template's volume of a reconciler-built pod even when the hook's set is a stale (cached) one", () => {
    const built = withOrdinalIdentity(after, handMadePod("web-1"), 1);
    expect(claimVolumes(withOrdinalIdentity(before, built, 1))).toEqual(["data=data-web-1", "logs=logs-web-1"]);
  });
});
