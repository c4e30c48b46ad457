import { describe, expect, it } from "vitest";
import { wakeOf } from "../../src/admission/wakes.ts";
import { PULLER_LABEL, SET_NAME_LABEL } from "../../src/objects/constants.ts";
import { newStatefulSetPod } from "../../src/objects/pod.ts";
import { WEBHOOK_PATHS } from "../../src/webhook-config/webhook-configs.ts";
import { imageListKind, osts, RECONCILER, request, review, sampleSet } from "./helpers.ts";
import { readReview, testApp } from "./test-app.ts";
import type { Wake } from "../../src/admission/wakes.ts";

type Fields = Parameters<typeof request>[0];
const wake = (f: Fields, allowed = true) => wakeOf(request(f), allowed, { reconcilerUsername: RECONCILER });
const pod = () => newStatefulSetPod(sampleSet(), 0);
const node = { userInfo: { username: "system:node:n1" } };
const scaleKind = { group: "autoscaling", version: "v1", kind: "Scale" };
const setsResource = { group: "apps.ordinal.dev", version: "v1", resource: "statefulsets" };
const claim = (labels: Record<string, string>) => ({ metadata: { name: "data-web-0", namespace: "default", labels } });
/** readyPod returns pod web-0 as the kubelet reports it Ready. */
const readyPod = () => ({ ...pod(), status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] } });
/** withContainer returns pod web-0 Ready whose container `c` reports `status` (the kubelet's containerStatuses). */
const withContainer = (status: Record<string, unknown>) => ({ ...readyPod(), status: { ...readyPod().status, containerStatuses: [{ name: "c", restartCount: 1, ...status }] } });
const withRv = <T extends { metadata?: object }>(o: T, resourceVersion: string): T => ({ ...o, metadata: { ...o.metadata, resourceVersion } });
const puller = { metadata: { name: "pull-x", namespace: "default", labels: { [PULLER_LABEL]: "true" } } };

