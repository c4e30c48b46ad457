/** The status and scale subresources: each endpoint only changes its part of the object. */
import { describe, expect, it } from "vitest";
import { OSTS, PODS, PVCS, STS, ordinalSet, pod, setup } from "./helpers.ts";

const appsSet = (name: string) => ({
  apiVersion: "apps/v1",
  kind: "StatefulSet",
  metadata: { name },
  spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "img:1" }] } } },
});

describe("status subresource isolation", () => {
  it("pods: the main endpoint ignores status; /status ignores spec, keeps labels, not ownerReferences", async () => {
    const { call } = setup();
    const c = await call("POST", PODS, { ...pod("p"), status: { phase: "Running" } });
    expect(c.body.status).toEqual({ phase: "Pending", qosClass: "BestEffort" });
    const main = await call("PATCH", `${PODS}/p`, { status: { phase: "Failed" }, metadata: { labels: { a: "1" } } });
    expect(main.body.status.phase).toBe("Pending");
    expect(main.body.metadata.labels).toEqual({ a: "1" });
    const st = await call("PUT", `${PODS}/p/status`, {
      ...main.body,
      metadata: { ...main.body.metadata, labels: { a: "2" }, ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "x", uid: "u" }] },
      spec: { ...main.body.spec, containers: [{ ...main.body.spec.containers[0], image: "img:2" }] },
      status: { phase: "Running" },
    });
    expect(st.status).toBe(200);
    expect(st.body.status.phase).toBe("Running");
    expect(st.body.spec.containers[0].image).toBe("img:1");
    expect(st.body.metadata.labels).toEqual({ a: "2" });
    expect(st.body.metadata.ownerReferences).toBeUndefined();
  });

  it("PUT /status replaces the whole status: conditions not sent are dropped", async () => {
    const { call } = setup();
    await call("POST", PODS, pod("p"));
    await call("PATCH", `${PODS}/p/status`, { status: { conditions: [{ type: "InPlaceUpdateReady", status: "True" }] } });
    const g = await call("GET", `${PODS}/p`);
    const put = await call("PUT", `${PODS}/p/status`, { ...g.body, status: { phase: "Running" } });
    expect(put.body.status.conditions).toBeUndefined();
  });

  it("strategic merge patch on /status merges conditions by type", async () => {
    const { call } = setup();
    await call("POST", PODS, pod("p"));
    await call("PATCH", `${PODS}/p/status`, { status: { conditions: [{ type: "A", status: "True" }] } }, "application/strategic-merge-patch+json");
    const r = await call("PATCH", `${PODS}/p/status`, { status: { conditions: [{ type: "B", status: "False" }] } }, "application/strategic-merge-patch+json");
    expect(r.body.status.conditions.map((c: { type: string }) => c.type)).toEqual(["B", "A"]);
  });

  it("persistentvolumeclaims and apps/v1 statefulsets follow the same rule", async () => {
    const { call } = setup();
    await call("POST", PVCS, { metadata: { name: "c" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } });
    const pvc = await call("PATCH", `${PVCS}/c/status`, { status: { phase: "Bound" }, spec: { volumeName: "pv1" } });
    expect(pvc.body.status.phase).toBe("Bound");
    expect(pvc.body.spec.volumeName).toBeUndefined();
    const s = await call("POST", STS, appsSet("s"));
    expect(s.body.status).toEqual({ replicas: 0 });
    const main = await call("PATCH", `${STS}/s`, { status: { replicas: 3 } });
    expect(main.body.status.replicas).toBe(0);
    expect(main.body.metadata.generation).toBe(1);
    const st = await call("PATCH", `${STS}/s/status`, { status: { replicas: 3, readyReplicas: 3 }, spec: { replicas: 9 } });
    expect(st.body.status.readyReplicas).toBe(3);
    expect(st.body.spec.replicas).toBe(1);
    const bad = await call("PATCH", `${STS}/s/status`, { status: { replicas: -1 } });
    expect(bad.body.message).toBe('StatefulSet.apps "s" is invalid: status.replicas: Invalid value: -1: must be greater than or equal to 0');
  });

  it("custom resources: /status keeps only status (metadata too is ignored), the main endpoint ignores status", async () => {
    const { call } = setup();
    const c = await call("POST", OSTS, { ...ordinalSet("web"), status: { replicas: 4 } });
    expect(c.body.status).toBeUndefined();
    const st = await call("PUT", `${OSTS}/web/status`, {
      ...c.body,
      metadata: { ...c.body.metadata, labels: { x: "y" } },
      spec: { ...c.body.spec, replicas: 5 },
      status: { replicas: 1, conditions: [{ type: "A", status: "True", lastTransitionTime: "2026-01-01T00:00:00.5Z" }] },
    });
    expect(st.body.spec.replicas).toBe(1);
    expect(st.body.metadata.labels).toBeUndefined();
    expect(st.body.metadata.generation).toBe(1);
    expect(st.body.status.conditions[0].lastTransitionTime).toBe("2026-01-01T00:00:00.5Z");
    const main = await call("PUT", `${OSTS}/web`, { ...st.body, status: { replicas: 9 }, spec: { ...st.body.spec, replicas: 2 } });
    expect(main.body.status.replicas).toBe(1);
    expect(main.body.metadata.generation).toBe(2);
  });

  it("a status update that breaks the schema is a 422", async () => {
    const { call } = setup();
    const c = await call("POST", OSTS, ordinalSet("web"));
    const r = await call("PUT", `${OSTS}/web/status`, { ...c.body, status: { replicas: "x" } });
    expect(r.status).toBe(422);
    expect(r.body.message).toContain('status.replicas: Invalid value: "string": status.replicas in body must be of type integer: "string"');
  });
});

describe("scale subresource", () => {
  it("reads and writes spec.replicas of custom resources through autoscaling/v1 Scale", async () => {
    const { call } = setup();
    const c = await call("POST", OSTS, ordinalSet("web", 2));
    const s = await call("GET", `${OSTS}/web/scale`);
    expect(s.body).toEqual({
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      metadata: { name: "web", namespace: "default", uid: c.body.metadata.uid, resourceVersion: c.body.metadata.resourceVersion, creationTimestamp: c.body.metadata.creationTimestamp },
      spec: { replicas: 2 },
      status: { replicas: 0 },
    });
    await call("PATCH", `${OSTS}/web/status`, { status: { replicas: 2, labelSelector: "app=web" } });
    const put = await call("PUT", `${OSTS}/web/scale`, { ...s.body, metadata: { name: "web" }, spec: { replicas: 5 } });
    expect(put.body.spec.replicas).toBe(5);
    expect(put.body.status).toEqual({ replicas: 2, selector: "app=web" });
    const obj = await call("GET", `${OSTS}/web`);
    expect(obj.body.spec.replicas).toBe(5);
    expect(obj.body.metadata.generation).toBe(2);
    const stale = await call("PUT", `${OSTS}/web/scale`, { ...s.body, spec: { replicas: 1 } });
    expect(stale.status).toBe(409);
  });

  it("apps/v1 statefulsets: selector from spec.selector, JSON patch on scale", async () => {
    const { call } = setup();
    await call("POST", STS, appsSet("s"));
    const p = await call("PATCH", `${STS}/s/scale`, [{ op: "replace", path: "/spec/replicas", value: 3 }], "application/json-patch+json");
    expect(p.body.spec.replicas).toBe(3);
    expect(p.body.status.selector).toBe("app=s");
    expect((await call("GET", `${STS}/s`)).body.spec.replicas).toBe(3);
  });
});
