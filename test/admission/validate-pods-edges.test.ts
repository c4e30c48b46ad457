/**
 * validatePodRequest at its edges: requests it does not judge, exact messages, hostile JSON (no
 * metadata, null list entries), pods/ephemeralcontainers' allowance, conditions appearing, and
 * which ownerReference changes count as Ordinal's (src/admission/validate-pods.ts).
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { changedSpecPointers, GARBAGE_COLLECTOR_USERNAMES, validatePodRequest } from "../../src/admission/validate-pods.ts";
import { INPLACE_READY_CONDITION, INPLACE_STATE_ANNOTATION, POD_INDEX_LABEL, SET_NAME_LABEL } from "../../src/objects/constants.ts";
import { newStatefulSetPod } from "../../src/objects/pod.ts";
import { RECONCILER, request, sampleSet } from "./helpers.ts";

type Fields = Parameters<typeof request>[0];
const decide = (f: Fields) => validatePodRequest(request(f), { reconcilerUsername: RECONCILER });
/** A managed pod as stored (controller reference to default/web, identity labels), revision r1. */
const stored = (): Pod => newStatefulSetPod(sampleSet(), 0, "r1");
const edited = (edit: (p: Pod) => void, from = stored()): Pod => {
  const p = structuredClone(from);
  edit(p);
  return p;
};
const ours = stored().metadata!.ownerReferences![0];
const foreign = { apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "rs-uid", controller: true };
const withState = (p: Pod) => void (p.metadata!.annotations = { [INPLACE_STATE_ANNOTATION]: "{}" });

describe("requests validatePodRequest does not judge", () => {
  const forbiddenPod = edited(withState);
  it.each<[string, Fields]>([
    ["a DELETE, whatever the review carries", { operation: "DELETE", object: forbiddenPod, oldObject: stored() }],
    ["a CONNECT", { operation: "CONNECT", object: forbiddenPod }],
    ["a subresource that writes no pod (pods/exec)", { operation: "CREATE", subResource: "exec", object: forbiddenPod }],
    ["an UPDATE of pods/proxy", { operation: "UPDATE", subResource: "proxy", object: forbiddenPod, oldObject: stored() }],
    // 1.20's EphemeralContainers object has metadata, but the apiserver writes none of it to the pod.
    ["an EphemeralContainers object with the reserved annotation", { operation: "UPDATE", kind: { group: "", version: "v1", kind: "EphemeralContainers" }, subResource: "ephemeralcontainers", object: forbiddenPod, oldObject: stored() }],
  ])("%s is allowed", (_, f) => {
    const r = decide(f);
    expect(r.response.allowed).toBe(true);
  });
});

