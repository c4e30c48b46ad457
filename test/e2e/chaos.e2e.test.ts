/**
 * A short seeded chaos run (test/chaos, issue 36) on the e2e suite's control plane, so CI holds it:
 * deploy/ applied, two `ordinal serve` replicas with deploy/'s settings behind fault proxies and a
 * webhook front, four mixed sets scaled and re-imaged by a scripted person, faults for about two
 * minutes (replica kill and SIGSTOP past its Lease, apiserver restart, resets, delays, 429/500/504,
 * webhooks down) — the independent observer (test/chaos/observer) counts no violation and every
 * set converges within the limit after the last fault. Ports apart from the other files' servers;
 * the webhook configurations and the chaos namespaces are removed afterwards.
 */
import { afterAll, describe, expect, it } from "vitest";
import { runChaos } from "../chaos/chaos.ts";
import { formatFigures } from "../chaos/report.ts";
import { kubectl } from "./support.ts";

const dir = process.env.ORDINAL_CLUSTER_DIR ?? "/tmp/ordinal-e2e-cluster";
const LIMIT_MS = 180_000;

afterAll(() => {
  kubectl(["delete", "mutatingwebhookconfiguration,validatingwebhookconfiguration", "ordinal", "--ignore-not-found"]);
  // No kubelet finishes the pods' graceful deletion: force it, so the namespaces go.
  for (const ns of kubectl(["get", "namespaces", "-l", "chaos.ordinal.dev/run", "-o", "name"]).split("\n").filter(Boolean)) {
    const name = ns.replace("namespace/", "");
    kubectl(["delete", "namespace", name, "--wait=false"]);
    kubectl(["delete", "pods", "--all", "-n", name, "--grace-period=0", "--force"]);
  }
});

describe("a short seeded chaos run", () => {
  it("seed 7, 2 minutes of faults: no violation, every set converges after the last fault", { timeout: 600_000 }, async () => {
    const figures = await runChaos({
      clusterDir: dir,
      auditLog: process.env.ORDINAL_AUDIT_LOG || undefined,
      seed: 7,
      faultMs: 120_000,
      convergeLimitMs: LIMIT_MS,
      sets: 4,
      ports: { front: 28450, replicas: [28451, 28452], proxies: [28460, 28461] },
      workDir: `${dir}.chaos`,
    });
    console.log(formatFigures(figures, LIMIT_MS).join("\n"));
    expect(Object.values(figures.faults).reduce((a, b) => a + b, 0)).toBeGreaterThan(3);
    expect(figures.violations).toEqual([]);
    expect(figures.unconverged).toEqual([]);
  });
});