describe("wakeOf: which set an admission wakes", () => {
  it.each<[string, Fields, Wake | undefined]>([
    ["a set's create: its name only, never its selector (the orphan lookup uses the stored set's)", { kind: osts, name: "web", object: sampleSet() }, { namespace: "default", name: "web", reason: "set", write: { resource: "statefulsets", name: "web", operation: "CREATE" } }],
    ["a set's update", { kind: osts, operation: "UPDATE", name: "web", object: sampleSet(), oldObject: withRv(sampleSet(), "41") }, { namespace: "default", name: "web", reason: "set", write: { resource: "statefulsets", name: "web", operation: "UPDATE", resourceVersion: "41" } }],
    ["a set's delete (oldObject only)", { kind: osts, operation: "DELETE", name: "web", oldObject: sampleSet() }, { namespace: "default", name: "web", reason: "set", write: { resource: "statefulsets", name: "web", operation: "DELETE" } }],
    ["a set's scale", { kind: scaleKind, resource: setsResource, subResource: "scale", operation: "UPDATE", name: "web", object: { metadata: { name: "web" } }, oldObject: { metadata: { name: "web", resourceVersion: "7" } } }, { namespace: "default", name: "web", reason: "scale", write: { resource: "statefulsets", name: "web", operation: "UPDATE", resourceVersion: "7" } }],
    ["a set's status (someone else's write): none", { kind: osts, subResource: "status", operation: "UPDATE", name: "web", object: sampleSet(), oldObject: sampleSet() }, undefined],
    ["a managed pod's create", { name: "web-0", object: pod() }, { namespace: "default", name: "web", reason: "pod", write: { resource: "pods", name: "web-0", operation: "CREATE" } }],
    ["a managed pod's status, in the pod's namespace", { ...node, namespace: "ns-of-request", operation: "UPDATE", subResource: "status", name: "web-0", object: readyPod(), oldObject: withRv(pod(), "12") }, { namespace: "default", name: "web", reason: "pod-status", write: { resource: "pods", name: "web-0", operation: "UPDATE", resourceVersion: "12" } }],
    // Issue 34: the kubelet's writes after an in-place restart change only containerStatuses.
    ["a managed pod's status that changes only containerStatuses (a new imageID after an in-place restart)", { ...node, operation: "UPDATE", subResource: "status", name: "web-0", object: withContainer({ imageID: "sim://img:2", image: "img:2", ready: true, state: { running: { startedAt: "2026-11-21T12:00:02Z" } } }), oldObject: withRv(withContainer({ imageID: "sim://img:1", image: "img:1", ready: true, state: { running: { startedAt: "2026-11-21T11:00:00Z" } } }), "14") }, { namespace: "default", name: "web", reason: "pod-status", write: { resource: "pods", name: "web-0", operation: "UPDATE", resourceVersion: "14" } }],
    ["a managed pod's status that changes only containerStatuses (CrashLoopBackOff)", { ...node, operation: "UPDATE", subResource: "status", name: "web-0", object: withContainer({ imageID: "sim://img:2", image: "img:2", ready: false, state: { waiting: { reason: "CrashLoopBackOff" } } }), oldObject: withRv(withContainer({ imageID: "sim://img:2", image: "img:2", ready: false, state: { running: { startedAt: "2026-11-21T12:00:02Z" } } }), "15") }, { namespace: "default", name: "web", reason: "pod-status", write: { resource: "pods", name: "web-0", operation: "UPDATE", resourceVersion: "15" } }],
    ["a managed pod's status that changes only what no plan reads (an IP): none", { ...node, operation: "UPDATE", subResource: "status", name: "web-0", object: { ...readyPod(), status: { ...readyPod().status, podIP: "10.0.0.9" } }, oldObject: readyPod() }, undefined],
    ["a managed pod's status written again unchanged: none", { ...node, operation: "UPDATE", subResource: "status", name: "web-0", object: readyPod(), oldObject: readyPod() }, undefined],
    ["a managed pod's delete", { operation: "DELETE", name: "web-0", oldObject: withRv(pod(), "13") }, { namespace: "default", name: "web", reason: "pod", write: { resource: "pods", name: "web-0", operation: "DELETE", resourceVersion: "13" } }],
    ["a pod's binding: none (the kubelet's status write follows)", { kind: { group: "", version: "v1", kind: "Binding" }, resource: { group: "", version: "v1", resource: "pods" }, subResource: "binding", object: { metadata: { name: "web-0" } } }, undefined],
    ["a pod that is not Ordinal's: none", { ...node, operation: "UPDATE", subResource: "status", object: { metadata: { name: "x" } }, oldObject: { metadata: { name: "x" } } }, undefined],
    ["a claim's create", { kind: { group: "", version: "v1", kind: "PersistentVolumeClaim" }, resource: { group: "", version: "v1", resource: "persistentvolumeclaims" }, object: claim({ [SET_NAME_LABEL]: "web" }) }, { namespace: "default", name: "web", reason: "claim", write: { resource: "persistentvolumeclaims", name: "data-web-0", operation: "CREATE" } }],
    ["a claim without the label: none", { kind: { group: "", version: "v1", kind: "PersistentVolumeClaim" }, resource: { group: "", version: "v1", resource: "persistentvolumeclaims" }, object: claim({}) }, undefined],
    ["an ImageList's delete: its namespace", { kind: imageListKind, operation: "DELETE", name: "node-1", namespace: "team", oldObject: { metadata: { name: "node-1", namespace: "team" } } }, { namespace: "team", name: "", reason: "imagelist" }],
    ["a puller pod's status: its namespace's ImageLists", { ...node, operation: "UPDATE", subResource: "status", object: puller, oldObject: puller }, { namespace: "default", name: "", reason: "imagelist" }],
    ["an apps/v1 StatefulSet: none", { kind: { group: "apps", version: "v1", kind: "StatefulSet" }, name: "web", object: sampleSet() }, undefined],
  ])("%s", (_, f, want) => {
    expect(wake(f)).toEqual(want);
  });

  it("a wake carries nothing of the request's object but names: a forged set CREATE whose selector matches every pod wakes the set by name", () => {
    const set = sampleSet() as unknown as { spec: Record<string, unknown> };
    set.spec.selector = { matchExpressions: [{ key: "app", operator: "Exists" }] };
    expect(Object.keys(wake({ kind: osts, name: "web", object: set }) ?? {}).sort()).toEqual(["name", "namespace", "reason", "write"]);
  });

  it("the pod's namespace, else the request's, else default", () => {
    const p = pod();
    delete p.metadata!.namespace;
    const ready = { ...p, status: { phase: "Running" } };
    expect(wake({ ...node, namespace: "ns-of-request", operation: "UPDATE", subResource: "status", object: ready, oldObject: p })?.namespace).toBe("ns-of-request");
    expect(wake({ ...node, namespace: undefined, operation: "UPDATE", subResource: "status", object: ready, oldObject: p })?.namespace).toBe("default");
  });

  it.each<[string, Fields, boolean]>([
    ["a dry run", { ...node, dryRun: true, operation: "UPDATE", subResource: "status", object: readyPod(), oldObject: pod() }, true],
    ["a denied request", { ...node, operation: "UPDATE", subResource: "status", object: readyPod(), oldObject: pod() }, false],
    ["the reconciler's own write (its pass goes on anyway)", { userInfo: { username: RECONCILER }, operation: "UPDATE", subResource: "status", object: readyPod(), oldObject: pod() }, true],
    ["a name that is not an object name (selector syntax)", { kind: osts, operation: "DELETE", name: "web,metadata.namespace=x", oldObject: { metadata: { name: "web,metadata.namespace=x" } } }, true],
    ["a set label too long for a label value", { operation: "DELETE", name: "x", oldObject: { metadata: { labels: { [SET_NAME_LABEL]: "a".repeat(64) } } } }, true],
    ["a namespace that is not a DNS label", { kind: osts, operation: "DELETE", name: "web", namespace: "Bad_NS", oldObject: { metadata: { name: "web" } } }, true],
  ])("wakes nothing for %s", (_, f, allowed) => {
    expect(wake(f, allowed)).toBeUndefined();
  });
});

