import type { Logger } from "../log/log.ts";
import { identityMismatchMessage, type IdentityRefusal } from "../objects/reconciler-identity.ts";
import type { IdentityProbe } from "../reconciler/identity-probe.ts";

/** The part of an invocation's result readiness reads: each set's first identity refusal. */
interface InvocationSummary {
  passes: { sets: { identityRefusal?: IdentityRefusal }[] }[];
}

/**
 * ReconcilerReadiness is what `GET /readyz` answers: 200 while the reconciler can do its job, 503
 * naming both identities and the fix while Ordinal's webhook refuses the reconciler's writes for
 * its identity. It learns that from the start-up probe (probeReconcilerIdentity) and from each
 * pass's refused writes; once refused, every later pass without a refusal probes
 * again, and a passing probe clears it. `/healthz` stays the webhooks' liveness (the
 * Deployment's probes use it), so a reconciler that cannot write never takes the webhooks out
 * of the Service.
 */
export class ReconcilerReadiness {
  private refusal: IdentityRefusal | undefined;
  private probed = false;

  constructor(
    private readonly probe: () => Promise<IdentityProbe>,
    private readonly log: Logger,
    /** Called with each refusal the probe finds (the metric). */
    private readonly onProbeRefused: () => void = () => {},
  ) {}

  /**
   * observe updates readiness after an invocation (or at start, with no result): a refused write
   * makes it unready; otherwise the probe runs at start and while unready. Never throws.
   */
  async observe(result?: InvocationSummary): Promise<void> {
    const refused = result?.passes.flatMap((p) => p.sets).find((s) => s.identityRefusal)?.identityRefusal;
    if (refused) {
      // The executor has logged it and recorded the Warning event on the set.
      this.refusal = refused;
      return;
    }
    if (this.probed && !this.refusal) return;
    this.probed = true;
    let probe: IdentityProbe;
    try {
      probe = await this.probe();
    } catch (e) {
      probe = { ok: undefined, error: e instanceof Error ? e.message : String(e) };
    }
    if (probe.ok === true) {
      if (this.refusal) this.log.info("Ordinal's webhook takes the reconciler for the reconciler again: ready");
      this.refusal = undefined;
    } else if (probe.ok === false) {
      this.refusal = probe.refusal;
      this.onProbeRefused();
      this.log.error(identityMismatchMessage(probe.refusal), { reconciler: probe.refusal.actual, expected: probe.refusal.expected });
    } else {
      this.log.warn("could not ask Ordinal's webhook whether it takes this process for the reconciler (a dry-run pod create)", { error: probe.error });
    }
  }

  /** response is the /readyz answer: 200 "ok", or 503 with the mismatch and its fix. */
  response(): Response {
    if (!this.refusal) return new Response("ok\n", { headers: { "content-type": "text/plain" } });
    return new Response(`not ready: ${identityMismatchMessage(this.refusal)}\n`, { status: 503, headers: { "content-type": "text/plain" } });
  }
}
