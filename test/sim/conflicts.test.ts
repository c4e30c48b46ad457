/** Optimistic concurrency: resourceVersion preconditions on PUT, PATCH, DELETE and scale. */
import { describe, expect, it } from "vitest";
import { CMS, OSTS, PODS, ordinalSet, pod, setup } from "./helpers.ts";

const conflictMessage = (what: string) => `Operation cannot be fulfilled on ${what}: the object has been modified; please apply your changes to the latest version and try again`;

describe("conflicts", () => {
  it("a stale resourceVersion on PUT is a 409 Conflict with the apiserver's message", async () => {
    const { call } = setup();
    const c = await call("POST", PODS, pod("web-0"));
    await call("PATCH", `${PODS}/web-0`, { metadata: { labels: { a: "b" } } });
    const r = await call("PUT", `${PODS}/web-0`, c.body);
    expect(r.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: conflictMessage('pods "web-0"'),
      reason: "Conflict",
      details: { name: "web-0", kind: "pods" },
      code: 409,
    });
  });

  it("custom resources name their group in the message", async () => {
    const { call } = setup();
    const c = await call("POST", OSTS, ordinalSet("web"));
    await call("PATCH", `${OSTS}/web`, { spec: { replicas: 2 } });
    const r = await call("PUT", `${OSTS}/web`, c.body);
    expect(r.body.message).toBe(conflictMessage('statefulsets.apps.ordinal.dev "web"'));
    expect(r.body.details).toEqual({ name: "web", group: "apps.ordinal.dev", kind: "statefulsets" });
  });

  it("built-in kinds allow an unconditional update; custom resources, leases and webhook configurations do not", async () => {
    const { call } = setup();
    await call("POST", CMS, { metadata: { name: "c" } });
    expect((await call("PUT", `${CMS}/c`, { metadata: { name: "c", labels: { x: "1" } } })).status).toBe(200);
    // a pod PUT without what admission added on create (token volume, tolerations, priority) changes its spec
    await call("POST", PODS, pod("p"));
    expect((await call("PUT", `${PODS}/p`, pod("p", { labels: { x: "1" } }))).status).toBe(422);
    await call("POST", OSTS, ordinalSet("web"));
    const cr = await call("PUT", `${OSTS}/web`, ordinalSet("web", 2));
    expect(cr.status).toBe(422);
    expect(cr.body.message).toBe('statefulsets.apps.ordinal.dev "web" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
    const hook = { metadata: { name: "h" }, webhooks: [] };
    await call("POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", hook);
    const h = await call("PUT", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/h", hook);
    expect(h.body.message).toBe('validatingwebhookconfigurations.admissionregistration.k8s.io "h" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
  });

  it("a resourceVersion inside a patch is a precondition", async () => {
    const { call } = setup();
    const c = await call("POST", CMS, { metadata: { name: "a" } });
    const ok = await call("PATCH", `${CMS}/a`, { metadata: { resourceVersion: c.body.metadata.resourceVersion }, data: { x: "1" } });
    expect(ok.status).toBe(200);
    const stale = await call("PATCH", `${CMS}/a`, { metadata: { resourceVersion: c.body.metadata.resourceVersion }, data: { x: "2" } });
    expect(stale.status).toBe(409);
    const jp = await call("PATCH", `${CMS}/a`, [{ op: "replace", path: "/metadata/resourceVersion", value: "1" }], "application/json-patch+json");
    expect(jp.status).toBe(409);
  });

  it("a uid in the body that differs is a precondition failure", async () => {
    const { call } = setup();
    const c = await call("POST", CMS, { metadata: { name: "a" } });
    const r = await call("PUT", `${CMS}/a`, { ...c.body, metadata: { ...c.body.metadata, uid: "other" } });
    expect(r.status).toBe(409);
    expect(r.body.message).toBe(`Operation cannot be fulfilled on configmaps "a": Precondition failed: UID in precondition: other, UID in object meta: ${c.body.metadata.uid}`);
  });

  it("an update that changes nothing keeps the resourceVersion", async () => {
    const { call } = setup();
    const c = await call("POST", PODS, pod("p"));
    const same = await call("PUT", `${PODS}/p`, c.body);
    expect(same.body.metadata.resourceVersion).toBe(c.body.metadata.resourceVersion);
    const minimal = await call("PUT", `${PODS}/p`, { ...pod("p"), spec: { ...c.body.spec }, metadata: { name: "p", resourceVersion: c.body.metadata.resourceVersion } });
    expect(minimal.body.metadata.resourceVersion).toBe(c.body.metadata.resourceVersion);
  });

  it("delete preconditions: uid and resourceVersion", async () => {
    const { call } = setup();
    const c = await call("POST", OSTS, ordinalSet("web"));
    const uid = await call("DELETE", `${OSTS}/web`, { preconditions: { uid: "x" } });
    expect(uid.body.message).toBe(
      `Operation cannot be fulfilled on StatefulSet.apps.ordinal.dev "web": the UID in the precondition (x) does not match the UID in record (${c.body.metadata.uid}). The object might have been deleted and then recreated`,
    );
    expect(uid.body.details).toEqual({ name: "web", group: "apps.ordinal.dev", kind: "StatefulSet" });
    const rv = await call("DELETE", `${OSTS}/web`, { preconditions: { resourceVersion: "1" } });
    expect(rv.status).toBe(409);
    const ok = await call("DELETE", `${OSTS}/web`, { preconditions: { uid: c.body.metadata.uid, resourceVersion: c.body.metadata.resourceVersion } });
    expect(ok.status).toBe(200);
  });
});
