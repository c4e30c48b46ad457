import type { Logger } from "../log/log.ts";
import { identityMismatchMessage, type IdentityRefusal } from "../objects/reconciler-identity.ts";
import type { IdentityProbe } from "../reconciler/identity-probe.ts";

/** While the probe keeps giving the same answer, its log line is repeated at most this often. */
export const REPEAT_LOG_MS = 5 * 60_000;

/** The part of an invocation's result readiness reads: each set's first identity refusal. */
interface InvocationSummary {
  passes: { sets: { identityRefusal?: IdentityRefusal }[] }[];
}

/**
 * ReconcilerReadiness is what `GET /readyz` answers: 200 while the reconciler can do its job, 503
 * naming both identities and the fix while Ordinal's webhook refuses the reconciler's writes for
 * its identity, and 503 while no webhook configuration points at this server (`registered`). It learns that from the start-up probe (probeReconcilerIdentity) and from each
 * pass's refused writes; once refused, every later pass without a refusal probes
 * again, and a passing probe clears it. `/healthz` stays the webhooks' liveness (the
 * Deployment's probes use it), so a reconciler that cannot write never takes the webhooks out
 * of the Service. The probe's refusal (or its failure to tell) is logged once per change of
 * answer and then at most every REPEAT_LOG_MS, with how many probes said the same meanwhile; the
 * metric (`onProbeRefused`) counts every refused probe.
 */
export class ReconcilerReadiness {
  private refusal: IdentityRefusal | undefined;
  private probed = false;
  /** The last answer logged (its key), when, and how many probes gave it since without a line. */
  private logged: { key: string; atMs: number; unlogged: number } | undefined;

  constructor(
    private readonly probe: () => Promise<IdentityProbe>,
    private readonly log: Logger,
    /** Called with each refusal the probe finds (the metric). */
    private readonly onProbeRefused: () => void = () => {},
    private readonly nowMs: () => number = Date.now,
    /** Why no webhook configuration sends this server its reviews (undefined: one does); unset: not asked. */
    private readonly registered?: () => Promise<string | undefined>,
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
      this.logged = undefined;
    } else if (probe.ok === false) {
      const { refusal } = probe;
      this.refusal = refusal;
      this.onProbeRefused();
      this.once(`refused ${refusal.expected} ${refusal.actual}`, (f) =>
        this.log.error(identityMismatchMessage(refusal), { reconciler: refusal.actual, expected: refusal.expected, ...f }),
      );
    } else {
      const { error } = probe;
      this.once(`unknown ${error}`, (f) =>
        this.log.warn("could not ask Ordinal's webhook whether it takes this process for the reconciler (a dry-run pod create)", { error, ...f }),
      );
    }
  }

  /**
   * once calls `write` for the probe's answer `key` when it differs from the last one logged or
   * REPEAT_LOG_MS have passed since that line (with `repeats`: the probes that said the same
   * meanwhile, unlogged); otherwise it only counts the answer.
   */
  private once(key: string, write: (fields: { repeats?: number }) => void): void {
    const now = this.nowMs();
    const last = this.logged;
    if (last && last.key === key && now - last.atMs < REPEAT_LOG_MS) {
      last.unlogged++;
      return;
    }
    write(last?.key === key && last.unlogged > 0 ? { repeats: last.unlogged } : {});
    this.logged = { key, atMs: now, unlogged: 0 };
  }

  /**
   * response is the /readyz answer: 200 "ok", or 503 saying what is wrong and its fix: the
   * webhook refuses the reconciler's identity, or no webhook configuration points at this server.
   */
  async response(): Promise<Response> {
    const reason = this.refusal ? identityMismatchMessage(this.refusal) : await this.registered?.();
    if (!reason) return new Response("ok\n", { headers: { "content-type": "text/plain" } });
    return new Response(`not ready: ${reason}\n`, { status: 503, headers: { "content-type": "text/plain" } });
  }
}