describe("denial messages, word for word", () => {
  const message = (f: Fields) => decide(f).response.status?.message;
  it("the reserved annotation", () => {
    expect(message({ operation: "CREATE", name: "web-0", object: edited(withState) })).toBe(
      `Pod "web-0" is invalid: metadata.annotations[${INPLACE_STATE_ANNOTATION}]: Forbidden: added "{}": only the reconciler ("${RECONCILER}") may write it (this request is from "admin")`,
    );
  });
  it("the reserved condition", () => {
    const pod = edited((p) => void (p.status = { conditions: [{ type: INPLACE_READY_CONDITION, status: "True" }] }));
    expect(message({ operation: "UPDATE", subResource: "status", object: pod, oldObject: stored() })).toBe(
      `Pod "web-0" is invalid: status.conditions[${INPLACE_READY_CONDITION}]: Forbidden: only the reconciler ("${RECONCILER}") may write it (this request is from "admin") (it is the in-place update readiness gate)`,
    );
  });
  it("an identity label", () => {
    const pod = edited((p) => void (p.metadata!.labels![POD_INDEX_LABEL] = "4"));
    expect(message({ operation: "UPDATE", object: pod, oldObject: stored() })).toBe(
      `Pod "web-0" is invalid: metadata.labels[${POD_INDEX_LABEL}]: Forbidden: changed "0" to "4": on a pod of Ordinal StatefulSet "web" only the reconciler ("${RECONCILER}") may write it (this request is from "admin")`,
    );
  });
  it("two spec pointers, comma-separated", () => {
    const pod = edited((p) => {
      p.spec!.hostname = "h";
      p.spec!.subdomain = "s";
    });
    expect(message({ operation: "UPDATE", object: pod, oldObject: stored() })).toBe(
      'Pod "web-0" is invalid: spec: Forbidden: a pod of Ordinal StatefulSet "web" may change only spec.containers[*].image and spec.initContainers[*].image; ' +
        "this update changes /spec/hostname, /spec/subdomain (change the StatefulSet's template instead)",
    );
  });
  it("exactly 20 pointers: all listed, no count", () => {
    const old = edited((p) => void (p.spec!.containers[0].env = Array.from({ length: 20 }, (_, i) => ({ name: `E${i}`, value: "w" }))));
    const pod = edited((p) => p.spec!.containers[0].env!.forEach((e) => (e.value = "v")), old);
    const msg = message({ operation: "UPDATE", object: pod, oldObject: old }) ?? "";
    expect(msg.match(/\/spec\/containers\/0\/env\/\d+\/value/g)).toHaveLength(20);
    expect(msg).not.toContain("in all");
  });
  it("a Binding with the reserved annotation", () => {
    const kind = { group: "", version: "v1", kind: "Binding" };
    const binding = { apiVersion: "v1", kind: "Binding", metadata: { name: "web-0", annotations: { [INPLACE_STATE_ANNOTATION]: "{}" } }, target: { kind: "Node", name: "n1" } };
    expect(message({ operation: "CREATE", kind, subResource: "binding", object: binding })).toBe(
      `Binding "web-0" is invalid: metadata.annotations[${INPLACE_STATE_ANNOTATION}]: Forbidden: a binding copies its annotations onto the pod: only the reconciler ("${RECONCILER}") may write it (this request is from "admin")`,
    );
  });
});

describe("hostile JSON: no throw, a well-formed answer", () => {
  const bare = { spec: { containers: [{ name: "nginx", image: "nginx:1.25" }] } };
  it.each<[string, Fields, boolean]>([
    ["CREATE of a pod without metadata", { operation: "CREATE", object: bare }, true],
    ["UPDATE of Ordinal's pod to one without metadata: its labels and reference are removed", { operation: "UPDATE", object: { spec: stored().spec }, oldObject: stored() }, false],
    ["UPDATE of Ordinal's pod to one without labels", { operation: "UPDATE", object: edited((p) => void delete p.metadata!.labels), oldObject: stored() }, false],
    ["UPDATE from a pod without metadata to Ordinal's: labels and reference added", { operation: "UPDATE", object: stored(), oldObject: { spec: stored().spec } }, false],
    ["UPDATE from a pod without labels to one with our label", { operation: "UPDATE", object: { metadata: { name: "web-0", labels: { [SET_NAME_LABEL]: "web" } }, spec: bare.spec }, oldObject: { metadata: { name: "web-0" }, spec: bare.spec } }, false],
    ["null entries in ownerReferences", { operation: "UPDATE", object: edited((p) => p.metadata!.ownerReferences!.unshift(null as never)), oldObject: stored() }, true],
    ["a Binding without metadata", { operation: "CREATE", kind: { group: "", version: "v1", kind: "Binding" }, subResource: "binding", object: { target: { kind: "Node", name: "n1" } } }, true],
  ])("%s", (_, f, allowed) => {
    expect(decide(f).response.allowed).toBe(allowed);
  });

  it.each<[string, unknown, unknown, string[]]>([
    ["an old container that is null", { containers: [null] }, { containers: [{ name: "a", image: "x" }] }, ["/spec/containers/0"]],
    ["a new container that is null", { containers: [{ name: "a", image: "x" }] }, { containers: [null] }, ["/spec/containers/0"]],
    ["a container added after the ones kept (its image counts)", { containers: [{ name: "a", image: "x" }] }, { containers: [{ name: "a", image: "y" }, { name: "b", image: "z" }] }, ["/spec/containers/1"]],
  ])("changedSpecPointers: %s", (_, a, b, want) => {
    expect(changedSpecPointers(a, b)).toEqual(want);
  });
});

