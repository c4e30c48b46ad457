/**
 * The fake apiserver's conformance, checked against the real one: every case of
 * test/sim/conformance-cases.ts (which the fake passes in the unit suite) is replayed here
 * against the real kube-apiserver, each in a fresh namespace. A case that fails here means the
 * expectation — and so the fake — differs from the real apiserver.
 */
import { readFileSync } from "node:fs";
import { Agent, fetch as undiciFetch } from "undici";
import { beforeAll, describe, expect, it } from "vitest";
import { CONFORMANCE_CASES, replayCase } from "../sim/conformance-cases.ts";
import { env, newNamespace, setupCluster } from "./support.ts";

const dispatcher = new Agent({ connect: { ca: readFileSync(env.KUBE_CA_FILE, "utf8") } });
const realFetch = (input: string, init?: RequestInit) => undiciFetch(input, { ...(init as object), dispatcher } as never) as unknown as Promise<Response>;

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
