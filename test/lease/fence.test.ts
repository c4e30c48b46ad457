/** The Lease fence (src/lease/fence.ts) covers the client's own retries of a write, not only the call. */
import { describe, expect, it } from "vitest";
import { createKubeClient } from "../../src/kube/http.ts";
import { R } from "../../src/kube/resources.ts";
import { fencedClient } from "../../src/lease/fence.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";

describe("fencedClient", () => {
  it.each([
    ["a create", (c: ReturnType<typeof fencedClient>) => c.create(R.pods, "default", { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "i" }] } })],
    ["a patch", (c: ReturnType<typeof fencedClient>) => c.patch(R.pods, "default", "p0", { metadata: { labels: { a: "b" } } }, "merge")],
    ["a delete", (c: ReturnType<typeof fencedClient>) => c.delete(R.pods, "default", "p0")],
  ])("%s retried after a 500 is not sent again once the Lease is lost during the backoff", async (_, write) => {
    const fake = createFakeApiServer({ seed: 1 });
    fake.seed({ apiVersion: "v1", kind: "Pod", metadata: { name: "p0", namespace: "default" }, spec: { containers: [{ name: "c", image: "i" }] } });
    fake.faults.add({ verb: ["create", "patch", "delete"], fault: "internal", times: 1 });
    let holds = true;
    // The backoff between the two attempts is where the Lease is lost.
    const inner = createKubeClient({ baseUrl: "https://k", fetch: fake.fetch, sleep: async () => void (holds = false) });
    fake.log.clear();
    await expect(write(fencedClient(inner, () => holds))).rejects.toThrow(/lease was not renewed/);
    expect(fake.log.entries.filter((e) => e.verb !== "get" && e.verb !== "list")).toHaveLength(1);
  });
});
