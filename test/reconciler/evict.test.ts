// evictPod's Eviction version (issue 35, G8): policy/v1beta1 first (1.20 knows no policy/v1), and
// policy/v1 once an apiserver refuses v1beta1 with its 400, remembered; a pod gone is false.
import { describe, expect, it } from "vitest";
import { ApiError, type KubeClient } from "../../src/kube/client.ts";
import { evictPod } from "../../src/reconciler/evict.ts";

/** A client whose apiserver serves only `served` Evictions; records the versions sent. */
function apiserver(served: string, missing = false) {
  const sent: string[] = [];
  const client = {
    createSubresource: (_r: unknown, _ns: unknown, name: string, sub: string, body: { apiVersion: string; deleteOptions?: unknown }) => {
      expect(sub).toBe("eviction");
      sent.push(body.apiVersion);
      if (missing) return Promise.reject(new ApiError(404, "NotFound", `pods "${name}" not found`));
      if (body.apiVersion !== served) return Promise.reject(new ApiError(400, "BadRequest", `Eviction in version "x" cannot be handled as a Eviction: no kind "Eviction" is registered for version "${body.apiVersion}"`));
      return Promise.resolve({});
    },
  } as unknown as KubeClient;
  return { client, sent };
}

describe("evictPod", () => {
  it("sends policy/v1beta1 to an apiserver that takes it; falls back to policy/v1 where refused and remembers it; back again on a 1.20", async () => {
    const old = apiserver("policy/v1beta1");
    expect(await evictPod(old.client, "ns", "web-0", "u1")).toBe(true);
    expect(old.sent).toEqual(["policy/v1beta1"]);
    const next = apiserver("policy/v1");
    expect(await evictPod(next.client, "ns", "web-0", "u1")).toBe(true);
    expect(await evictPod(next.client, "ns", "web-1", "u2")).toBe(true);
    expect(next.sent).toEqual(["policy/v1beta1", "policy/v1", "policy/v1"]);
    const again = apiserver("policy/v1beta1");
    expect(await evictPod(again.client, "ns", "web-0", "u1")).toBe(true);
    expect(again.sent).toEqual(["policy/v1", "policy/v1beta1"]);
  });

  it("returns false for a pod that is gone (404), and throws other refusals", async () => {
    expect(await evictPod(apiserver("policy/v1beta1", true).client, "ns", "web-0", "u1")).toBe(false);
    const neither = apiserver("policy/v2");
    await expect(evictPod(neither.client, "ns", "web-0", "u1")).rejects.toThrow(/no kind "Eviction"/);
    expect(neither.sent).toHaveLength(2);
  });
});
