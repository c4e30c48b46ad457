/**
 * Replays test/sim/conformance-cases.ts against the fake. The same cases pass against a real
 * kube-apiserver 1.20 (the e2e suite replays them there), so this is the fake's conformance.
 */
import { describe, expect, it } from "vitest";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { CONFORMANCE_CASES, replayCase } from "./conformance-cases.ts";
import { BASE } from "./helpers.ts";

describe("conformance cases", () => {
  it.each(CONFORMANCE_CASES.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const server = createFakeApiServer({ namespaces: ["default", "conformance"] });
    const failures = await replayCase(c, { fetch: server.fetch, baseUrl: BASE, namespace: "conformance", eventuallyMs: 0 });
    expect(failures).toEqual([]);
  });

  it("cases use names unique to each case", () => {
    const names = CONFORMANCE_CASES.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
