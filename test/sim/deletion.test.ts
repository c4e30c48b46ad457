/** Finalizers, garbage collection (background, orphan, foreground), namespace termination, pvc-protection. */
import { describe, expect, it } from "vitest";
import { CMS, OSTS, PODS, PVCS, ordinalSet, pod, setup, type Call } from "./helpers.ts";

const ref = (o: { apiVersion: string; kind: string; metadata: { name: string; uid: string } }, extra: Record<string, unknown> = {}) => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: o.metadata.name,
  uid: o.metadata.uid,
  ...extra,
});

async function ownerAndDependents(call: Call, n = 2, extra: Record<string, unknown> = {}) {
  const owner = (await call("POST", OSTS, ordinalSet("web"))).body;
  for (let i = 0; i < n; i++) {
    const r = await call("POST", PODS, pod(`web-${i}`, { ownerReferences: [ref(owner, { controller: true, ...extra })] }));
    expect(r.status).toBe(201);
  }
  return owner;
}

describe("finalizers", () => {
  it("an object with finalizers gets deletionTimestamp and stays until they are removed", async () => {
    const { call } = setup();
    await call("POST", CMS, { metadata: { name: "a", finalizers: ["example.com/x", "example.com/y"] } });
    const d = await call("DELETE", `${CMS}/a`);
    expect(d.body.metadata).toMatchObject({ deletionTimestamp: "2026-01-02T03:04:05Z", deletionGracePeriodSeconds: 0 });
    expect((await call("PATCH", `${CMS}/a`, { metadata: { finalizers: ["example.com/x"] } })).status).toBe(200);
    expect((await call("GET", `${CMS}/a`)).status).toBe(200);
    const last = await call("PUT", `${CMS}/a`, { ...(await call("GET", `${CMS}/a`)).body, metadata: { ...(await call("GET", `${CMS}/a`)).body.metadata, finalizers: [] } });
    expect(last.status).toBe(200);
    expect((await call("GET", `${CMS}/a`)).status).toBe(404);
  });

  it("deleting a custom resource with a finalizer bumps its generation once", async () => {
    const { call } = setup();
    await call("POST", OSTS, { ...ordinalSet("web"), metadata: { name: "web", finalizers: ["example.com/x"] } });
    expect((await call("DELETE", `${OSTS}/web`)).body.metadata.generation).toBe(2);
    expect((await call("DELETE", `${OSTS}/web`)).body.metadata.generation).toBe(2);
  });
});

describe("garbage collection", () => {
  it("background: deleting the owner deletes its dependents", async () => {
    const { call, server } = setup();
    await ownerAndDependents(call);
    await call("DELETE", `${OSTS}/web`);
    expect(server.list(PODS)).toEqual([]);
  });

  it("cascades through several levels and across kinds", async () => {
    const { call, server } = setup();
    const owner = await ownerAndDependents(call, 1);
    const p = server.get<{ apiVersion: string; kind: string; metadata: { name: string; uid: string } }>(`${PODS}/web-0`)!;
    await call("POST", CMS, { metadata: { name: "grandchild", ownerReferences: [ref(p)] } });
    await call("DELETE", `${OSTS}/${owner.metadata.name}`);
    expect(server.get(`${CMS}/grandchild`)).toBeUndefined();
  });

  it("dependents of a bound pod owner are deleted gracefully, like any delete", async () => {
    const { call, server } = setup();
    const owner = await ownerAndDependents(call, 1);
    await call("POST", "/api/v1/nodes", { metadata: { name: "n" } });
    await call("POST", `${PODS}/web-0/binding`, { metadata: { name: "web-0" }, target: { name: "n" } });
    await call("DELETE", `${OSTS}/${owner.metadata.name}`);
    expect(server.get<{ metadata: { deletionGracePeriodSeconds: number } }>(`${PODS}/web-0`)?.metadata.deletionGracePeriodSeconds).toBe(30);
  });

  it("orphan: dependents lose the owner reference and stay", async () => {
    const { call, server } = setup();
    await ownerAndDependents(call);
    const d = await call("DELETE", `${OSTS}/web?propagationPolicy=Orphan`);
    expect(d.body.metadata.finalizers).toEqual(["orphan"]);
    expect(server.get(`${OSTS}/web`)).toBeUndefined();
    const pods = server.list<{ metadata: { ownerReferences?: unknown } }>(PODS);
    expect(pods).toHaveLength(2);
    expect(pods.every((p) => p.metadata.ownerReferences === undefined)).toBe(true);
  });

  it("foreground: the owner waits with foregroundDeletion until blocking dependents are gone", async () => {
    const { call, server } = setup();
    await call("POST", "/api/v1/nodes", { metadata: { name: "n" } });
    await ownerAndDependents(call, 1, { blockOwnerDeletion: true });
    await call("POST", `${PODS}/web-0/binding`, { metadata: { name: "web-0" }, target: { name: "n" } });
    const d = await call("DELETE", `${OSTS}/web`, { propagationPolicy: "Foreground" });
    expect(d.body.metadata.finalizers).toEqual(["foregroundDeletion"]);
    expect(server.get(`${OSTS}/web`)).toBeDefined();
    expect(server.get<{ metadata: { deletionTimestamp?: string } }>(`${PODS}/web-0`)?.metadata.deletionTimestamp).toBeDefined();
    await call("DELETE", `${PODS}/web-0?gracePeriodSeconds=0`);
    expect(server.get(`${OSTS}/web`)).toBeUndefined();
  });

  it("a reference to an owner that never existed gets the dependent collected; one of two gone owners is just dropped", async () => {
    const { call, server } = setup();
    await call("POST", CMS, { metadata: { name: "lost", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "ghost", uid: "u-1" }] } });
    expect(server.get(`${CMS}/lost`)).toBeUndefined();
    const a = (await call("POST", CMS, { metadata: { name: "a" } })).body;
    const b = (await call("POST", CMS, { metadata: { name: "b" } })).body;
    await call("POST", CMS, { metadata: { name: "child", ownerReferences: [ref(a), ref(b)] } });
    await call("DELETE", `${CMS}/a`);
    expect(server.get<{ metadata: { ownerReferences: { name: string }[] } }>(`${CMS}/child`)?.metadata.ownerReferences.map((r) => r.name)).toEqual(["b"]);
  });

  it("references to kinds the server does not serve are left alone", async () => {
    const { call, server } = setup();
    await call("POST", CMS, { metadata: { name: "c", ownerReferences: [{ apiVersion: "example.com/v1", kind: "Thing", name: "t", uid: "u-2" }] } });
    expect(server.get(`${CMS}/c`)).toBeDefined();
  });

  it("a same-named owner in another namespace does not count", async () => {
    const { call, server } = setup({ namespaces: ["default", "other"] });
    const other = (await call("POST", "/api/v1/namespaces/other/configmaps", { metadata: { name: "o" } })).body;
    await call("POST", CMS, { metadata: { name: "c", ownerReferences: [ref(other)] } });
    expect(server.get(`${CMS}/c`)).toBeUndefined();
  });

  it("with autoGc off, nothing is collected until gc()", async () => {
    const { call, server } = setup({ autoGc: false });
    await ownerAndDependents(call);
    await call("DELETE", `${OSTS}/web`);
    expect(server.list(PODS)).toHaveLength(2);
    server.gc();
    expect(server.list(PODS)).toHaveLength(0);
  });
});

