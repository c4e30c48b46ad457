// The Worker's `scheduled` handler inside workerd: a cron tick runs reconcile passes against the
// in-process fake apiserver, reached through a KUBE_API binding (as a Workers VPC service would).
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import worker from "../../src/worker.ts";
import { setManifest } from "../support/fixtures.ts";

const set = setManifest({ replicas: 2, policy: "Parallel", claims: ["data"] });

describe("scheduled (cron tick) in workerd", () => {
  it("creates the set's claims and pods through the binding, within the subrequest budget", async () => {
    const fake = createFakeApiServer({ namespaces: ["default", "ordinal-system"] });
    await fake.seed(set);
    const env = { KUBE_API_URL: "https://cluster.internal", KUBE_TOKEN: "token", KUBE_API: { fetch: fake.fetch }, RECONCILE_BUDGET_MS: "2000", MAX_SUBREQUESTS: "50" };
    const ctx = createExecutionContext();
    await worker.scheduled({ scheduledTime: Date.now(), cron: "* * * * *" }, env, ctx);
    await waitOnExecutionContext(ctx);
    const pods = fake.list<Pod>("/api/v1/namespaces/default/pods").map((p) => p.metadata!.name).sort();
    expect(pods).toEqual(["web-0", "web-1"]);
    expect(fake.list("/api/v1/namespaces/default/persistentvolumeclaims").length).toBe(2);
    expect(fake.log.total).toBeLessThanOrEqual(50);
    // The lease was taken and released again.
    const lease = fake.get<{ spec?: { holderIdentity?: string } }>("/apis/coordination.k8s.io/v1/namespaces/ordinal-system/leases/ordinal-reconciler");
    expect(lease?.spec?.holderIdentity).toBeUndefined();
  });
});
