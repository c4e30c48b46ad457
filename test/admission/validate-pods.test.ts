import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { changedSpecPointers, validatePodUpdate } from "../../src/admission/validate-pods.ts";
import { INPLACE_STATE_ANNOTATION, POD_INDEX_LABEL, POD_NAME_LABEL, REVISION_LABEL, SET_NAME_LABEL } from "../../src/core/constants.ts";
import { newStatefulSetPod } from "../../src/core/pod.ts";
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
  {
    name: "a status update passes whatever it carries",
    subResource: "status",
    edit: (p) => {
      p.metadata!.labels![POD_INDEX_LABEL] = "9";
      p.status = { phase: "Running" };
    },
  },
  {
    name: "other subresources pass",
    subResource: "ephemeralcontainers",
    edit: (p) => void (p.spec!.ephemeralContainers = [{ name: "debug", image: "busybox" }]),
  },
];

describe("validatePodUpdate", () => {
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
      const { response } = validatePodUpdate(req, { reconcilerUsername: RECONCILER });
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
    const { response } = validatePodUpdate(request({ operation: "UPDATE", object: pod, oldObject: old }), { reconcilerUsername: RECONCILER });
    expect(response.status?.message).toBe(
      'Pod "web-0" is invalid: spec: Forbidden: a pod of Ordinal StatefulSet "web" may change only spec.containers[*].image and ' +
        "spec.initContainers[*].image; this update changes /spec/containers/0/env (change the StatefulSet's template instead)",
    );
    expect(response.status?.details?.causes).toEqual([{ reason: "FieldValueForbidden", field: "spec", message: expect.stringContaining("/spec/containers/0/env") }]);
  });

  it("a status update of a managed pod hints a reconcile of its set; a dry run does not", () => {
    const old = stored();
    const req = (dryRun: boolean) =>
      request({ operation: "UPDATE", subResource: "status", namespace: "default", object: old, oldObject: old, dryRun, userInfo: { username: "system:node:n1" } });
    expect(validatePodUpdate(req(false), { reconcilerUsername: RECONCILER }).reconcileHint).toEqual({ namespace: "default", setName: "web" });
    expect(validatePodUpdate(req(true), { reconcilerUsername: RECONCILER }).reconcileHint).toBeUndefined();
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
