/**
 * The reconciler's readiness (src/node/readiness.ts, GET /readyz) and the start-up identity probe
 * (src/reconciler/identity-probe.ts): 503 naming both identities while Ordinal's webhook refuses the
 * reconciler for its identity, from the probe or from a refused write; ready again once a probe passes.
 */
import { describe, expect, it } from "vitest";
import { createKubeClient } from "../../src/kube/http.ts";
import type { Logger } from "../../src/log/log.ts";
import { ReconcilerReadiness } from "../../src/node/readiness.ts";
import { identityMismatchMessage, reconcilerOnly } from "../../src/objects/reconciler-identity.ts";
import { probeReconcilerIdentity, type IdentityProbe } from "../../src/reconciler/identity-probe.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";

const SA = "system:serviceaccount:ordinal-system:ordinal-reconciler";
const refusal = { expected: SA, actual: "admin" };
const denial = `admission webhook "pods.validate.ordinal.dev" denied the request: Pod "ordinal-identity-probe-x" is invalid: metadata.annotations[ordinal.dev/inplace-update-state]: Forbidden: added "{}": ${reconcilerOnly(SA, "admin")}`;

function setup(answers: IdentityProbe[]) {
  const lines: { level: string; msg: string }[] = [];
  const log: Logger = { info: (msg) => void lines.push({ level: "info", msg }), warn: (msg) => void lines.push({ level: "warn", msg }), error: (msg) => void lines.push({ level: "error", msg }) };
  let probes = 0;
  let counted = 0;
  const readiness = new ReconcilerReadiness(
    async () => answers[Math.min(probes++, answers.length - 1)],
    log,
    () => void counted++,
  );
  const status = async () => {
    const r = readiness.response();
    return [r.status, await r.text()] as const;
  };
  return { readiness, lines, status, probes: () => probes, counted: () => counted };
}
const invocation = (r?: typeof refusal) => ({ passes: [{ sets: [{}, ...(r ? [{ identityRefusal: r }] : [])] }] });

describe("ReconcilerReadiness", () => {
  it("a refusing probe at start: 503 naming both identities and the fix, an error line, counted", async () => {
    const s = setup([{ ok: false, refusal }]);
    await s.readiness.observe();
    expect(await s.status()).toEqual([503, `not ready: ${identityMismatchMessage(refusal)}\n`]);
    expect(s.lines).toEqual([{ level: "error", msg: identityMismatchMessage(refusal) }]);
    expect(s.counted()).toBe(1);
  });
  it("an admitting probe at start: 200, and no more probes while invocations see no refusal", async () => {
    const s = setup([{ ok: true }]);
    await s.readiness.observe();
    await s.readiness.observe(invocation());
    await s.readiness.observe(invocation());
    expect(await s.status()).toEqual([200, "ok\n"]);
    expect(s.probes()).toBe(1);
  });
  it("a refused write makes it unready; the next quiet invocation probes, and a passing probe makes it ready", async () => {
    const s = setup([{ ok: true }, { ok: false, refusal }, { ok: true }]);
    await s.readiness.observe();
    await s.readiness.observe(invocation(refusal));
    expect((await s.status())[0]).toBe(503);
    await s.readiness.observe(invocation());
    expect((await s.status())[0]).toBe(503);
    await s.readiness.observe(invocation());
    expect(await s.status()).toEqual([200, "ok\n"]);
    expect(s.probes()).toBe(3);
  });
  it("a probe that cannot tell (RBAC, no namespace) warns and changes nothing", async () => {
    const s = setup([{ ok: undefined, error: "namespaces \"ordinal-system\" not found" }]);
    await s.readiness.observe();
    expect(await s.status()).toEqual([200, "ok\n"]);
    expect(s.lines.map((l) => l.level)).toEqual(["warn"]);
  });
});

describe("probeReconcilerIdentity", () => {
  const cluster = () => {
    const fake = createFakeApiServer({ namespaces: ["ordinal-system"] });
    const client = createKubeClient({ baseUrl: "https://fake", fetch: fake.fetch, sleep: async () => {}, maxAttempts: 1 });
    const seen: string[] = [];
    fake.onRequest((r) => void seen.push(`${r.method} ${r.path} ${r.query?.toString?.() ?? ""} ${r.body ?? ""}`));
    return { fake, client, seen };
  };
  it("creates, as a dry run, a labelled pod with the reserved annotation in the lease namespace, and stores nothing", async () => {
    const { fake, client, seen } = cluster();
    expect(await probeReconcilerIdentity(client, "ordinal-system")).toEqual({ ok: true });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/^POST \/api\/v1\/namespaces\/ordinal-system\/pods/);
    expect(seen[0]).toContain("dryRun=All");
    expect(seen[0]).toContain('"ordinal.dev/inplace-update-state":"{}"');
    expect(seen[0]).toContain('"ordinal.dev/statefulset"');
    expect(fake.list("/api/v1/namespaces/ordinal-system/pods")).toEqual([]);
  });
  it("reads the webhook's identity refusal", async () => {
    const { fake, client } = cluster();
    fake.faults.add({ verb: "create", resource: "pods", fault: { status: 400, reason: "BadRequest", message: denial } });
    expect(await probeReconcilerIdentity(client, "ordinal-system")).toEqual({ ok: false, refusal });
  });
  it("any other failure says nothing about identity", async () => {
    const { client } = cluster();
    const got = await probeReconcilerIdentity(client, "missing");
    expect(got.ok).toBeUndefined();
  });
});
