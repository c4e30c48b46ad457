/**
 * What a pass keeps of each object (src/objects/projection.ts, issue 35). The guard that the
 * planner reads nothing the projection drops is test/support/projection-check.ts, run on every
 * step of the seeded random runs; these cases pin the bounds themselves.
 */
import { describe, expect, it } from "vitest";
import { allLabels, labelKeys, MAX_ANNOTATION_CHARS, MAX_MESSAGE_CHARS, projectClaim, projectPod, projectRevision, selectedLabelKeys, selectorKeys } from "../../src/objects/projection.ts";

const long = (n: number) => "x".repeat(n);

describe("projectPod", () => {
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "web-0",
      namespace: "ns",
      uid: "u",
      resourceVersion: "7",
      labels: { app: "web", "ordinal.dev/statefulset": "web", "controller-revision-hash": "web-1", "statefulset.kubernetes.io/pod-name": "web-0", "apps.kubernetes.io/pod-index": "0", tenant: "t" },
      annotations: { "ordinal.dev/inplace-update-state": "{}", "ordinal.dev/image": long(MAX_ANNOTATION_CHARS + 1), tenant: long(100_000) },
      ownerReferences: [{ apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet", name: "web", uid: "s", controller: true }],
      finalizers: ["a/b"],
      managedFields: [{ manager: "x", fieldsV1: { big: long(10_000) } }],
    },
    spec: {
      hostname: "web-0",
      subdomain: "web",
      nodeName: "n1",
      readinessGates: [{ conditionType: "InPlaceUpdateReady" }, { conditionType: "tenant.io/gate" }],
      containers: [{ name: "c", image: "img:1", env: [{ name: "E", value: long(1_000_000) }], command: [long(1000)] }],
      volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data-web-0" } }, { name: "cfg", configMap: { name: long(200) } }],
    },
    status: {
      phase: "Running",
      startTime: "2026-11-21T12:00:00Z",
      conditions: [{ type: "Ready", status: "True", message: long(5000), lastTransitionTime: "2026-11-21T12:00:01Z" }, { type: "tenant.io/gate", status: "True" }],
      containerStatuses: [{ name: "c", image: "img:1", imageID: "id", containerID: "cid", ready: true, restartCount: 2, state: { waiting: { reason: "CrashLoopBackOff", message: long(5000) } }, lastState: { terminated: { message: long(4096) } } }],
    },
  };

  it("keeps identity, Ordinal's labels and those of the sets, its own annotations (bounded), claim volumes, names and images, state; drops the rest", () => {
    expect(projectPod(pod, labelKeys(new Set(["app"])))).toEqual({
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name: "web-0",
        namespace: "ns",
        uid: "u",
        resourceVersion: "7",
        labels: { app: "web", "ordinal.dev/statefulset": "web", "controller-revision-hash": "web-1", "statefulset.kubernetes.io/pod-name": "web-0", "apps.kubernetes.io/pod-index": "0" },
        annotations: { "ordinal.dev/inplace-update-state": "{}", "ordinal.dev/image": "" },
        ownerReferences: pod.metadata.ownerReferences,
        finalizers: ["a/b"],
      },
      spec: { hostname: "web-0", subdomain: "web", nodeName: "n1", readinessGates: [{ conditionType: "InPlaceUpdateReady" }], containers: [{ name: "c", image: "img:1" }], volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data-web-0" } }] },
      status: {
        phase: "Running",
        startTime: "2026-11-21T12:00:00Z",
        conditions: [{ type: "Ready", status: "True", message: long(MAX_MESSAGE_CHARS), lastTransitionTime: "2026-11-21T12:00:01Z" }],
        containerStatuses: [{ name: "c", image: "img:1", imageID: "id", containerID: "cid", ready: true, restartCount: 2, state: { waiting: { reason: "CrashLoopBackOff", message: long(MAX_MESSAGE_CHARS) } } }],
      },
    });
  });

  it("keeps every label with allLabels (the watch cache's mirror, bounded by its bytes budget)", () => {
    expect(projectPod(pod, allLabels).metadata?.labels).toEqual(pod.metadata.labels);
  });

  it("copes with objects of any shape (tenants' input)", () => {
    for (const junk of [null, 1, "x", [], { metadata: 1, spec: [], status: "x" }, { spec: { containers: [1, null, { name: 2 }] } }]) expect(() => projectPod(junk, allLabels)).not.toThrow();
  });
});

