/** Pods: defaults and admission on create, the update rules, binding, graceful deletion. */
import { describe, expect, it } from "vitest";
import { PODS, pod, setup, type Call } from "./helpers.ts";

const UPDATE_PREFIX =
  'Pod "web-0" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds` or `spec.tolerations` (only additions to existing tolerations)';

async function bound(call: Call, name = "web-0", spec: Record<string, unknown> = {}) {
  await call("POST", "/api/v1/nodes", { metadata: { name: "node-1" } });
  await call("POST", PODS, pod(name, {}, spec));
  const b = await call("POST", `${PODS}/${name}/binding`, { apiVersion: "v1", kind: "Binding", metadata: { name }, target: { kind: "Node", name: "node-1" } });
  expect(b.status).toBe(201);
}

describe("pod create", () => {
  it("applies defaults and the ServiceAccount, DefaultTolerationSeconds and Priority admission plugins", async () => {
    const { call, server } = setup();
    const r = await call("POST", PODS, pod("p", {}, { containers: [{ name: "c", image: "nginx" }, { name: "d", image: "nginx:1.25" }] }));
    const token = server.get<{ secrets: { name: string }[] }>("/api/v1/namespaces/default/serviceaccounts/default")!.secrets[0].name;
    expect(r.body.spec).toEqual({
      volumes: [{ name: token, secret: { secretName: token, defaultMode: 420 } }],
      containers: [
        {
          name: "c",
          image: "nginx",
          resources: {},
          volumeMounts: [{ name: token, readOnly: true, mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" }],
          terminationMessagePath: "/dev/termination-log",
          terminationMessagePolicy: "File",
          imagePullPolicy: "Always",
        },
        {
          name: "d",
          image: "nginx:1.25",
          resources: {},
          volumeMounts: [{ name: token, readOnly: true, mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" }],
          terminationMessagePath: "/dev/termination-log",
          terminationMessagePolicy: "File",
          imagePullPolicy: "IfNotPresent",
        },
      ],
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      serviceAccountName: "default",
      serviceAccount: "default",
      securityContext: {},
      schedulerName: "default-scheduler",
      tolerations: [
        { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
        { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      ],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: "PreemptLowerPriority",
    });
    expect(r.body.status).toEqual({ phase: "Pending", qosClass: "BestEffort" });
  });

  it("does not mount the token when automountServiceAccountToken is false", async () => {
    const { call } = setup();
    const r = await call("POST", PODS, pod("p", {}, { automountServiceAccountToken: false }));
    expect(r.body.spec.volumes).toBeUndefined();
    expect(r.body.spec.containers[0].volumeMounts).toBeUndefined();
  });

  it("computes the QoS class", async () => {
    const { call } = setup();
    const res = (r: object) => ({ containers: [{ name: "c", image: "i", resources: r }] });
    expect((await call("POST", PODS, pod("g", {}, res({ limits: { cpu: "1", memory: "1Gi" } })))).body.status.qosClass).toBe("Guaranteed");
    expect((await call("POST", PODS, pod("b", {}, res({ requests: { cpu: "1" } })))).body.status.qosClass).toBe("Burstable");
  });

  it.each([
    [{ containers: [] }, "spec.containers: Required value"],
    [{ containers: [{ name: "c", image: "" }] }, "spec.containers[0].image: Required value"],
    [{ containers: [{ name: "", image: "i" }] }, "spec.containers[0].name: Required value"],
    [{ containers: [{ name: "C", image: "i" }] }, "spec.containers[0].name: Invalid value: \"C\": a lowercase RFC 1123 label must consist"],
    [{ restartPolicy: "Sometimes" }, 'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'],
    [{ containers: [{ name: "c", image: "i", ports: [{ containerPort: 70000 }] }] }, "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive"],
  ])("refuses %j", async (spec, message) => {
    const { call } = setup();
    const r = await call("POST", PODS, pod("p", {}, spec));
    expect(r.status).toBe(422);
    expect(r.body.message).toContain(message);
  });
});

describe("pod update validation", () => {
  it.each([
    ["image", [{ op: "replace", path: "/spec/containers/0/image", value: "img:2" }], 200],
    ["activeDeadlineSeconds (set)", [{ op: "add", path: "/spec/activeDeadlineSeconds", value: 30 }], 200],
    ["an added toleration", [{ op: "add", path: "/spec/tolerations/-", value: { key: "k", operator: "Exists" } }], 200],
    ["a toleration's seconds", [{ op: "replace", path: "/spec/tolerations/0/tolerationSeconds", value: 10 }], 200],
    ["labels and annotations", [{ op: "add", path: "/metadata/annotations", value: { a: "b" } }], 200],
    ["env", [{ op: "add", path: "/spec/containers/0/env", value: [{ name: "A", value: "b" }] }], 422],
    ["nodeName", [{ op: "add", path: "/spec/nodeName", value: "n" }], 422],
    ["a removed toleration", [{ op: "remove", path: "/spec/tolerations/0" }], 422],
    ["terminationGracePeriodSeconds", [{ op: "replace", path: "/spec/terminationGracePeriodSeconds", value: 5 }], 422],
  ])("%s -> %i", async (_what, patch, code) => {
    const { call } = setup();
    await call("POST", PODS, pod("web-0"));
    const r = await call("PATCH", `${PODS}/web-0`, patch, "application/json-patch+json");
    expect(r.status).toBe(code);
    if (code === 422) {
      expect(r.body.reason).toBe("Invalid");
      expect(r.body.details.causes[0].field).toMatch(/^spec/);
    }
  });

  it("answers the real message, with a diff after it", async () => {
    const { call } = setup();
    await call("POST", PODS, pod("web-0"));
    const r = await call("PATCH", `${PODS}/web-0`, [{ op: "add", path: "/spec/containers/0/env", value: [{ name: "A", value: "b" }] }], "application/json-patch+json");
    expect(r.body.message.startsWith(`${UPDATE_PREFIX}\n`)).toBe(true);
    expect(r.body.details).toMatchObject({ name: "web-0", kind: "Pod", causes: [{ reason: "FieldValueForbidden", field: "spec" }] });
    expect(r.body.details.causes[0].message.startsWith("Forbidden: pod updates may not change fields other than")).toBe(true);
  });

  it("activeDeadlineSeconds may only decrease", async () => {
    const { call } = setup();
    await call("POST", PODS, pod("web-0", {}, { activeDeadlineSeconds: 30 }));
    const up = await call("PATCH", `${PODS}/web-0`, { spec: { activeDeadlineSeconds: 60 } });
    expect(up.body.message).toBe('Pod "web-0" is invalid: spec.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value');
    expect((await call("PATCH", `${PODS}/web-0`, { spec: { activeDeadlineSeconds: 10 } })).status).toBe(200);
  });

  it("containers may not be added or removed", async () => {
    const { call } = setup();
    await call("POST", PODS, pod("web-0"));
    const r = await call("PATCH", `${PODS}/web-0`, [{ op: "add", path: "/spec/containers/-", value: { name: "d", image: "i" } }], "application/json-patch+json");
    expect(r.body.message).toBe('Pod "web-0" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers');
  });

  it("a PUT that omits defaulted fields changes nothing (defaults are re-applied)", async () => {
    const { call } = setup();
    const c = await call("POST", PODS, pod("web-0"));
    const { terminationGracePeriodSeconds: _t, dnsPolicy: _d, ...spec } = c.body.spec;
    const r = await call("PUT", `${PODS}/web-0`, { ...c.body, spec });
    expect(r.status).toBe(200);
    expect(r.body.metadata.resourceVersion).toBe(c.body.metadata.resourceVersion);
  });
});

describe("binding", () => {
  it("sets spec.nodeName and the PodScheduled condition, once", async () => {
    const { call } = setup();
    await bound(call);
    const p = await call("GET", `${PODS}/web-0`);
    expect(p.body.spec.nodeName).toBe("node-1");
    expect(p.body.status.conditions).toEqual([{ type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: "2026-01-02T03:04:05Z" }]);
    const again = await call("POST", `${PODS}/web-0/binding`, { metadata: { name: "web-0" }, target: { name: "node-2" } });
    expect(again.body.message).toBe('Operation cannot be fulfilled on pods/binding "web-0": pod web-0 is already assigned to node "node-1"');
  });

  it("refuses a binding without target name or of another pod", async () => {
    const { call } = setup();
    await call("POST", PODS, pod("p"));
    expect((await call("POST", `${PODS}/p/binding`, { metadata: { name: "p" }, target: {} })).body.message).toBe('Binding "p" is invalid: target.name: Required value');
    expect((await call("POST", `${PODS}/p/binding`, { metadata: { name: "q" }, target: { name: "n" } })).status).toBe(400);
    expect((await call("POST", `${PODS}/nope/binding`, { metadata: { name: "nope" }, target: { name: "n" } })).status).toBe(404);
  });
});

describe("graceful pod deletion", () => {
  it("an unscheduled pod goes at once", async () => {
    const { call } = setup();
    await call("POST", PODS, pod("p"));
    const d = await call("DELETE", `${PODS}/p`);
    expect(d.body.metadata).toMatchObject({ deletionTimestamp: "2026-01-02T03:04:05Z", deletionGracePeriodSeconds: 0 });
    expect((await call("GET", `${PODS}/p`)).status).toBe(404);
  });

  it("a scheduled pod gets deletionTimestamp = now + grace and stays until deleted with grace 0", async () => {
    const { call, clock } = setup();
    await bound(call, "web-0", { terminationGracePeriodSeconds: 20 });
    const d = await call("DELETE", `${PODS}/web-0`);
    expect(d.status).toBe(200);
    expect(d.body.metadata).toMatchObject({ deletionTimestamp: "2026-01-02T03:04:25Z", deletionGracePeriodSeconds: 20 });
    clock.advance(60);
    expect((await call("GET", `${PODS}/web-0`)).status).toBe(200);
    const again = await call("DELETE", `${PODS}/web-0`);
    expect(again.body.metadata.resourceVersion).toBe(d.body.metadata.resourceVersion);
    const shorter = await call("DELETE", `${PODS}/web-0`, { gracePeriodSeconds: 5 });
    expect(shorter.body.metadata).toMatchObject({ deletionTimestamp: "2026-01-02T03:04:10Z", deletionGracePeriodSeconds: 5 });
    const final = await call("DELETE", `${PODS}/web-0`, { gracePeriodSeconds: 0, preconditions: { uid: d.body.metadata.uid } });
    expect(final.body.metadata.deletionGracePeriodSeconds).toBe(0);
    expect((await call("GET", `${PODS}/web-0`)).status).toBe(404);
  });

  it("updates of a terminating pod keep its deletionTimestamp", async () => {
    const { call } = setup();
    await bound(call);
    const d = await call("DELETE", `${PODS}/web-0`);
    const u = await call("PATCH", `${PODS}/web-0`, { metadata: { labels: { x: "1" }, deletionTimestamp: null } });
    expect(u.body.metadata.deletionTimestamp).toBe(d.body.metadata.deletionTimestamp);
  });

  it("a finished pod goes at once even when scheduled; so does one deleted with a negative grace (1.20)", async () => {
    const { call } = setup();
    await bound(call);
    await call("PATCH", `${PODS}/web-0/status`, { status: { phase: "Failed" } });
    expect((await call("DELETE", `${PODS}/web-0`)).body.metadata.deletionGracePeriodSeconds).toBe(0);
    await call("POST", PODS, pod("web-1", {}, { nodeName: "node-1" }));
    const neg = await call("DELETE", `${PODS}/web-1?gracePeriodSeconds=-5`);
    expect(neg.body.metadata.deletionGracePeriodSeconds).toBe(-5);
    expect((await call("GET", `${PODS}/web-1`)).status).toBe(404);
  });

  it("a scheduled pod with a finalizer waits for both the kubelet and the finalizer", async () => {
    const { call } = setup();
    await call("POST", "/api/v1/nodes", { metadata: { name: "n" } });
    await call("POST", PODS, pod("p", { finalizers: ["example.com/f"] }, { nodeName: "n" }));
    await call("DELETE", `${PODS}/p`);
    await call("PATCH", `${PODS}/p`, { metadata: { finalizers: null } });
    expect((await call("GET", `${PODS}/p`)).status).toBe(200);
    await call("POST", PODS.replace("pods", "configmaps"), { metadata: { name: "unrelated" } });
    const last = await call("DELETE", `${PODS}/p?gracePeriodSeconds=0`);
    expect(last.status).toBe(200);
    expect((await call("GET", `${PODS}/p`)).status).toBe(404);
  });
});
