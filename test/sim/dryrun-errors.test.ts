/** ?dryRun=All, and the exact Status bodies of errors. */
import { describe, expect, it } from "vitest";
import { CMS, OSTS, PODS, PVCS, ordinalSet, pod, setup } from "./helpers.ts";

describe("dryRun", () => {
  it("create: validates and answers without storing (no resourceVersion)", async () => {
    const { call, server } = setup();
    const before = server.resourceVersion();
    const r = await call("POST", `${PODS}?dryRun=All`, pod("p"));
    expect(r.status).toBe(201);
    expect(r.body.metadata.resourceVersion).toBeUndefined();
    expect(r.body.metadata.uid).toBeDefined();
    expect(server.get(`${PODS}/p`)).toBeUndefined();
    expect(server.resourceVersion()).toBe(before);
    expect((await call("POST", `${PODS}?dryRun=All`, pod("p", {}, { containers: [] }))).status).toBe(422);
  });

  it("update, patch, status and scale: validate without storing", async () => {
    const { call, server } = setup();
    const c = await call("POST", OSTS, ordinalSet("web"));
    const u = await call("PUT", `${OSTS}/web?dryRun=All`, { ...c.body, spec: { ...c.body.spec, replicas: 3 } });
    expect(u.body.spec.replicas).toBe(3);
    expect(u.body.metadata.generation).toBe(2);
    await call("PATCH", `${OSTS}/web?dryRun=All`, { spec: { replicas: 4 } });
    await call("PATCH", `${OSTS}/web/status?dryRun=All`, { status: { replicas: 4 } });
    await call("PUT", `${OSTS}/web/scale?dryRun=All`, { metadata: { name: "web" }, spec: { replicas: 5 } });
    expect(server.get(`${OSTS}/web`)).toEqual(c.body);
    expect((await call("PATCH", `${OSTS}/web?dryRun=All`, { spec: { replicas: -1 } })).status).toBe(422);
  });

  it("delete: answers as a delete would, stores nothing, runs no garbage collection", async () => {
    const { call, server } = setup();
    const owner = (await call("POST", CMS, { metadata: { name: "o" } })).body;
    await call("POST", CMS, { metadata: { name: "d", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "o", uid: owner.metadata.uid }] } });
    const r = await call("DELETE", `${CMS}/o?dryRun=All`);
    expect(r.body.status).toBe("Success");
    expect(server.get(`${CMS}/o`)).toBeDefined();
    expect(server.get(`${CMS}/d`)).toBeDefined();
    await call("POST", "/api/v1/nodes", { metadata: { name: "n" } });
    await call("POST", PODS, pod("p", {}, { nodeName: "n" }));
    const g = await call("DELETE", `${PODS}/p`, { dryRun: ["All"] });
    expect(g.body.metadata.deletionGracePeriodSeconds).toBe(30);
    expect(server.get<{ metadata: { deletionTimestamp?: string } }>(`${PODS}/p`)?.metadata.deletionTimestamp).toBeUndefined();
  });

  it("only All is accepted", async () => {
    const { call } = setup();
    const r = await call("DELETE", `${CMS}/x?dryRun=Yes`);
    expect(r.body.message).toBe('DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Yes"}: supported values: "All"');
  });
});

describe("error bodies", () => {
  it("NotFound", async () => {
    const { call } = setup();
    expect((await call("GET", `${PODS}/web-0`)).body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'pods "web-0" not found',
      reason: "NotFound",
      details: { name: "web-0", kind: "pods" },
      code: 404,
    });
    expect((await call("GET", `${OSTS}/web`)).body).toMatchObject({ message: 'statefulsets.apps.ordinal.dev "web" not found', details: { name: "web", group: "apps.ordinal.dev", kind: "statefulsets" } });
  });

  it("Invalid lists every cause and aggregates messages", async () => {
    const { call } = setup();
    const r = await call("POST", PVCS, { metadata: { name: "c" }, spec: {} });
    expect(r.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'PersistentVolumeClaim "c" is invalid: [spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Required value]',
      reason: "Invalid",
      details: {
        name: "c",
        kind: "PersistentVolumeClaim",
        causes: [
          { reason: "FieldValueRequired", message: "Required value: at least 1 access mode is required", field: "spec.accessModes" },
          { reason: "FieldValueRequired", message: "Required value", field: "spec.resources[storage]" },
        ],
      },
      code: 422,
    });
  });

  it("BadRequest has no details; MethodNotAllowed has empty details", async () => {
    const { call } = setup();
    const bad = await call("POST", CMS, { metadata: { name: "a", namespace: "other" } });
    expect(bad.body).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "the namespace of the provided object does not match the namespace sent on the request", reason: "BadRequest", code: 400 });
    expect((await call("PUT", CMS, {})).body.details).toEqual({});
  });

  it("PVC spec changes and decreases are refused; a bound claim whose StorageClass allows expansion may grow", async () => {
    const { call } = setup();
    const grow2Gi = { spec: { resources: { requests: { storage: "2Gi" } } } };
    await call("POST", PVCS, { metadata: { name: "c" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } });
    const grow = await call("PATCH", `${PVCS}/c`, grow2Gi);
    expect(grow.body.message.startsWith('PersistentVolumeClaim "c" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests for bound claims\n')).toBe(true);
    await call("PATCH", `${PVCS}/c/status`, { status: { phase: "Bound" } });
    // The PersistentVolumeClaimResize admission plugin: no StorageClass, or one without allowVolumeExpansion, is a 403.
    const RESIZE_REFUSED = "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize";
    const noClass = await call("PATCH", `${PVCS}/c`, grow2Gi);
    expect([noClass.status, noClass.body.message]).toEqual([403, `persistentvolumeclaims "c" is forbidden: ${RESIZE_REFUSED}`]);
    await call("POST", "/apis/storage.k8s.io/v1/storageclasses", { metadata: { name: "fixed" }, provisioner: "x.io/p" });
    await call("POST", "/apis/storage.k8s.io/v1/storageclasses", { metadata: { name: "grows" }, provisioner: "x.io/p", allowVolumeExpansion: true });
    for (const [name, cls] of [["f", "fixed"], ["g", "grows"]]) {
      await call("POST", PVCS, { metadata: { name }, spec: { storageClassName: cls, accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } });
      await call("PATCH", `${PVCS}/${name}/status`, { status: { phase: "Bound" } });
    }
    expect((await call("PATCH", `${PVCS}/f`, grow2Gi)).body.message).toBe(`persistentvolumeclaims "f" is forbidden: ${RESIZE_REFUSED}`);
    expect((await call("PATCH", `${PVCS}/g`, grow2Gi)).status).toBe(200);
    const shrink = await call("PATCH", `${PVCS}/g`, { spec: { resources: { requests: { storage: "1Gi" } } } });
    expect(shrink.body.message).toBe('PersistentVolumeClaim "g" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than previous value');
    expect((await call("PATCH", `${PVCS}/g`, { spec: { volumeName: "pv" } })).status).toBe(200);
    expect((await call("PATCH", `${PVCS}/g`, { spec: { volumeName: "other" } })).status).toBe(422);
  });

  it("an unexpected exception becomes a 500 InternalError, not a thrown fetch", async () => {
    const { call } = setup({
      customResources: [{ group: "x.io", version: "v1", plural: "things", kind: "Thing", defaults: () => { throw new Error("boom"); } }],
    });
    const r = await call("POST", "/apis/x.io/v1/namespaces/default/things", { apiVersion: "x.io/v1", kind: "Thing", metadata: { name: "t" } });
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({ reason: "InternalError", message: "Internal error occurred: Error: boom" });
  });
});
