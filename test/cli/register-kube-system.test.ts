/** `ordinal register` on a 1.20 apiserver (the fake answers /version as 1.20.2): kube-system labelled, or a warning saying what it costs and how to fix it. */
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { R } from "../../src/kube/resources.ts";
import { needsKubeSystemOptOut } from "../../src/webhook-config/kube-system-opt-out.ts";
import { cliWorld } from "./helpers.ts";

const URL_A = "https://127.0.0.1:28443";
const labelsOfKubeSystem = async (w: ReturnType<typeof cliWorld>) => (await w.client.get<{ metadata: { labels?: Record<string, string> } }>(R.namespaces, undefined, "kube-system"))?.metadata.labels ?? {};

describe("ordinal register on Kubernetes 1.20", () => {
  it("labels kube-system ordinal.dev/webhooks=disabled and says so; once labelled, says nothing more", async () => {
    const w = cliWorld();
    await w.client.create(R.namespaces, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name: "kube-system" } });
    expect(await main(["register", "--url", URL_A], w.ctx)).toBe(0);
    expect(w.out[0]).toContain("namespace/kube-system labelled ordinal.dev/webhooks=disabled");
    expect(await labelsOfKubeSystem(w)).toMatchObject({ "ordinal.dev/webhooks": "disabled" });
    expect(await main(["register", "--url", URL_A], w.ctx)).toBe(0);
    expect(w.out[1]).not.toContain("kube-system");
    expect(w.err).toEqual([]);
  });

  it("warns, naming the cost and the command, when the label may not be written (RBAC), and still registers", async () => {
    const w = cliWorld();
    await w.client.create(R.namespaces, undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name: "kube-system" } });
    w.fake.faults.add({ verb: "patch", resource: "namespaces", fault: { status: 403, reason: "Forbidden", message: 'namespaces "kube-system" is forbidden' } });
    expect(await main(["register", "--url", URL_A], w.ctx)).toBe(0);
    expect(w.out[0]).toContain("MutatingWebhookConfiguration/ordinal created");
    expect(w.err.join("\n")).toMatch(/older than Kubernetes 1\.21.*is forbidden.*every pod binding in kube-system.*kubectl label ns kube-system ordinal\.dev\/webhooks=disabled/);
  });
});

describe("needsKubeSystemOptOut", () => {
  it.each([
    ["1", "20", true],
    ["1", "20+", true],
    ["1", "21", false],
    ["1", "28", false],
    ["1", "", false],
  ])("%s.%s → %s", (major, minor, needed) => {
    expect(needsKubeSystemOptOut({ major, minor })).toBe(needed);
  });
});
