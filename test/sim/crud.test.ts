/** CRUD through the fake's fetch: create, get, list, update, delete, generateName, namespaces, routing. */
import { describe, expect, it } from "vitest";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { BASE, CMS, OSTS, PODS, caller, ordinalSet, pod, setup } from "./helpers.ts";

describe("create and get", () => {
  it("fills uid, creationTimestamp (whole seconds), resourceVersion and namespace", async () => {
    const { call } = setup();
    const r = await call("POST", CMS, { metadata: { name: "a" }, data: { k: "v" } });
    expect(r.status).toBe(201);
    expect(r.headers.get("content-type")).toBe("application/json");
    expect(r.body.kind).toBe("ConfigMap");
    expect(r.body.apiVersion).toBe("v1");
    expect(r.body.metadata).toMatchObject({ name: "a", namespace: "default", creationTimestamp: "2026-01-02T03:04:05Z" });
    expect(r.body.metadata.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(r.body.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(r.body.metadata.generation).toBeUndefined();
    const g = await call("GET", `${CMS}/a`);
    expect(g.body).toEqual(r.body);
  });

  it("resourceVersion is a global counter across kinds", async () => {
    const { call } = setup();
    const a = await call("POST", CMS, { metadata: { name: "a" } });
    const b = await call("POST", PODS, pod("p"));
    const c = await call("POST", CMS, { metadata: { name: "c" } });
    const rvs = [a, b, c].map((r) => Number(r.body.metadata.resourceVersion));
    expect(rvs[1]).toBeGreaterThan(rvs[0]);
    expect(rvs[2]).toBeGreaterThan(rvs[1]);
  });

  it("sets generation 1 on kinds with a spec generation only", async () => {
    const { call } = setup();
    expect((await call("POST", OSTS, ordinalSet("web"))).body.metadata.generation).toBe(1);
    expect((await call("POST", CMS, { metadata: { name: "x" } })).body.metadata.generation).toBeUndefined();
    const cr = await call("POST", "/apis/apps/v1/namespaces/default/controllerrevisions", { metadata: { name: "r" }, data: {}, revision: 1 });
    expect(cr.status).toBe(201);
    expect(cr.body.metadata.generation).toBeUndefined();
  });

  it("answers 409 AlreadyExists for a taken name", async () => {
    const { call } = setup();
    await call("POST", CMS, { metadata: { name: "a" } });
    const r = await call("POST", CMS, { metadata: { name: "a" } });
    expect(r.status).toBe(409);
    expect(r.body.reason).toBe("AlreadyExists");
  });

  it("creates cluster-scoped objects without a namespace", async () => {
    const { call } = setup();
    const r = await call("POST", "/api/v1/nodes", { metadata: { name: "n1", namespace: "ignored" } });
    expect(r.status).toBe(201);
    expect(r.body.metadata.namespace).toBeUndefined();
    expect((await call("GET", "/api/v1/nodes/n1")).status).toBe(200);
  });

  it("accepts a Request object, a URL and a string", async () => {
    const server = createFakeApiServer();
    const viaRequest = await server.fetch(new Request(`${BASE}${CMS}`, { method: "POST", body: JSON.stringify({ metadata: { name: "r" } }), headers: { "content-type": "application/json" } }));
    expect(viaRequest.status).toBe(201);
    expect((await server.fetch(new URL(`${BASE}${CMS}/r`))).status).toBe(200);
    expect((await server.fetch(`http://other.base:1234${CMS}/r`)).status).toBe(200);
  });
});

describe("list", () => {
  it("lists one namespace or all, in name order, with a list resourceVersion", async () => {
    const { server, call } = setup({ namespaces: ["default", "b", "a-b"] });
    for (const [ns, name] of [["default", "z"], ["b", "y"], ["a-b", "x"], ["default", "m"]]) {
      await call("POST", `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name } });
    }
    const one = await call("GET", CMS);
    expect(one.body.kind).toBe("ConfigMapList");
    expect(one.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["m", "z"]);
    expect(one.body.metadata.resourceVersion).toBe(server.resourceVersion());
    const all = await call("GET", "/api/v1/configmaps");
    expect(all.body.items.map((i: { metadata: { namespace: string; name: string } }) => `${i.metadata.namespace}/${i.metadata.name}`)).toEqual([
      "a-b/x",
      "b/y",
      "default/m",
      "default/z",
    ]);
  });

  it("omits kind and apiVersion on built-in items, keeps them on custom resources", async () => {
    const { call } = setup();
    await call("POST", CMS, { metadata: { name: "a" } });
    await call("POST", OSTS, ordinalSet("web"));
    expect((await call("GET", CMS)).body.items[0].kind).toBeUndefined();
    const crs = await call("GET", OSTS);
    expect(crs.body.items[0]).toMatchObject({ kind: "StatefulSet", apiVersion: "apps.ordinal.dev/v1" });
    expect(crs.body.metadata.continue).toBe("");
  });

  it("lists an empty collection in a namespace that does not exist", async () => {
    const { call } = setup();
    const r = await call("GET", "/api/v1/namespaces/nowhere/pods");
    expect(r.status).toBe(200);
    expect(r.body.items).toEqual([]);
  });
});

describe("update and delete", () => {
  it("PUT replaces the object and bumps resourceVersion; DELETE answers a Status for configmaps", async () => {
    const { call } = setup();
    const c = await call("POST", CMS, { metadata: { name: "a" }, data: { v: "1" } });
    const u = await call("PUT", `${CMS}/a`, { ...c.body, data: { v: "2" } });
    expect(u.status).toBe(200);
    expect(u.body.data).toEqual({ v: "2" });
    expect(Number(u.body.metadata.resourceVersion)).toBeGreaterThan(Number(c.body.metadata.resourceVersion));
    expect(u.body.metadata.uid).toBe(c.body.metadata.uid);
    expect(u.body.metadata.creationTimestamp).toBe(c.body.metadata.creationTimestamp);
    const d = await call("DELETE", `${CMS}/a`);
    expect(d.body).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details: { name: "a", kind: "configmaps", uid: c.body.metadata.uid } });
    expect((await call("GET", `${CMS}/a`)).status).toBe(404);
  });

  it("keeps uid, creationTimestamp and generation from the stored object on update", async () => {
    const { call } = setup();
    const c = await call("POST", OSTS, ordinalSet("web"));
    const body = { ...c.body, metadata: { ...c.body.metadata, creationTimestamp: "2000-01-01T00:00:00Z", generation: 7, uid: undefined } };
    const u = await call("PUT", `${OSTS}/web`, body);
    expect(u.status).toBe(200);
    expect(u.body.metadata.generation).toBe(1);
    expect(u.body.metadata.creationTimestamp).toBe(c.body.metadata.creationTimestamp);
    expect(u.body.metadata.uid).toBe(c.body.metadata.uid);
  });

  it("deletes a ServiceAccount answering with the object (ReturnDeletedObject kinds)", async () => {
    const { server, call } = setup();
    const sa = await call("DELETE", "/api/v1/namespaces/default/serviceaccounts/default");
    expect(sa.body.kind).toBe("ServiceAccount");
    // the serviceaccount controller puts it back
    expect(server.get("/api/v1/namespaces/default/serviceaccounts/default")).toBeDefined();
  });
});

describe("generateName", () => {
  it("appends five characters of the apiserver's alphabet and truncates long prefixes", async () => {
    const { call } = setup();
    const r = await call("POST", CMS, { metadata: { generateName: "web-" } });
    expect(r.body.metadata.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const long = "x".repeat(70);
    const l = await call("POST", CMS, { metadata: { generateName: long } });
    expect(l.body.metadata.name).toHaveLength(63);
  });

  it("is reproducible with a seed", async () => {
    const names = async () => {
      const call = caller(createFakeApiServer({ seed: 7 }));
      return (await call("POST", CMS, { metadata: { generateName: "g-" } })).body.metadata.name;
    };
    expect(await names()).toBe(await names());
  });

  it("a given name wins over generateName", async () => {
    const { call } = setup();
    const r = await call("POST", CMS, { metadata: { name: "fixed", generateName: "g-" } });
    expect(r.body.metadata.name).toBe("fixed");
  });
});

describe("namespaces", () => {
  it("start with default, kube-system, kube-public and kube-node-lease, each with a default ServiceAccount and token", async () => {
    const { server } = setup();
    const names = server.list<{ metadata: { name: string } }>("/api/v1/namespaces").map((n) => n.metadata.name);
    expect(names).toEqual(["default", "kube-node-lease", "kube-public", "kube-system"]);
    const sa = server.get<{ secrets: { name: string }[] }>("/api/v1/namespaces/kube-system/serviceaccounts/default")!;
    expect(sa.secrets[0].name).toMatch(/^default-token-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const secret = server.get<{ type: string }>(`/api/v1/namespaces/kube-system/secrets/${sa.secrets[0].name}`)!;
    expect(secret.type).toBe("kubernetes.io/service-account-token");
  });

  it("a new namespace gets its default ServiceAccount at once", async () => {
    const { server, call } = setup();
    expect((await call("POST", "/api/v1/namespaces", { metadata: { name: "team" } })).status).toBe(201);
    expect(server.get("/api/v1/namespaces/team/serviceaccounts/default")).toBeDefined();
    expect((await call("POST", "/api/v1/namespaces/team/pods", pod("p"))).status).toBe(201);
  });

  it("without the serviceaccount controller, pods are refused for lack of a ServiceAccount", async () => {
    const { call } = setup({ serviceAccounts: false });
    const r = await call("POST", PODS, pod("p"));
    expect(r.status).toBe(403);
    expect(r.body.message).toBe('pods "p" is forbidden: error looking up service account default/default: serviceaccount "default" not found');
  });

  it("objects in a missing namespace are 404 namespaces", async () => {
    const { call } = setup();
    const r = await call("POST", "/api/v1/namespaces/x/configmaps", { metadata: { name: "a" } });
    expect(r.body).toMatchObject({ code: 404, reason: "NotFound", message: 'namespaces "x" not found', details: { name: "x", kind: "namespaces" } });
  });
});

describe("routing", () => {
  it("serves /readyz, /livez, /version and discovery", async () => {
    const { call } = setup();
    expect((await call("GET", "/readyz")).body).toBe("ok");
    expect((await call("GET", "/livez")).status).toBe(200);
    expect((await call("GET", "/version")).body.gitVersion).toBe("v1.20.2");
    expect((await call("GET", "/api")).body.versions).toEqual(["v1"]);
    const groups = (await call("GET", "/apis")).body.groups.map((g: { name: string }) => g.name);
    expect(groups).toEqual(expect.arrayContaining(["apps", "apps.ordinal.dev", "coordination.k8s.io", "admissionregistration.k8s.io"]));
    const core = (await call("GET", "/api/v1")).body.resources.map((r: { name: string }) => r.name);
    expect(core).toEqual(expect.arrayContaining(["pods", "pods/status", "pods/binding", "namespaces/finalize"]));
    const ordinal = (await call("GET", "/apis/apps.ordinal.dev/v1")).body.resources.map((r: { name: string }) => r.name);
    expect(ordinal).toEqual(expect.arrayContaining(["statefulsets", "statefulsets/status", "statefulsets/scale", "imagelists", "imagelists/status"]));
  });

  it("answers 404 for unknown groups, resources and subresources", async () => {
    const { call } = setup();
    const group = await call("GET", "/apis/nope.io/v1/things");
    expect(group.status).toBe(404);
    expect(group.body).toBe("404 page not found\n");
    expect((await call("GET", "/api/v1/namespaces/default/widgets")).body.message).toBe("the server could not find the requested resource");
    expect((await call("GET", `${CMS}/a/scale`)).status).toBe(404);
    expect((await call("GET", "/api/v1/pods/x")).status).toBe(404);
    expect((await call("GET", "/nonsense")).status).toBe(404);
  });

  it("answers 405 for verbs a path does not serve", async () => {
    const { call } = setup();
    expect((await call("PUT", CMS, {})).status).toBe(405);
    expect((await call("POST", `${CMS}/a`, {})).status).toBe(405);
    expect((await call("POST", "/api/v1/pods", pod("p"))).status).toBe(405);
    expect((await call("DELETE", "/api/v1/namespaces")).status).toBe(405);
  });

  it("decodes percent-encoded names", async () => {
    const { call } = setup();
    await call("POST", CMS, { metadata: { name: "a.b" } });
    expect((await call("GET", `${CMS}/a%2Eb`)).status).toBe(200);
  });

});
