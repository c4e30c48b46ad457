/**
 * The fake apiserver's conformance, checked against the real one: every case of
 * test/sim/conformance-cases.ts (which the fake passes in the unit suite) is replayed here
 * against the real kube-apiserver, each in a fresh namespace. A case that fails here means the
 * expectation — and so the fake — differs from the real apiserver.
 */
import { fetchFor } from "../../src/node/kubeconfig.ts";
import { beforeAll, describe, expect, it } from "vitest";
import { CONFORMANCE_CASES, replayCase } from "../sim/conformance-cases.ts";
import { adminConfig, env, newNamespace, setupCluster } from "./support.ts";

const realFetch = fetchFor(adminConfig);

beforeAll(setupCluster);

describe("conformance cases replayed against the real kube-apiserver", () => {
  it.each(CONFORMANCE_CASES.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const namespace = await newNamespace("conf");
    const failures = await replayCase(c, {
      fetch: realFetch,
      baseUrl: env.KUBE_API_URL,
      namespace,
      headers: { Authorization: `Bearer ${env.KUBE_TOKEN}` },
      eventuallyMs: 90_000,
    });
    expect(failures).toEqual([]);
  });
});
