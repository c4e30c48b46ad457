/**
 * reconcilePass (src/reconciler/pass.ts) at its edges: a stored set that does not parse (written
 * around the webhook) is skipped with "invalid spec" and a warning while the other sets are
 * reconciled; without the ImageList CRD (an older install) the sets are still reconciled.
 */
import { describe, expect, it } from "vitest";
import type { Pod } from "../../src/api/k8s.ts";
import { createKubeClient } from "../../src/kube/http.ts";
import type { Logger } from "../../src/log/log.ts";
import { reconcilePass } from "../../src/reconciler/pass.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";
import { ordinalCustomResources } from "../../src/sim/fake-apiserver/kinds/custom.ts";
import { NOW, setManifest } from "../support/fixtures.ts";

describe("reconcilePass with a set that does not parse", () => {
  it("skips it with a warning and reconciles the others", async () => {
    const fake = createFakeApiServer({ namespaces: ["default"] });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    fake.seed(setManifest({ name: "good", replicas: 1, policy: "Parallel" }));
    fake.seed(setManifest({ name: "bad", replicas: 1, policy: "Parallel" }));
    const bad = fake.get<{ spec: Record<string, unknown> }>("/apis/apps.ordinal.dev/v1/namespaces/default/statefulsets/bad")!;
    // Many wrong fields: the parse error is long, the warning keeps its first 500 characters.
    fake.put({ ...bad, spec: { ...bad.spec, replicas: "three", minReadySeconds: "x", revisionHistoryLimit: "y", serviceName: 5, podManagementPolicy: "Nope", ordinals: "z" } });
    const warnings: Record<string, unknown>[] = [];
    const log: Logger = { info() {}, error() {}, warn: (msg, f) => void warnings.push({ msg, ...f }) };
    const r = await reconcilePass(client, { now: () => NOW, log });
    expect(r.sets.find((s) => s.set === "default/bad")).toEqual({ set: "default/bad", actions: [], error: "invalid spec", waiting: false });
    expect(r.sets.find((s) => s.set === "default/good")?.error).toBeUndefined();
    const warning = warnings.find((w) => w.msg === "set skipped: does not parse");
    expect(warning).toMatchObject({ set: "default/bad" });
    expect(typeof warning!.error).toBe("string");
    expect((warning!.error as string).length).toBe(500);
    expect(warning!.error).toContain("replicas");
    const pods = fake.list<Pod>("/api/v1/namespaces/default/pods").map((p) => p.metadata!.name);
    expect(pods).toEqual(["good-0"]);
  });
});

describe("reconcilePass without the ImageList CRD (an older install)", () => {
  it("reconciles the sets: the ImageLists' 404 is no ImageList", async () => {
    const fake = createFakeApiServer({ namespaces: ["default"], customResources: ordinalCustomResources().filter((c) => c.plural !== "imagelists") });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    fake.seed(setManifest({ name: "web", replicas: 2, policy: "Parallel" }));
    const warnings: unknown[] = [];
    const log: Logger = { info() {}, error() {}, warn: (msg) => void warnings.push(msg) };
    const r = await reconcilePass(client, { now: () => NOW, log });
    expect(r.sets).toHaveLength(1);
    expect(r.sets[0].error).toBeUndefined();
    expect(fake.list<Pod>("/api/v1/namespaces/default/pods").map((p) => p.metadata!.name).sort()).toEqual(["web-0", "web-1"]);
    expect(fake.log.entries.some((e) => e.resource === "imagelists" && e.code === 404)).toBe(true);
  });
});