describe("the wake route", () => {
  it("G2: takes only what its hooks' rules send: a review they never send (a set's CREATE, a pod's status update) is a 400 and wakes nothing", async () => {
    const wakes: Wake[] = [];
    const t = await testApp({ onWake: (w) => wakes.push(w) });
    const forged = [
      request({ kind: osts, name: "web", object: sampleSet() }),
      request({ kind: osts, operation: "UPDATE", name: "web", object: sampleSet(), oldObject: sampleSet() }),
      request({ ...node, operation: "UPDATE", name: "web-0", object: readyPod(), oldObject: pod() }),
      request({ kind: imageListKind, name: "l", object: { metadata: { name: "l" } } }),
    ];
    for (const req of forged) expect((await t.post(WEBHOOK_PATHS.wake, review(req))).status).toBe(400);
    expect(wakes).toEqual([]);
    // What the rules do send still wakes: a set's delete, a pod's delete, a claim's create, a puller's status.
    const sent = [
      request({ kind: osts, operation: "DELETE", name: "web", oldObject: sampleSet() }),
      request({ operation: "DELETE", name: "web-0", oldObject: pod() }),
      request({ kind: { group: "", version: "v1", kind: "PersistentVolumeClaim" }, resource: { group: "", version: "v1", resource: "persistentvolumeclaims" }, object: claim({ [SET_NAME_LABEL]: "web" }) }),
      request({ ...node, operation: "UPDATE", subResource: "status", object: puller, oldObject: puller }),
    ];
    for (const req of sent) expect((await t.post(WEBHOOK_PATHS.wake, review(req))).status).toBe(200);
    expect(wakes.map((w) => w.reason)).toEqual(["set", "pod", "claim", "imagelist"]);
  });

  it("allows a set's scale and hands its wake to onWake", async () => {
    const wakes: Wake[] = [];
    const t = await testApp({ onWake: (w) => wakes.push(w) });
    const body = review(request({ kind: scaleKind, resource: setsResource, subResource: "scale", operation: "UPDATE", name: "web", object: { metadata: { name: "web" } }, oldObject: { metadata: { name: "web" } } }));
    const r = await readReview(await t.post(WEBHOOK_PATHS.wake, body));
    expect(r.response).toEqual({ uid: expect.any(String), allowed: true });
    expect(wakes).toEqual([{ namespace: "default", name: "web", reason: "scale", write: { resource: "statefulsets", name: "web", operation: "UPDATE" } }]);
  });
  it("a denied set wakes nothing", async () => {
    const wakes: Wake[] = [];
    const t = await testApp({ onWake: (w) => wakes.push(w) });
    const set = sampleSet();
    set.spec.replicas = -1;
    const r = await readReview(await t.post(WEBHOOK_PATHS.validateStatefulSets, review(request({ kind: osts, object: set }))));
    expect(r.response.allowed).toBe(false);
    expect(wakes).toEqual([]);
  });
});
