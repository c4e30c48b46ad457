/**
 * The mutating hook of Ordinal StatefulSets (src/admission/mutate-statefulsets.ts): a RollingUpdate
 * strategy without rollingUpdate gets its defaults (so `kubectl get osts` shows PAUSED false), as
 * apps/v1 defaults it; an apply to OnDelete drops the rollingUpdate it carried over unchanged.
 * The real apiserver's side: test/e2e/deploy.e2e.test.ts.
 */
import { describe, expect, it, vi } from "vitest";
import { mutateStatefulSet } from "../../src/admission/mutate-statefulsets.ts";
import { decodePatch } from "../../src/admission/patch.ts";
import type { Wake } from "../../src/admission/wakes.ts";
import { WEBHOOK_PATHS } from "../../src/webhook-config/webhook-configs.ts";
import { osts, request, review, sampleSet } from "./helpers.ts";
import { readReview, testApp } from "./test-app.ts";

const DEFAULTS = { partition: 0, paused: false, podUpdatePolicy: "ReCreate" };
const withStrategy = (updateStrategy: unknown) => ({ apiVersion: "apps.ordinal.dev/v1", kind: "StatefulSet", metadata: { name: "web", namespace: "default" }, spec: { replicas: 1, updateStrategy } });
const setRequest = (operation: "CREATE" | "UPDATE", strategy: unknown, oldStrategy?: unknown, subResource?: string) =>
  request({ kind: osts, operation, name: "web", object: withStrategy(strategy), ...(oldStrategy !== undefined ? { oldObject: withStrategy(oldStrategy) } : {}), ...(subResource ? { subResource } : {}) });
const patchOf = (r: ReturnType<typeof mutateStatefulSet>) => (r.response.patch ? decodePatch(r.response.patch) : undefined);

describe("mutateStatefulSet", () => {
  const add = [{ op: "add", path: "/spec/updateStrategy/rollingUpdate", value: DEFAULTS }];
  const remove = [{ op: "remove", path: "/spec/updateStrategy/rollingUpdate" }];
  const given = { partition: 2, paused: true, podUpdatePolicy: "InPlaceIfPossible" };
  it.each<[string, ReturnType<typeof setRequest>, unknown]>([
    ["RollingUpdate without rollingUpdate: its defaults", setRequest("CREATE", { type: "RollingUpdate" }), add],
    ["rollingUpdate null: its defaults", setRequest("CREATE", { type: "RollingUpdate", rollingUpdate: null }), add],
    ["no type (the CRD's default is RollingUpdate): its defaults", setRequest("CREATE", {}), add],
    ["an UPDATE writing RollingUpdate without rollingUpdate: its defaults", setRequest("UPDATE", { type: "RollingUpdate" }, { type: "OnDelete" }), add],
    ["rollingUpdate given: unchanged", setRequest("CREATE", { type: "RollingUpdate", rollingUpdate: given }), undefined],
    ["OnDelete: unchanged", setRequest("CREATE", { type: "OnDelete" }), undefined],
    ["OnDelete with a rollingUpdate on create: unchanged (the validating hook refuses it)", setRequest("CREATE", { type: "OnDelete", rollingUpdate: DEFAULTS }), undefined],
    ["RollingUpdate → OnDelete carrying the old rollingUpdate over: dropped", setRequest("UPDATE", { type: "OnDelete", rollingUpdate: given }, { type: "RollingUpdate", rollingUpdate: given }), remove],
    ["RollingUpdate → OnDelete with a changed rollingUpdate: unchanged (refused)", setRequest("UPDATE", { type: "OnDelete", rollingUpdate: { ...given, partition: 3 } }, { type: "RollingUpdate", rollingUpdate: given }), undefined],
    ["OnDelete → OnDelete adding a rollingUpdate: unchanged (refused)", setRequest("UPDATE", { type: "OnDelete", rollingUpdate: given }, { type: "OnDelete" }), undefined],
    ["an unknown type: unchanged", setRequest("CREATE", { type: "Sideways" }), undefined],
    ["updateStrategy not an object: unchanged", setRequest("CREATE", "RollingUpdate"), undefined],
    ["a subresource: unchanged", setRequest("UPDATE", { type: "RollingUpdate" }, { type: "RollingUpdate" }, "scale"), undefined],
  ])("%s", (_name, req, want) => {
    const r = mutateStatefulSet(req);
    expect(r.response.allowed).toBe(true);
    expect(patchOf(r)).toEqual(want);
    expect(r.response.patchType).toBe(want ? "JSONPatch" : undefined);
  });
  it("hostile objects pass unchanged", () => {
    for (const object of [{}, { spec: null }, { spec: [] }, { spec: { updateStrategy: [] } }, { spec: { updateStrategy: { type: [] } } }]) {
      const r = mutateStatefulSet(request({ kind: osts, operation: "UPDATE", object, oldObject: object }));
      expect(r.response).toEqual({ uid: expect.any(String), allowed: true });
    }
  });
});

describe("POST /mutate/statefulsets", () => {
  it("answers with the patch, and wakes nothing (the validating hook wakes the set)", async () => {
    const onWake = vi.fn((_w: Wake) => {});
    const t = await testApp({ onWake });
    const r = await readReview(await t.post(WEBHOOK_PATHS.mutateStatefulSets, review(setRequest("CREATE", { type: "RollingUpdate" }))));
    expect(r.response.allowed).toBe(true);
    expect(decodePatch(r.response.patch!)).toEqual([{ op: "add", path: "/spec/updateStrategy/rollingUpdate", value: DEFAULTS }]);
    expect(onWake).not.toHaveBeenCalled();
    await t.post(WEBHOOK_PATHS.validateStatefulSets, review(request({ kind: osts, name: "web", object: sampleSet() })));
    expect(onWake).toHaveBeenCalledTimes(1);
  });
});
