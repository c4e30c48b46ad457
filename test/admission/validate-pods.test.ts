import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { changedSpecPointers, GARBAGE_COLLECTOR_USERNAMES, validatePodRequest } from "../../src/admission/validate-pods.ts";
import { INPLACE_READY_CONDITION, INPLACE_STATE_ANNOTATION, LIFECYCLE_STATE_LABEL, POD_INDEX_LABEL, POD_NAME_LABEL, REVISION_LABEL, SET_NAME_LABEL } from "../../src/objects/constants.ts";
import { newStatefulSetPod } from "../../src/objects/pod.ts";
import { RECONCILER, request, sampleSet } from "./helpers.ts";

/** A managed pod as stored: built by the planner, revision r1, an in-place state annotation. */
function stored(): Pod {
  const pod = newStatefulSetPod(sampleSet(), 0, "r1");
  pod.metadata!.annotations = { [INPLACE_STATE_ANNOTATION]: '{"revision":"r1"}' };
  pod.spec!.initContainers = [{ name: "init", image: "busybox:1" }];
  return pod;
}

type Edit = (p: Pod) => void;

interface Case {
  name: string;
  edit: Edit;
  user?: string;
  /** Pointers or messages the denial must name; undefined means allowed. */
  denied?: string[];
  old?: () => Pod;
  subResource?: string;
}

