/**
 * The switchover request (ordinal.dev/switchover-requested, src/core/switchover.ts) is the
 * reconciler's: the pod webhook refuses anyone else adding or changing it — on a pod, on a pod's
 * status, through a Binding — and lets anyone remove it (src/admission/validate-pods.ts).
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { validatePodRequest } from "../../src/admission/validate-pods.ts";
import { SWITCHOVER_REQUEST_ANNOTATION } from "../../src/objects/constants.ts";
import { newStatefulSetPod } from "../../src/objects/pod.ts";
import { RECONCILER, request, sampleSet } from "./helpers.ts";

type Fields = Parameters<typeof request>[0];
const decide = (f: Fields, username = "system:serviceaccount:db:patroni") => validatePodRequest(request({ ...f, userInfo: { username } }), { reconcilerUsername: RECONCILER });
const stored = (): Pod => newStatefulSetPod(sampleSet(), 2, "r1");
const requested = (p: Pod, at = "2026-12-05T01:00:00Z"): Pod => {
  const c = structuredClone(p);
  c.metadata!.annotations = { ...c.metadata!.annotations, [SWITCHOVER_REQUEST_ANNOTATION]: at };
  return c;
};
const WHY = "(it is Ordinal's request to hand the pod's role away; the application answers by moving the role label, never by writing this annotation)";

describe("the switchover request annotation", () => {
  it("is refused from anyone but the reconciler, added on an update, naming what it is", () => {
    const r = decide({ operation: "UPDATE", name: "web-2", object: requested(stored()), oldObject: stored() });
    expect(r.response.allowed).toBe(false);
    expect(r.response.status?.message).toBe(
      `Pod "web-2" is invalid: metadata.annotations[${SWITCHOVER_REQUEST_ANNOTATION}]: Forbidden: added "2026-12-05T01:00:00Z": only the reconciler ("${RECONCILER}") may write it (this request is from "system:serviceaccount:db:patroni") ${WHY}`,
    );
  });
  it.each<[string, Fields]>([
    ["changed", { operation: "UPDATE", object: requested(stored(), "2030-01-01T00:00:00Z"), oldObject: requested(stored()) }],
    ["added through pods/status", { operation: "UPDATE", subResource: "status", object: requested(stored()), oldObject: stored() }],
    ["on a pod created with it", { operation: "CREATE", object: requested(stored()) }],
  ])("is refused %s", (_, f) => expect(decide(f).response.allowed).toBe(false));
  it("is refused in a Binding (copied onto the pod)", () => {
    const binding = { apiVersion: "v1", kind: "Binding", metadata: { name: "web-2", annotations: { [SWITCHOVER_REQUEST_ANNOTATION]: "x" } }, target: { kind: "Node", name: "n1" } };
    expect(decide({ operation: "CREATE", kind: { group: "", version: "v1", kind: "Binding" }, subResource: "binding", object: binding }).response.allowed).toBe(false);
  });
  it("may be removed by anyone (a request withdrawn)", () => {
    expect(decide({ operation: "UPDATE", object: stored(), oldObject: requested(stored()) }).response.allowed).toBe(true);
  });
  it("is the reconciler's to add, change and remove", () => {
    expect(decide({ operation: "UPDATE", object: requested(stored()), oldObject: stored() }, RECONCILER).response.allowed).toBe(true);
  });
  it("leaves the application free to move the role label", () => {
    const moved = requested(stored());
    moved.metadata!.labels = { ...moved.metadata!.labels, "spilo-role": "replica" };
    const before = requested(stored());
    before.metadata!.labels = { ...before.metadata!.labels, "spilo-role": "master" };
    expect(decide({ operation: "UPDATE", object: moved, oldObject: before }).response.allowed).toBe(true);
  });
});
