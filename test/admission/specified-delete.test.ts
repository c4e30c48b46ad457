// The chosen-deletion hook (issue 35, G8): adding ordinal.dev/specified-delete needs permission to
// delete the pod, asked of the apiserver with a SubjectAccessReview (the fake's authorizer here).
import { describe, expect, it } from "vitest";
import { mayDeletePodWith, type MayDeletePod } from "../../src/admission/delete-access.ts";
import { validateChosenDelete } from "../../src/admission/specified-delete.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import { SPECIFIED_DELETE_LABEL } from "../../src/objects/constants.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import type { AccessAttributes } from "../../src/sim/fake-apiserver/rest.ts";
import { request } from "./helpers.ts";

const RECONCILER = "system:serviceaccount:ordinal-system:ordinal";
const pod = (labels: Record<string, string> = {}) => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "web-2", namespace: "team-a", labels: { "ordinal.dev/statefulset": "web", ...labels } } });
const chosen = pod({ [SPECIFIED_DELETE_LABEL]: "true" });

/** An apiserver whose RBAC lets only `deleters` delete pods, and the reviews it was asked. */
function cluster(deleters: string[]) {
  const asked: AccessAttributes[] = [];
  const fake = createFakeApiServer({
    authorize: (a) => {
      asked.push(a);
      return deleters.includes(a.user) ? { allowed: true, reason: "RBAC: allowed" } : { allowed: false };
    },
  });
  const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {} });
  return { asked, mayDeletePod: mayDeletePodWith(client), fake };
}

const update = (username: string, object: object, oldObject: object = pod(), subResource?: string) =>
  request({ operation: "UPDATE", namespace: "team-a", name: "web-2", object, oldObject, userInfo: { username, groups: ["team-a-devs"], extra: { scopes: ["x"], bad: 1 } }, ...(subResource ? { subResource } : {}) });

describe("validateChosenDelete", () => {
  it("refuses the label from a user who may patch but not delete the pod, naming both and the label (403)", async () => {
    const c = cluster(["alice"]);
    const { response } = await validateChosenDelete(update("bob", chosen), { reconcilerUsername: RECONCILER, mayDeletePod: c.mayDeletePod });
    expect(response.allowed).toBe(false);
    expect(response.status).toMatchObject({ code: 403, reason: "Forbidden" });
    expect(response.status?.message).toBe(
      'pods "web-2" is forbidden: choosing pod "web-2" for deletion (label ordinal.dev/specified-delete) needs permission to delete it, and user "bob" cannot delete pods in the namespace "team-a": ask someone who may, or remove the label',
    );
    expect(c.asked).toEqual([{ user: "bob", groups: ["team-a-devs"], verb: "delete", group: "", resource: "pods", subresource: "", namespace: "team-a", name: "web-2" }]);
  });

  it("allows it from a user who may delete the pod, on pods and on pods/status (1.20 lets status writes change labels), and on create", async () => {
    const c = cluster(["alice"]);
    const opts = { reconcilerUsername: RECONCILER, mayDeletePod: c.mayDeletePod };
    expect((await validateChosenDelete(update("alice", chosen), opts)).response.allowed).toBe(true);
    expect((await validateChosenDelete(update("bob", chosen, pod(), "status"), opts)).response.allowed).toBe(false);
    const create = request({ operation: "CREATE", namespace: "team-a", object: chosen, userInfo: { username: "bob" } });
    expect((await validateChosenDelete(create, opts)).response.allowed).toBe(false);
  });

  it("asks nothing for what needs no permission: removing the label, changing its value, other labels, the reconciler", async () => {
    const c = cluster([]);
    const opts = { reconcilerUsername: RECONCILER, mayDeletePod: c.mayDeletePod };
    for (const req of [
      update("bob", pod(), chosen),
      update("bob", pod({ [SPECIFIED_DELETE_LABEL]: "yes" }), chosen),
      update("bob", pod({ other: "x" })),
      update(RECONCILER, chosen),
      request({ operation: "DELETE", namespace: "team-a", name: "web-2", oldObject: chosen, userInfo: { username: "bob" } }),
    ]) {
      expect((await validateChosenDelete(req, opts)).response.allowed).toBe(true);
    }
    expect(c.asked).toEqual([]);
  });

  it("refuses (500, try again) when it cannot ask: no apiserver client, the apiserver failing, too many reviews in flight", async () => {
    const none = await validateChosenDelete(update("alice", chosen), { reconcilerUsername: RECONCILER });
    expect(none.response.status).toMatchObject({ code: 500, message: expect.stringContaining("could not ask the apiserver (it has no apiserver client): try again") });
    const c = cluster(["alice"]);
    c.fake.faults.add({ verb: "create", resource: "subjectaccessreviews", fault: "internal" });
    const failing = await validateChosenDelete(update("alice", chosen), { reconcilerUsername: RECONCILER, mayDeletePod: c.mayDeletePod });
    expect(failing.response).toMatchObject({ allowed: false, status: { code: 500 } });
    let release!: () => void;
    const hanging: MayDeletePod = mayDeletePodWith(
      { create: () => new Promise((r) => (release = () => r({ status: { allowed: true } }))) } as unknown as Parameters<typeof mayDeletePodWith>[0],
      1,
    );
    const first = validateChosenDelete(update("alice", chosen), { reconcilerUsername: RECONCILER, mayDeletePod: hanging });
    const second = await validateChosenDelete(update("alice", chosen), { reconcilerUsername: RECONCILER, mayDeletePod: hanging });
    expect(second.response.status?.message).toContain("1 permission checks are in flight already");
    release();
    expect((await first).response.allowed).toBe(true);
  });

  it("the fake apiserver validates a SubjectAccessReview's spec as 1.20 does", async () => {
    const c = cluster([]);
    const res = await c.fake.fetch("https://fake/apis/authorization.k8s.io/v1/subjectaccessreviews", { method: "POST", body: JSON.stringify({ kind: "SubjectAccessReview", apiVersion: "authorization.k8s.io/v1", spec: {} }) });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { message: string }).message).toBe(
      '.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]',
    );
  });
});