const cases: Case[] = [
  { name: "an image change passes", edit: (p) => void (p.spec!.containers[0].image = "nginx:1.26") },
  { name: "an init container image change passes", edit: (p) => void (p.spec!.initContainers![0].image = "busybox:2") },
  { name: "no change passes", edit: () => {} },
  { name: "an unrelated label passes", edit: (p) => void (p.metadata!.labels!.tier = "gold") },
  { name: "an unrelated annotation passes", edit: (p) => void (p.metadata!.annotations!.note = "x") },
  {
    name: "adding env is refused, naming its pointer",
    edit: (p) => void (p.spec!.containers[0].env = [{ name: "A", value: "1" }]),
    denied: ["/spec/containers/0/env"],
  },
  {
    name: "several spec changes are all named, image changes alongside are not",
    edit: (p) => {
      p.spec!.containers[0].image = "nginx:2";
      p.spec!.containers[0].resources = { limits: { cpu: "1" } };
      p.spec!.tolerations = [{ key: "k", operator: "Exists" }];
      p.spec!.activeDeadlineSeconds = 5;
    },
    denied: ["/spec/activeDeadlineSeconds", "/spec/containers/0/resources", "/spec/tolerations"],
  },
  {
    name: "adding a container is refused",
    edit: (p) => void p.spec!.containers.push({ name: "sidecar", image: "envoy" }),
    denied: ["/spec/containers/1"],
  },
  {
    name: "removing an image is an image change here (the apiserver itself refuses an empty image)",
    edit: (p) => void delete (p.spec!.containers[0] as { image?: string }).image,
  },
  {
    name: "a spec change by the reconciler is refused too",
    user: RECONCILER,
    edit: (p) => void (p.spec!.hostname = "other"),
    denied: ["/spec/hostname"],
  },
  {
    name: "removing the pod-name label is refused",
    edit: (p) => void delete p.metadata!.labels![POD_NAME_LABEL],
    denied: [`metadata.labels[${POD_NAME_LABEL}]: Forbidden: removed "web-0"`],
  },
  {
    name: "changing pod-index is refused",
    edit: (p) => void (p.metadata!.labels![POD_INDEX_LABEL] = "5"),
    denied: [`metadata.labels[${POD_INDEX_LABEL}]: Forbidden: changed "0" to "5"`],
  },
  {
    name: "changing the revision label is refused",
    edit: (p) => void (p.metadata!.labels![REVISION_LABEL] = "r2"),
    denied: [`metadata.labels[${REVISION_LABEL}]`],
  },
  {
    name: "removing the set-name label is refused",
    edit: (p) => void delete p.metadata!.labels![SET_NAME_LABEL],
    denied: [`metadata.labels[${SET_NAME_LABEL}]`],
  },
  {
    name: "editing the in-place state annotation is refused",
    edit: (p) => void (p.metadata!.annotations![INPLACE_STATE_ANNOTATION] = "{}"),
    denied: [`metadata.annotations[${INPLACE_STATE_ANNOTATION}]`],
  },
  {
    name: "removing annotations altogether is refused (the in-place state goes with them)",
    edit: (p) => void delete p.metadata!.annotations,
    denied: [`metadata.annotations[${INPLACE_STATE_ANNOTATION}]: Forbidden: removed`],
  },
  {
    name: "changing the lifecycle state label is refused (the hooks' state machine is the reconciler's)",
    edit: (p) => void (p.metadata!.labels![LIFECYCLE_STATE_LABEL] = "Normal"),
    denied: [`metadata.labels[${LIFECYCLE_STATE_LABEL}]: Forbidden: added "Normal"`],
  },
  {
    name: "the reconciler may write the lifecycle state label",
    user: RECONCILER,
    edit: (p) => void (p.metadata!.labels![LIFECYCLE_STATE_LABEL] = "PreparingDelete"),
  },
  {
    name: "the reconciler may change identity labels and the annotation",
    user: RECONCILER,
    edit: (p) => {
      p.metadata!.labels![REVISION_LABEL] = "r2";
      p.metadata!.annotations![INPLACE_STATE_ANNOTATION] = '{"revision":"r2"}';
      p.spec!.containers[0].image = "nginx:2";
    },
  },
  {
    name: "a label and a spec problem are reported together",
    edit: (p) => {
      p.metadata!.labels![POD_INDEX_LABEL] = "9";
      p.spec!.containers[0].env = [];
    },
    denied: ["/spec/containers/0/env", `metadata.labels[${POD_INDEX_LABEL}]`],
  },
  {
    name: "a pod that is not ours may change anything",
    old: () => ({ metadata: { name: "x-0", labels: { app: "x" } }, spec: { containers: [{ name: "c", image: "i" }] } }),
    edit: (p) => void (p.spec!.containers[0].env = []),
  },
  {
    name: "adding our set-name label to a foreign pod is refused (only the reconciler adopts)",
    old: () => ({ metadata: { name: "web-5", labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "i" }] } }),
    edit: (p) => void (p.metadata!.labels![SET_NAME_LABEL] = "web"),
    denied: [`metadata.labels[${SET_NAME_LABEL}]: Forbidden: added "web"`],
  },
  // Issue 11 finding 3: pods/status used to pass whatever it carried.
  { name: "a status update passes", subResource: "status", edit: (p) => void (p.status = { phase: "Running" }) },
  {
    name: "a status update may not change an identity label",
    subResource: "status",
    edit: (p) => {
      p.metadata!.labels![POD_INDEX_LABEL] = "9";
      p.status = { phase: "Running" };
    },
    denied: [`metadata.labels[${POD_INDEX_LABEL}]: Forbidden: changed "0" to "9"`],
  },
  {
    name: "a status update may not remove the set label",
    subResource: "status",
    edit: (p) => void delete p.metadata!.labels![SET_NAME_LABEL],
    denied: [`metadata.labels[${SET_NAME_LABEL}]: Forbidden: removed "web"`],
  },
  {
    name: "a status update may not change the in-place state annotation",
    subResource: "status",
    edit: (p) => void (p.metadata!.annotations![INPLACE_STATE_ANNOTATION] = '{"revision":"evil"}'),
    denied: [`metadata.annotations[${INPLACE_STATE_ANNOTATION}]: Forbidden`],
  },
  {
    name: "pods/ephemeralcontainers may add an ephemeral container",
    subResource: "ephemeralcontainers",
    edit: (p) => void (p.spec!.ephemeralContainers = [{ name: "debug", image: "busybox" }]),
  },
  {
    name: "pods/ephemeralcontainers may not change an identity label",
    subResource: "ephemeralcontainers",
    edit: (p) => void (p.metadata!.labels![POD_NAME_LABEL] = "web-7"),
    denied: [`metadata.labels[${POD_NAME_LABEL}]`],
  },
  {
    name: "pods/resize is an in-place spec change like any other",
    subResource: "resize",
    edit: (p) => void (p.spec!.containers[0].resources = { requests: { cpu: "2" } }),
    denied: ["/spec/containers/0/resources"],
  },
];

