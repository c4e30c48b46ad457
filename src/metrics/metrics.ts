/**
 * src/metrics owns Ordinal's counters, the same in both runtimes: a tiny registry (counters and
 * fixed-bucket histograms, no dependency, so the Worker bundle stays small), rendered as
 * Prometheus text on Node (`GET /metrics`) and as one flat object in the Worker's per-invocation
 * log line. What is counted:
 *   ordinal_apiserver_requests_total{verb,resource,code}  every apiserver request (instrumentClient)
 *   ordinal_reconcile_passes_total, ordinal_reconcile_invocations_total{acquired}
 *   ordinal_reconcile_actions_total{action,outcome}        from each pass's result (recordRun)
 *   ordinal_reconcile_invocation_duration_seconds          histogram
 *   ordinal_webhook_requests_total{path,decision}, ordinal_webhook_duration_seconds{path}
 *   ordinal_reconciler_identity_refusals_total             writes (and start-up probes) Ordinal's webhook refused for the reconciler's identity
 */
import type { Logger } from "../log/log.ts";

type Labels = Record<string, string>;
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const key = (labels: Labels) =>
  Object.keys(labels)
    .sort()
    .map((k) => `${k}="${String(labels[k]).replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`)
    .join(",");

interface Histogram {
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * A registry's series as plain data (Maps clone across threads: the reconcile thread posts its own
 * to the main thread, which serves both as one exposition, prometheusOf).
 */
export interface MetricsState {
  counters: Map<string, Map<string, number>>;
  histograms: Map<string, Map<string, Histogram>>;
  help: Map<string, string>;
}

export class Metrics {
  private readonly counters = new Map<string, Map<string, number>>();
  private readonly histograms = new Map<string, Map<string, Histogram>>();
  private readonly help = new Map<string, string>();

  /** state returns this registry's series (live Maps: clone them, as postMessage does, to keep them). */
  state(): MetricsState {
    return { counters: this.counters, histograms: this.histograms, help: this.help };
  }

  /** add adds every series of `s` (another registry's) to this one: counters and histogram buckets summed per label set. */
  add(s: MetricsState): void {
    for (const [name, help] of s.help) this.help.set(name, help);
    for (const [name, series] of s.counters) {
      const mine = this.series(this.counters, name);
      for (const [k, v] of series) mine.set(k, (mine.get(k) ?? 0) + v);
    }
    for (const [name, series] of s.histograms) {
      const mine = this.series(this.histograms, name);
      for (const [k, h] of series) {
        const sum = mine.get(k) ?? { buckets: BUCKETS.map(() => 0), sum: 0, count: 0 };
        mine.set(k, { buckets: sum.buckets.map((b, i) => b + (h.buckets[i] ?? 0)), sum: sum.sum + h.sum, count: sum.count + h.count });
      }
    }
  }

  /** series returns the label-set map of family `name` in `families`, made empty when new. */
  private series<V>(families: Map<string, Map<string, V>>, name: string): Map<string, V> {
    const series = families.get(name) ?? new Map<string, V>();
    families.set(name, series);
    return series;
  }

  /** inc adds `by` to the counter `name` with `labels`. */
  inc(name: string, labels: Labels = {}, by = 1, help?: string): void {
    if (help) this.help.set(name, help);
    const series = this.series(this.counters, name);
    const k = key(labels);
    series.set(k, (series.get(k) ?? 0) + by);
  }

  /** observe records `seconds` in the histogram `name`. */
  observe(name: string, labels: Labels, seconds: number, help?: string): void {
    if (help) this.help.set(name, help);
    const series = this.series(this.histograms, name);
    const k = key(labels);
    const h = series.get(k) ?? { buckets: BUCKETS.map(() => 0), sum: 0, count: 0 };
    series.set(k, h);
    BUCKETS.forEach((b, i) => {
      if (seconds <= b) h.buckets[i]++;
    });
    h.sum += seconds;
    h.count++;
  }