describe("namespace termination", () => {
  it("marks Terminating, refuses new content, empties the namespace, then removes it", async () => {
    const { call, server } = setup({ namespaces: ["default", "team"] });
    await call("POST", "/api/v1/namespaces/team/configmaps", { metadata: { name: "held", finalizers: ["example.com/x"] } });
    await call("POST", "/api/v1/namespaces/team/configmaps", { metadata: { name: "free" } });
    const d = await call("DELETE", "/api/v1/namespaces/team");
    expect(d.body.status.phase).toBe("Terminating");
    expect(d.body.spec.finalizers).toEqual(["kubernetes"]);
    const late = await call("POST", "/api/v1/namespaces/team/configmaps", { metadata: { name: "late" } });
    expect(late.status).toBe(403);
    expect(server.get("/api/v1/namespaces/team/configmaps/free")).toBeUndefined();
    expect(server.get("/api/v1/namespaces/team/serviceaccounts/default")).toBeUndefined();
    expect(server.get("/api/v1/namespaces/team")).toBeDefined();
    await call("PATCH", "/api/v1/namespaces/team/configmaps/held", { metadata: { finalizers: null } });
    expect(server.get("/api/v1/namespaces/team")).toBeUndefined();
  });

  it("the main endpoint cannot change spec.finalizers; /finalize can", async () => {
    const { call } = setup({ namespaces: ["default", "x"] });
    const ns = (await call("GET", "/api/v1/namespaces/x")).body;
    const main = await call("PUT", "/api/v1/namespaces/x", { ...ns, spec: { finalizers: [] } });
    expect(main.body.spec.finalizers).toEqual(["kubernetes"]);
    const fin = await call("PUT", "/api/v1/namespaces/x/finalize", { ...ns, spec: { finalizers: [] } });
    expect(fin.body.spec).toEqual({});
  });
});

describe("pvc-protection", () => {
  it("a deleted claim stays while a scheduled pod uses it", async () => {
    const { call, server } = setup();
    await call("POST", PVCS, { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } });
    await call("POST", "/api/v1/nodes", { metadata: { name: "n" } });
    await call("POST", PODS, pod("p", {}, { nodeName: "n", volumes: [{ name: "d", persistentVolumeClaim: { claimName: "data" } }] }));
    await call("DELETE", `${PVCS}/data`);
    expect(server.get(`${PVCS}/data`)).toBeDefined();
    await call("DELETE", `${PODS}/p?gracePeriodSeconds=0`);
    expect(server.get(`${PVCS}/data`)).toBeUndefined();
  });

  it("an unused claim goes at once", async () => {
    const { call, server } = setup();
    await call("POST", PVCS, { metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } });
    const d = await call("DELETE", `${PVCS}/data`);
    expect(d.body.kind).toBe("PersistentVolumeClaim");
    expect(server.get(`${PVCS}/data`)).toBeUndefined();
  });
});