describe("validatePodRequest on UPDATE", () => {
  for (const c of cases) {
    it(c.name, () => {
      const old = (c.old ?? stored)();
      const pod = structuredClone(old);
      c.edit(pod);
      const req = request({
        operation: "UPDATE",
        name: old.metadata?.name,
        object: pod,
        oldObject: old,
        subResource: c.subResource,
        userInfo: { username: c.user ?? "admin" },
      });
      const { response } = validatePodRequest(req, { reconcilerUsername: RECONCILER });
      expect(response.uid).toBe(req.uid);
      if (!c.denied) {
        expect(response, JSON.stringify(response.status)).toMatchObject({ allowed: true });
        return;
      }
      expect(response.allowed).toBe(false);
      expect(response.status).toMatchObject({ code: 422, reason: "Invalid" });
      expect(response.status?.message).toMatch(new RegExp(`^Pod "${old.metadata!.name}" is invalid: `));
      for (const d of c.denied) expect(response.status?.message).toContain(d);
      expect(response.status?.details?.causes?.length).toBeGreaterThanOrEqual(1);
    });
  }

  it("the spec message says what to do instead", () => {
    const old = stored();
    const pod = structuredClone(old);
    pod.spec!.containers[0].env = [];
    const { response } = validatePodRequest(request({ operation: "UPDATE", object: pod, oldObject: old }), { reconcilerUsername: RECONCILER });
    expect(response.status?.message).toBe(
      'Pod "web-0" is invalid: spec: Forbidden: a pod of Ordinal StatefulSet "web" may change only spec.containers[*].image and ' +
        "spec.initContainers[*].image; this update changes /spec/containers/0/env (change the StatefulSet's template instead)",
    );
    expect(response.status?.details?.causes).toEqual([{ reason: "FieldValueForbidden", field: "spec", message: expect.stringContaining("/spec/containers/0/env") }]);
  });

});


describe("validatePodRequest: the spec message lists at most 20 pointers", () => {
  it("and says how many there were in all", () => {
    const old = stored();
    const pod = structuredClone(old);
    pod.spec!.containers[0].env = Array.from({ length: 25 }, (_, i) => ({ name: `E${i}`, value: "v" }));
    old.spec!.containers[0].env = Array.from({ length: 25 }, (_, i) => ({ name: `E${i}`, value: "w" }));
    const msg = validatePodRequest(request({ operation: "UPDATE", object: pod, oldObject: old }), { reconcilerUsername: RECONCILER }).response.status?.message ?? "";
    expect(msg).toContain("/spec/containers/0/env/0/value");
    expect(msg).toContain(", … (25 in all)");
    expect(msg.match(/\/spec\/containers\/0\/env\/\d+\/value/g)).toHaveLength(20);
  });
});