  /** snapshot returns every counter and histogram count/sum as `name{labels}` → value (log lines). */
  snapshot(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, series] of this.counters) for (const [k, v] of series) out[k ? `${name}{${k}}` : name] = v;
    for (const [name, series] of this.histograms) {
      for (const [k, h] of series) {
        out[k ? `${name}_count{${k}}` : `${name}_count`] = h.count;
        out[k ? `${name}_sum{${k}}` : `${name}_sum`] = Math.round(h.sum * 1000) / 1000;
      }
    }
    return out;
  }

  /** prometheus returns the text exposition format (version 0.0.4). */
  prometheus(): string {
    const lines: string[] = [];
    const head = (name: string, type: string) => {
      if (this.help.has(name)) lines.push(`# HELP ${name} ${this.help.get(name)}`);
      lines.push(`# TYPE ${name} ${type}`);
    };
    for (const [name, series] of this.counters) {
      head(name, "counter");
      for (const [k, v] of series) lines.push(`${name}${k ? `{${k}}` : ""} ${v}`);
    }
    for (const [name, series] of this.histograms) {
      head(name, "histogram");
      for (const [k, h] of series) {
        const sep = k ? `${k},` : "";
        BUCKETS.forEach((b, i) => lines.push(`${name}_bucket{${sep}le="${b}"} ${h.buckets[i]}`));
        lines.push(`${name}_bucket{${sep}le="+Inf"} ${h.count}`);
        lines.push(`${name}_sum${k ? `{${k}}` : ""} ${h.sum}`);
        lines.push(`${name}_count${k ? `{${k}}` : ""} ${h.count}`);
      }
    }
    return lines.join("\n") + "\n";
  }
}

/**
 * prometheusOf returns one text exposition of several registries (the main thread's and the
 * reconcile thread's, which both count apiserver requests): each family once, under one HELP and
 * TYPE, its series of the same labels summed. Absent registries (a thread not yet heard from) are skipped.
 */
export function prometheusOf(...registries: (MetricsState | undefined)[]): string {
  const all = new Metrics();
  for (const r of registries) if (r) all.add(r);
  return all.prometheus();
}

/** The shape of a reconcile invocation's result this module reads (src/schedule/loop.ts RunResult). */
export interface RunSummary {
  acquired: boolean;
  passes: { sets: { set: string; actions: string[]; error?: string; identityRefusals?: number }[] }[];
}

/** countIdentityRefusals adds `n` writes (or probes) Ordinal's webhook refused for the reconciler's identity. */
export function countIdentityRefusals(m: Metrics, n: number): void {
  m.inc("ordinal_reconciler_identity_refusals_total", {}, n, "Reconciler writes (and start-up probes) Ordinal's webhook refused because the reconciler is not the identity it expects");
}

/**
 * recordRun counts an invocation: passes, and each action by kind (its first word, e.g.
 * `createPod`) and outcome (`ok`; the set's failing action is not in `actions`, so a set error
 * counts once as `error`).
 */
export function recordRun(m: Metrics, r: RunSummary, seconds: number): void {
  m.inc("ordinal_reconcile_invocations_total", { acquired: String(r.acquired) }, 1, "Reconcile invocations (cron ticks, loop turns)");
  m.observe("ordinal_reconcile_invocation_duration_seconds", {}, seconds, "Wall time of a reconcile invocation");
  m.inc("ordinal_reconcile_passes_total", {}, r.passes.length, "Reconcile passes");
  for (const p of r.passes) {
    for (const s of p.sets) {
      for (const a of s.actions) m.inc("ordinal_reconcile_actions_total", { action: a.split(/[\s(:]/)[0], outcome: "ok" }, 1, "Actions executed, by kind and outcome");
      if (s.error) m.inc("ordinal_reconcile_actions_total", { action: "any", outcome: "error" });
      if (s.identityRefusals) countIdentityRefusals(m, s.identityRefusals);
    }
  }
}

/**
 * metricsLogger returns a Logger that forwards to `log` and counts the HTTP layer's "admission"
 * entries (path, allowed, ms; written at debug, counted at every level) as webhook decisions and latency — so the webhook handlers need
 * no metrics code of their own.
 */
export function metricsLogger(log: Logger, m: Metrics): Logger {
  const see = (msg: string, f?: Record<string, unknown>) => {
    if (msg === "admission" && f) {
      const path = String(f.path ?? "");
      const decision = f.allowed ? (f.patched ? "patched" : "allowed") : "denied";
      m.inc("ordinal_webhook_requests_total", { path, decision }, 1, "AdmissionReviews answered, by decision");
      if (typeof f.ms === "number") m.observe("ordinal_webhook_duration_seconds", { path }, f.ms / 1000, "Time to answer an AdmissionReview");
    } else if (msg === "webhook request refused" && f) {
      m.inc("ordinal_webhook_requests_total", { path: String(f.path ?? ""), decision: `http_${String(f.status ?? "")}` });
    }
  };
  return {
    debug: (msg, f) => (see(msg, f), log.debug?.(msg, f)),
    info: (msg, f) => (see(msg, f), log.info(msg, f)),
    warn: (msg, f) => (see(msg, f), log.warn(msg, f)),
    error: (msg, f) => (see(msg, f), log.error(msg, f)),
  };
}