describe("projectClaim and projectRevision", () => {
  it("a claim keeps identity, owners, class, requested storage, phase and capacity", () => {
    const claim = { metadata: { name: "data-web-0", labels: { "ordinal.dev/statefulset": "web", tenant: "t" }, annotations: { tenant: long(1000) } }, spec: { storageClassName: "fast", accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } }, status: { phase: "Bound", capacity: { storage: "1Gi" }, conditions: [{ type: "Resizing" }] } };
    expect(projectClaim(claim, labelKeys(new Set()))).toEqual({ metadata: { name: "data-web-0", labels: { "ordinal.dev/statefulset": "web" } }, spec: { storageClassName: "fast", resources: { requests: { storage: "1Gi" } } }, status: { phase: "Bound", capacity: { storage: "1Gi" } } });
  });

  it("a revision keeps its data whole (the template Ordinal wrote: bounded by the apiserver's object size)", () => {
    const data = { spec: { template: { spec: { containers: [{ name: "c", image: "i", env: [{ name: "E", value: "v" }] }] } } } };
    expect(projectRevision({ metadata: { name: "web-1", annotations: { a: "b" } }, revision: 3, data }, labelKeys(new Set()))).toEqual({ metadata: { name: "web-1" }, revision: 3, data });
  });
});

describe("the label keys a namespace's sets read", () => {
  it("selectedLabelKeys: matchLabels, matchExpressions and lifecycle hooks' labelsHandler keys", () => {
    const set = { spec: { selector: { matchLabels: { app: "a" }, matchExpressions: [{ key: "tier", operator: "In", values: ["x"] }] }, lifecycle: { preDelete: { labelsHandler: { "hook.io/block": "true" } } } } };
    expect([...selectedLabelKeys([set, null, { spec: 1 }])].sort()).toEqual(["app", "hook.io/block", "tier"]);
  });

  it("selectedLabelKeys: the roles' labelKey (the role is read on every pod: core/roles.ts)", () => {
    const set = { spec: { selector: { matchLabels: { app: "a" } }, roles: { labelKey: "spilo-role", updateOrder: ["replica", "master"] } } };
    expect([...selectedLabelKeys([set])].sort()).toEqual(["app", "spilo-role"]);
  });

  it("projectPod keeps the switchover request and the role label", () => {
    const pod = { metadata: { name: "web-2", labels: { "spilo-role": "master", other: "x" }, annotations: { "ordinal.dev/switchover-requested": "2026-12-05T01:00:00Z", big: "y" } } };
    const p = projectPod(pod, labelKeys(new Set(["spilo-role"])));
    expect(p.metadata).toEqual({ name: "web-2", labels: { "spilo-role": "master" }, annotations: { "ordinal.dev/switchover-requested": "2026-12-05T01:00:00Z" } });
  });

  it("selectedLabelKeys: the keys a priorityStrategy orders by (issue 33: without them every pod ties)", () => {
    const weights = { weightPriority: [{ weight: 5, matchSelector: { matchLabels: { role: "replica" }, matchExpressions: [{ key: "zone", operator: "Exists" }] } }, "junk"] };
    const orders = { orderPriority: [{ orderedKey: "example.io/order" }, { orderedKey: 7 }] };
    const set = (priorityStrategy: unknown) => ({ spec: { updateStrategy: { rollingUpdate: { unorderedUpdate: { priorityStrategy } } } } });
    expect([...selectedLabelKeys([set(weights), set(orders), set(null)])].sort()).toEqual(["example.io/order", "role", "zone"]);
  });

  it.each([
    ["app=web,tier!=db", ["app", "tier"]],
    ["app in (a, b),!gone, zone notin (x,y), has", ["app", "gone", "zone", "has"]],
    ["a==b", ["a"]],
  ])("selectorKeys(%j)", (selector, keys) => {
    expect([...selectorKeys(selector)]).toEqual(keys);
  });
});