describe("validatePodRequest: membership and ownerReferences (issue 11 finding 2)", () => {
  const decide = (old: Pod, pod: Pod, user = "admin", subResource?: string) =>
    validatePodRequest(request({ operation: "UPDATE", object: pod, oldObject: old, subResource, userInfo: { username: user } }), { reconcilerUsername: RECONCILER }).response;
  const foreignController = { apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "rs-uid", controller: true };

  it("the three-step escape is closed at its first step: nobody but the reconciler drops or swaps Ordinal's controller reference", () => {
    const old = stored();
    const dropped = structuredClone(old);
    dropped.metadata!.ownerReferences = [];
    expect(decide(old, dropped)).toMatchObject({ allowed: false, status: { message: expect.stringContaining("metadata.ownerReferences: Forbidden: removed Ordinal's owner reference") } });
    const swapped = structuredClone(old);
    swapped.metadata!.ownerReferences = [foreignController];
    expect(decide(old, swapped)).toMatchObject({ allowed: false, status: { message: expect.stringContaining("changed Ordinal's owner reference") } });
    const demoted = structuredClone(old);
    demoted.metadata!.ownerReferences![0].controller = false;
    expect(decide(old, demoted).allowed).toBe(false);
    expect(decide(old, swapped, RECONCILER).allowed).toBe(true);
  });

  it("managed-ness comes from the old OR the new object", () => {
    // Had step one passed: old controlled by something else, the new one claims to be Ordinal's.
    const old = stored();
    old.metadata!.ownerReferences = [foreignController];
    const claimed = stored();
    claimed.spec!.containers[0].env = [{ name: "A", value: "1" }];
    const r = decide(old, claimed);
    expect(r.allowed).toBe(false);
    expect(r.status?.message).toContain("added Ordinal's owner reference");
    expect(r.status?.message).toContain("/spec/containers/0/env");
  });

  it("the garbage collector may remove Ordinal's reference (orphaning), not add or change it", () => {
    const old = stored();
    const orphaned = structuredClone(old);
    orphaned.metadata!.ownerReferences = [];
    for (const gc of GARBAGE_COLLECTOR_USERNAMES) {
      expect(decide(old, orphaned, gc).allowed).toBe(true);
      expect(decide(orphaned, old, gc).allowed).toBe(false);
    }
  });

  it("unrelated ownerReferences may change", () => {
    const old = stored();
    const pod = structuredClone(old);
    pod.metadata!.ownerReferences!.push({ apiVersion: "v1", kind: "ConfigMap", name: "c", uid: "c-uid" });
    expect(decide(old, pod).allowed).toBe(true);
  });
});

