/**
 * The fault layer at the KubeClient seam (src/sim/faults/fault-fetch.ts) in front of a fetch that
 * is not the fake apiserver: requests are described from their URL alone, faults answer in the
 * server's place or after it, and a KubeClient over it sees what it would see from a real apiserver.
 */
import { describe, expect, it } from "vitest";
import { ApiError, isConflict } from "../../src/kube/client.ts";
import { createKubeClient, type FetchLike } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { faultFetch, type FaultOutcome } from "../../src/sim/faults/fault-fetch.ts";
import { Faults, SimulatedCrash } from "../../src/sim/faults/faults.ts";
import { describeRequest } from "../../src/sim/faults/request-info.ts";

/** recordingServer returns a fetch that answers 200 with the request it got, and the requests it got. */
function recordingServer() {
  const got: { method: string; url: string; body: string }[] = [];
  const fetch: FetchLike = async (input, init) => {
    got.push({ method: init?.method ?? "GET", url: String(input), body: typeof init?.body === "string" ? init.body : "" });
    return new Response(JSON.stringify({ kind: "Pod", metadata: { name: "p" } }), { status: 200, headers: { "content-type": "application/json" } });
  };
  return { fetch, got };
}

describe("describeRequest (any apiserver's URL shapes)", () => {
  it.each([
    ["GET", "/api/v1/namespaces/ns/pods", { verb: "list", group: "", resource: "pods", namespace: "ns", name: "", subresource: "" }],
    ["PUT", "/api/v1/namespaces/ns/pods/web-0/status", { verb: "update", group: "", resource: "pods", namespace: "ns", name: "web-0", subresource: "status" }],
    ["PATCH", "/apis/apps.ordinal.dev/v1/namespaces/ns/statefulsets/web", { verb: "patch", group: "apps.ordinal.dev", resource: "statefulsets", namespace: "ns", name: "web" }],
    ["GET", "/api/v1/namespaces/ns", { verb: "get", resource: "namespaces", namespace: "", name: "ns" }],
    ["PUT", "/api/v1/namespaces/ns/finalize", { verb: "update", resource: "namespaces", name: "ns", subresource: "finalize" }],
    ["DELETE", "/api/v1/namespaces/ns/persistentvolumeclaims", { verb: "deletecollection", resource: "persistentvolumeclaims" }],
    ["GET", "/apis/coordination.k8s.io/v1/namespaces/ns/leases?watch=true", { verb: "watch", group: "coordination.k8s.io", resource: "leases" }],
    ["GET", "/version", { verb: "get", resource: "" }],
  ] as const)("%s %s", (method, path, want) => {
    expect(describeRequest(method, new URL(`https://k8s.example${path}`), "")).toMatchObject(want);
  });
});

describe("faultFetch in front of any fetch", () => {
  it("a rule on verb, resource and subresource answers the Status in the server's place", async () => {
    const server = recordingServer();
    const faults = new Faults();
    const h = faults.add({ verb: "update", resource: "pods", subresource: "status", fault: "conflict", times: 1 });
    const client = createKubeClient({ baseUrl: "https://k8s.example", fetch: faultFetch(server.fetch, faults), sleep: async () => {}, maxAttempts: 1 });
    const pod = { metadata: { name: "web-0", namespace: "ns" } };
    const err = await client.update(R.pods, "ns", pod, "status").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(isConflict(err)).toBe(true);
    expect(server.got).toEqual([]);
    await client.update(R.pods, "ns", pod, "status");
    expect(server.got).toEqual([{ method: "PUT", url: "https://k8s.example/api/v1/namespaces/ns/pods/web-0/status", body: JSON.stringify(pod) }]);
    expect(h.hits).toBe(1);
  });

  it("lost and crash-after reach the server, then fail; network and crash never reach it", async () => {
    const server = recordingServer();
    const faults = new Faults();
    const outcomes: FaultOutcome[] = [];
    const fetch = faultFetch(server.fetch, faults, { after: (_info, o) => void outcomes.push(o) });
    const url = "https://k8s.example/api/v1/namespaces/ns/configmaps";
    const post = () => fetch(url, { method: "POST", body: "{}" });
    for (const fault of ["network", "crash", "lost", "crash-after"] as const) faults.add({ fault, times: 1 });
    await expect(post()).rejects.toThrow(TypeError);
    expect(server.got).toHaveLength(0);
    await expect(post()).rejects.toMatchObject({ name: "SimulatedCrash", applied: false });
    expect(server.got).toHaveLength(0);
    await expect(post()).rejects.toMatchObject({ message: "fetch failed", cause: { message: expect.stringMatching(/response lost/) as unknown } });
    expect(server.got).toHaveLength(1);
    await expect(post()).rejects.toBeInstanceOf(SimulatedCrash);
    expect(server.got).toHaveLength(2);
    expect((await post()).status).toBe(200);
    expect(outcomes.map((o) => [o.fault ?? "none", o.applied, o.delivered, o.status])).toEqual([
      ["network", false, false, 0],
      ["crash", false, false, 0],
      ["lost", true, false, 200],
      ["crash-after", true, false, 200],
      ["none", true, true, 200],
    ]);
  });

  it("random conflicts fall on writes only: a read is never answered 409", async () => {
    const server = recordingServer();
    const faults = new Faults();
    faults.random({ seed: 7, rate: 1, kinds: ["conflict"] });
    const fetch = faultFetch(server.fetch, faults);
    expect((await fetch("https://k8s.example/api/v1/namespaces/ns/pods/p")).status).toBe(200);
    expect((await fetch("https://k8s.example/api/v1/namespaces/ns/pods/p", { method: "DELETE" })).status).toBe(409);
  });
});
