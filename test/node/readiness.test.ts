/**
 * The reconciler's readiness (src/node/readiness.ts, GET /readyz) and the start-up identity probe
 * (src/reconciler/identity-probe.ts): 503 naming both identities while Ordinal's webhook refuses the
 * reconciler for its identity, from the probe or from a refused write; ready again once a probe passes.
 */
import { describe, expect, it } from "vitest";
import { createKubeClient } from "../../src/kube/http.ts";
import type { Logger } from "../../src/log/log.ts";
import { ReconcilerReadiness, REPEAT_LOG_MS } from "../../src/node/readiness.ts";
import { identityMismatchMessage, reconcilerOnly } from "../../src/objects/reconciler-identity.ts";
import { probeReconcilerIdentity, type IdentityProbe } from "../../src/reconciler/identity-probe.ts";
import { createFakeApiServer } from "../../src/sim/fake-apiserver/index.ts";

const SA = "system:serviceaccount:ordinal-system:ordinal-reconciler";
const refusal = { expected: SA, actual: "admin" };
const denial = `admission webhook "pods.validate.ordinal.dev" denied the request: Pod "ordinal-identity-probe-x" is invalid: metadata.annotations[ordinal.dev/inplace-update-state]: Forbidden: added "{}": ${reconcilerOnly(SA, "admin")}`;

function setup(answers: IdentityProbe[]) {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const line = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, ...(fields?.repeats ? { fields } : {}) });
  const log: Logger = { info: line("info"), warn: line("warn"), error: line("error") };
  let probes = 0;
  let counted = 0;
  const clock = { ms: 0 };
  const readiness = new ReconcilerReadiness(
    async () => answers[Math.min(probes++, answers.length - 1)],
    log,
    () => void counted++,
    () => clock.ms,
  );
  const status = async () => {
    const r = await readiness.response();
    return [r.status, await r.text()] as const;
  };
  return { readiness, lines, status, clock, probes: () => probes, counted: () => counted };
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
  it("a refusal that lasts is logged once per change and every REPEAT_LOG_MS at most, and counted at every probe", async () => {
    const other = { expected: SA, actual: "system:serviceaccount:ci:deployer" };
    const s = setup([...Array<IdentityProbe>(60).fill({ ok: false, refusal }), { ok: false, refusal: other }, { ok: true }, { ok: false, refusal }]);
    const error = { level: "error", msg: identityMismatchMessage(refusal) };
    await s.readiness.observe();
    for (let i = 1; i < 30; i++) {
      s.clock.ms = i * 1000; // a quiet pass a second
      await s.readiness.observe(invocation());
    }
    expect(s.lines).toEqual([error]);
    s.clock.ms = REPEAT_LOG_MS; // five minutes after the first line: said again, with the probes since
    await s.readiness.observe(invocation());
    expect(s.lines).toEqual([error, { ...error, fields: { reconciler: "admin", expected: SA, repeats: 29 } }]);
    for (let i = 31; i < 60; i++) await s.readiness.observe(invocation());
    expect(s.lines).toHaveLength(2);
    await s.readiness.observe(invocation()); // another identity: a change, said at once
    expect(s.lines.at(-1)).toEqual({ level: "error", msg: identityMismatchMessage(other) });
    await s.readiness.observe(invocation()); // ready
    await s.readiness.observe(invocation(refusal)); // a refused write: unready again
    await s.readiness.observe(invocation()); // the probe refuses: a change since ready, said at once
    expect(s.lines.slice(3)).toEqual([{ level: "info", msg: "Ordinal's webhook takes the reconciler for the reconciler again: ready" }, error]);
    expect(s.counted()).toBe(62);
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

describe("ReconcilerReadiness and the webhook registration", () => {
  const log: Logger = { info() {}, warn() {}, error() {} };
  it("503 naming what is missing while no webhook configuration points at this server; 200 once one does", async () => {
    let gap: string | undefined = "no MutatingWebhookConfiguration ordinal is registered, so the apiserver sends this server nothing";
    const readiness = new ReconcilerReadiness(async () => ({ ok: true }), log, () => {}, () => 0, async () => gap);
    await readiness.observe();
    const r = await readiness.response();
    expect([r.status, await r.text()]).toEqual([503, `not ready: ${gap}\n`]);
    gap = undefined;
    expect((await readiness.response()).status).toBe(200);
  });

  it("an identity refusal is named first: it is the one a person must fix before any review can land", async () => {
    const readiness = new ReconcilerReadiness(async () => ({ ok: false, refusal }), log, () => {}, () => 0, async () => "not registered");
    await readiness.observe();
    expect(await (await readiness.response()).text()).toBe(`not ready: ${identityMismatchMessage(refusal)}\n`);
  });
});