describe("pods/ephemeralcontainers may change spec.ephemeralContainers, and only through that subresource", () => {
  const debug = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `debug${i}`, image: "busybox" }));
  it.each<[string, string | undefined, (p: Pod) => void, Pod | undefined, boolean]>([
    ["a second ephemeral container through the subresource", "ephemeralcontainers", (p) => void (p.spec!.ephemeralContainers = debug(2)), edited((p) => void (p.spec!.ephemeralContainers = debug(1))), true],
    ["an ephemeral container through a plain update", undefined, (p) => void (p.spec!.ephemeralContainers = debug(1)), undefined, false],
    ["an env change through the subresource", "ephemeralcontainers", (p) => void (p.spec!.containers[0].env = [{ name: "A", value: "1" }]), undefined, false],
  ])("%s", (_, subResource, edit, old, allowed) => {
    const before = old ?? stored();
    expect(decide({ operation: "UPDATE", subResource, object: edited(edit, before), oldObject: before }).response.allowed).toBe(allowed);
  });
});

describe("the InPlaceUpdateReady condition: a kubelet writing other conditions passes", () => {
  it.each<[string, Pod["status"], Pod["status"]]>([
    ["first conditions, without the gate", {}, { conditions: [{ type: "Ready", status: "False" }] }],
    ["conditions removed, the gate never there", { conditions: [{ type: "Ready", status: "True" }] }, {}],
    ["conditions that are not a list on both sides", { conditions: {} as never }, { conditions: "x" as never }],
  ])("%s", (_, before, after) => {
    const old = edited((p) => void (p.status = before));
    const pod = edited((p) => void (p.status = after));
    expect(decide({ operation: "UPDATE", subResource: "status", object: pod, oldObject: old, userInfo: { username: "system:node:n1" } }).response.allowed).toBe(true);
  });
});

describe("which ownerReference changes are Ordinal's", () => {
  const labelled = (refs: unknown[]): Pod => edited((p) => void (p.metadata!.ownerReferences = refs as never));
  it.each<[string, unknown[], unknown[], string | undefined, string | undefined]>([
    // [name, old refs, new refs, user, the change named (undefined: allowed)]
    ["a labelled pod without a controller may get a foreign controller", [], [foreign], undefined, undefined],
    ["a labelled pod's foreign controller may be removed (Ordinal's references are untouched)", [foreign], [], undefined, undefined],
    ["adding a non-controller reference to Ordinal's set", [], [{ ...ours, controller: false }], undefined, "added"],
    ["a foreign controller listed before Ordinal's", [ours], [foreign, ours], undefined, "changed"],
    ["the garbage collector pointing Ordinal's reference at another uid", [ours], [{ ...ours, uid: "other" }], GARBAGE_COLLECTOR_USERNAMES[0], "changed"],
    ["the garbage collector demoting Ordinal's reference (controller: false)", [ours], [{ ...ours, controller: false }], GARBAGE_COLLECTOR_USERNAMES[0], "changed"],
    ["the garbage collector removing Ordinal's reference", [ours], [], GARBAGE_COLLECTOR_USERNAMES[1], undefined],
    ["a user with no name removing Ordinal's reference", [ours], [], "", "removed"],
  ])("%s", (_, before, after, user, change) => {
    const r = decide({ operation: "UPDATE", object: labelled(after), oldObject: labelled(before), userInfo: user === "" ? {} : { username: user ?? "admin" } });
    if (change === undefined) expect(r.response, JSON.stringify(r.response.status)).toMatchObject({ allowed: true });
    else expect(r.response.status?.message).toContain(`metadata.ownerReferences: Forbidden: ${change} Ordinal's owner reference`);
  });
});