describe("validatePodRequest: only the reconciler writes the in-place state (issue 9 rule)", () => {
  const withCondition = (status: "True" | "False", reason?: string): Pod => {
    const p = stored();
    p.status = { conditions: [{ type: "Ready", status: "True" }, { type: INPLACE_READY_CONDITION, status, ...(reason ? { reason } : {}) }] };
    return p;
  };
  const decide = (req: Parameters<typeof request>[0]) => validatePodRequest(request(req), { reconcilerUsername: RECONCILER }).response;

  it("pods/status: the InPlaceUpdateReady condition is the reconciler's (set, flipped or removed)", () => {
    const old = withCondition("False", "StartInPlaceUpdate");
    for (const pod of [withCondition("True"), stored()]) {
      expect(decide({ operation: "UPDATE", subResource: "status", object: pod, oldObject: old, userInfo: { username: "system:node:n1" } })).toMatchObject({
        allowed: false,
        status: { message: expect.stringContaining(`status.conditions[${INPLACE_READY_CONDITION}]: Forbidden`) },
      });
      expect(decide({ operation: "UPDATE", subResource: "status", object: pod, oldObject: old, userInfo: { username: RECONCILER } }).allowed).toBe(true);
    }
  });

  it("pods/status: a kubelet update that keeps the condition (any key order) passes", () => {
    const old = withCondition("False", "StartInPlaceUpdate");
    const pod = structuredClone(old);
    pod.status!.conditions = [{ reason: "StartInPlaceUpdate", status: "False", type: INPLACE_READY_CONDITION }, { type: "Ready", status: "False" }];
    expect(decide({ operation: "UPDATE", subResource: "status", object: pod, oldObject: old, userInfo: { username: "system:node:n1" } }).allowed).toBe(true);
  });

  it("CREATE: a pod may not arrive with the in-place state annotation, ours or not", () => {
    const pod: Pod = { metadata: { name: "x", annotations: { [INPLACE_STATE_ANNOTATION]: "{}" } }, spec: { containers: [{ name: "c", image: "i" }] } };
    expect(decide({ operation: "CREATE", object: pod }).allowed).toBe(false);
    expect(decide({ operation: "CREATE", object: pod, userInfo: { username: RECONCILER } }).allowed).toBe(true);
    expect(decide({ operation: "CREATE", object: { metadata: { name: "x" } } }).allowed).toBe(true);
  });

  it("CREATE: a pod with its identity labels (from the mutating hook) and a set reference passes", () => {
    const pod = newStatefulSetPod(sampleSet(), 1, "r1");
    expect(decide({ operation: "CREATE", object: pod }).allowed).toBe(true);
  });

  it("pods/binding: a Binding may not carry the annotation (the apiserver copies it onto the pod)", () => {
    const binding = (annotations?: Record<string, string>) => ({
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name: "web-0", ...(annotations ? { annotations } : {}) },
      target: { kind: "Node", name: "n1" },
    });
    const kind = { group: "", version: "v1", kind: "Binding" };
    const resource = { group: "", version: "v1", resource: "pods" };
    expect(decide({ operation: "CREATE", kind, resource, subResource: "binding", object: binding({ [INPLACE_STATE_ANNOTATION]: "{}" }), userInfo: { username: "system:kube-scheduler" } })).toMatchObject({
      allowed: false,
      status: { code: 422, message: expect.stringContaining(`metadata.annotations[${INPLACE_STATE_ANNOTATION}]`) },
    });
    expect(decide({ operation: "CREATE", kind, resource, subResource: "binding", object: binding({ other: "x" }), userInfo: { username: "system:kube-scheduler" } }).allowed).toBe(true);
    expect(decide({ operation: "CREATE", kind, resource, subResource: "binding", object: binding() }).allowed).toBe(true);
    // The denial names the Binding, and the reconciler itself may bind with it.
    expect(decide({ operation: "CREATE", kind, resource, subResource: "binding", object: binding({ [INPLACE_STATE_ANNOTATION]: "{}" }) }).status?.message).toMatch(/^Binding "web-0" is invalid: /);
    expect(decide({ operation: "CREATE", kind, resource, subResource: "binding", object: binding({ [INPLACE_STATE_ANNOTATION]: "{}" }), userInfo: { username: RECONCILER } }).allowed).toBe(true);
  });

  it("1.20's pods/ephemeralcontainers (an EphemeralContainers object) passes: it cannot write metadata", () => {
    const kind = { group: "", version: "v1", kind: "EphemeralContainers" };
    const obj = { metadata: { name: "web-0" }, ephemeralContainers: [{ name: "d", image: "busybox" }] };
    expect(decide({ operation: "UPDATE", kind, subResource: "ephemeralcontainers", object: obj, oldObject: obj }).allowed).toBe(true);
  });
});

describe("changedSpecPointers", () => {
  const table: [string, unknown, unknown, string[]][] = [
    ["nothing", { containers: [{ name: "a", image: "x" }] }, { containers: [{ name: "a", image: "x" }] }, []],
    ["image only", { containers: [{ name: "a", image: "x" }] }, { containers: [{ name: "a", image: "y" }] }, []],
    ["image added where there was none", { containers: [{ name: "a" }] }, { containers: [{ name: "a", image: "y" }] }, []],
    ["container renamed", { containers: [{ name: "a", image: "x" }] }, { containers: [{ name: "b", image: "x" }] }, ["/spec/containers/0/name"]],
    ["container removed", { containers: [{ name: "a" }, { name: "b" }] }, { containers: [{ name: "a" }] }, ["/spec/containers/1"]],
    ["keys with / and ~ are escaped", { nodeSelector: {} }, { nodeSelector: { "a/b~c": "1" } }, ["/spec/nodeSelector/a~1b~0c"]],
    ["spec missing on one side", undefined, { containers: [] }, ["/spec/containers"]],
  ];
  for (const [name, a, b, want] of table) {
    it(name, () => expect(changedSpecPointers(a, b)).toEqual(want));
  }
});
