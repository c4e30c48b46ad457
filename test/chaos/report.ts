/**
 * The figures of a chaos run: faults by kind, the observer's violations, time to converge after
 * the last fault (median, max), the replicas' requests per minute during faults and outside them
 * (at their proxies: every attempt, the ones a fault answered included; and the apiserver's audit
 * log), the busiest second (a retry storm shows there), and each replica's memory over the run.
 */
import { readAuditLog } from "../support/audit.ts";
import type { FaultWindow } from "./faults/injector.ts";
import type { RssSample } from "./faults/replicas.ts";
import type { ObserverReport } from "./observer/index.ts";
import type { PersonCounts } from "./person.ts";

export interface FigureInputs {
  windows: FaultWindow[];
  report: ObserverReport;
  sets: string[];
  /** ms after the last fault at which each set converged (and stayed so). */
  convergedMs: Map<string, number>;
  convergeLimitMs: number;
  auditLog?: string;
  proxyCounts: Record<string, Record<string, number>>;
  replicas: { name: string; rss: RssSample[]; holders: string[] }[];
  person: PersonCounts;
  /** When the run began (epoch ms): the audit log holds what came before too (other tests' servers). */
  startedAt: number;
  durationMs: number;
}

interface ReplicaMemory {
  name: string;
  lives: number;
  /** Over its longest life, after a minute's warm-up: the median of the first and of the last 5 samples, and the largest. */
  startMb: number;
  endMb: number;
  maxMb: number;
  minutes: number;
  /** The median RSS of each 5 minutes of that life, in order (a plateau, or growth). */
  byFiveMinutes: number[];
}

export interface ChaosFigures {
  durationMin: number;
  faults: Record<string, number>;
  violations: ObserverReport["violations"];
  unconverged: string[];
  convergeMs: { median: number; max: number };
  /** Requests per minute, all replicas together, at the proxies (every attempt). */
  proxyPerMin: { faults: number; quiet: number; peakPerSecond: number };
  /** Per fault kind that hits one replica: that replica's requests per minute at its proxy during those windows (a retry storm shows here), and each replica's outside every window. */
  perKindPerMin: Record<string, number>;
  /** Requests per minute the apiserver logged from the replicas (user agent ordinal/...), if it logs. */
  auditPerMin?: { faults: number; quiet: number };
  memory: ReplicaMemory[];
  person: PersonCounts;
  events: number;
  /** Audit-log writes the observer judged against the shard Leases; events seen only through a relist. */
  auditWrites?: number;
  resyncEvents?: number;
  /** Per rule, how many times the observer judged it: what "0 violations" held against. */
  checks: Record<string, number>;
  /** Events whose watch lagged the others by more than the observer's settle time (judged after a later write). */
  lateEvents: number;
}

const median = (xs: number[]) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)];
};

/** inWindows returns whether `at` (epoch ms) falls in a fault window. */
const inWindows = (spans: [number, number][], at: number) => spans.some(([a, b]) => at >= a && at < b);

/** minutesOf returns the total length (minutes) of the windows, overlaps counted once. */
function minutesOf(spans: [number, number][]): number {
  let total = 0;
  let end = -Infinity;
  for (const [a, b] of [...spans].sort((x, y) => x[0] - y[0])) {
    if (b <= end) continue;
    total += b - Math.max(a, end);
    end = b;
  }
  return total / 60_000;
}

/** fiveMinutes splits a life's samples into its 5-minute spans. */
function fiveMinutes(life: RssSample[]): RssSample[][] {
  const out: RssSample[][] = [];
  for (const s of life) (out[Math.floor((s.at - life[0].at) / 300_000)] ??= []).push(s);
  return out.filter(Boolean);
}

/** memoryOf summarizes a replica's RSS samples over its longest life. */
function memoryOf(name: string, rss: RssSample[]): ReplicaMemory {
  const lives = new Map<number, RssSample[]>();
  for (const s of rss) lives.set(s.life, [...(lives.get(s.life) ?? []), s]);
  const longest = [...lives.values()].sort((a, b) => b[b.length - 1].at - b[0].at - (a[a.length - 1].at - a[0].at))[0] ?? [];
  const warm = longest.filter((s) => s.at - longest[0].at >= 60_000);
  const use = warm.length >= 10 ? warm : longest;
  const mb = (xs: RssSample[]) => Math.round(median(xs.map((s) => s.mb)));
  return {
    name,
    lives: lives.size,
    startMb: mb(use.slice(0, 5)),
    endMb: mb(use.slice(-5)),
    maxMb: Math.round(Math.max(0, ...use.map((s) => s.mb))),
    minutes: use.length ? Math.round((use[use.length - 1].at - use[0].at) / 6000) / 10 : 0,
    byFiveMinutes: fiveMinutes(longest).map(mb),
  };
}

/** chaosFigures computes the run's figures from what it recorded. */
export function chaosFigures(i: FigureInputs): ChaosFigures {
  const now = Date.now();
  const spans = i.windows.map((w): [number, number] => [Date.parse(w.start), w.end ? Date.parse(w.end) : now]);
  const faultMin = minutesOf(spans);
  const quietMin = Math.max(i.durationMs / 60_000 - faultMin, 1 / 60);
  const faults: Record<string, number> = {};
  for (const w of i.windows) faults[w.kind] = (faults[w.kind] ?? 0) + 1;

  const perSecond = new Map<number, number>();
  for (const counts of Object.values(i.proxyCounts)) for (const [s, n] of Object.entries(counts)) perSecond.set(Number(s), (perSecond.get(Number(s)) ?? 0) + n);
  let inFaults = 0;
  let outside = 0;
  for (const [s, n] of perSecond) if (inWindows(spans, s * 1000)) inFaults += n;
  else outside += n;

  let auditPerMin: ChaosFigures["auditPerMin"];
  if (i.auditLog) {
    let f = 0;
    let q = 0;
    for (const e of readAuditLog(i.auditLog)) {
      if (!e.userAgent.startsWith("ordinal/") || e.at < i.startedAt) continue;
      if (inWindows(spans, e.at)) f++;
      else q++;
    }
    auditPerMin = { faults: Math.round(f / Math.max(faultMin, 1 / 60)), quiet: Math.round(q / quietMin) };
  }
  // The hit replica's own rate during each kind's windows, against its rate outside all windows.
  const perKindPerMin: Record<string, number> = {};
  const kindTotals = new Map<string, { n: number; ms: number }>();
  for (const w of i.windows) {
    if (!w.replica) continue;
    const [a, b] = [Date.parse(w.start), w.end ? Date.parse(w.end) : now];
    let n = 0;
    for (const [sec, k] of Object.entries(i.proxyCounts[w.replica] ?? {})) if (Number(sec) * 1000 >= a && Number(sec) * 1000 < b) n += k;
    const t = kindTotals.get(w.kind) ?? { n: 0, ms: 0 };
    kindTotals.set(w.kind, { n: t.n + n, ms: t.ms + (b - a) });
  }
  for (const [k, t] of kindTotals) perKindPerMin[k] = Math.round((t.n / Math.max(t.ms, 1000)) * 60_000);
  for (const [name, counts] of Object.entries(i.proxyCounts)) {
    let n = 0;
    for (const [sec, k] of Object.entries(counts)) if (!inWindows(spans, Number(sec) * 1000)) n += k;
    perKindPerMin[`${name} outside faults`] = Math.round(n / quietMin);
  }
  const times = i.sets.filter((s) => i.convergedMs.has(s)).map((s) => i.convergedMs.get(s)!);
  return {
    durationMin: Math.round(i.durationMs / 6000) / 10,
    faults,
    violations: i.report.violations,
    unconverged: i.sets.filter((s) => !i.convergedMs.has(s)),
    convergeMs: { median: median(times), max: Math.max(0, ...times) },
    perKindPerMin,
    proxyPerMin: { faults: Math.round(inFaults / Math.max(faultMin, 1 / 60)), quiet: Math.round(outside / quietMin), peakPerSecond: Math.max(0, ...perSecond.values()) },
    auditPerMin,
    memory: i.replicas.map((r) => memoryOf(r.name, r.rss)),
    person: i.person,
    events: i.report.events,
    auditWrites: i.report.auditWrites,
    resyncEvents: i.report.resyncEvents,
    checks: i.report.checks ?? {},
    lateEvents: i.report.lateEvents ?? 0,
  };
}

/** formatFigures returns the figures as the lines `npm run chaos` prints. */
export function formatFigures(f: ChaosFigures, limitMs: number): string[] {
  const lines = [
    `chaos run: ${f.durationMin} min; the observer judged ${f.events} events${f.auditWrites !== undefined ? ` and ${f.auditWrites} audit-log writes` : ""}${f.resyncEvents ? ` (${f.resyncEvents} seen only through a relist)` : ""}`,
    `faults: ${Object.entries(f.faults)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ")} (${Object.values(f.faults).reduce((a, b) => a + b, 0)} in all)`,
    `person: ${f.person.scales} scales, ${f.person.reimages} re-images, ${f.person.broken} broken releases, ${f.person.applies} applies, ${f.person.refused} refused, ${f.person.released} hook releases, ${f.person.repairs} repairs after the last fault (a broken release with nothing to roll back to replaced by a good one)`,
    `violations: ${f.violations.length}; checks judged per rule: ${
      Object.entries(f.checks)
        .map(([k, n]) => `${k} ${n}`)
        .join(", ") || "none"
    }; late events ${f.lateEvents}`,
    ...f.violations.slice(0, 50).map((v) => `  ${v.at} ${v.rule} ${v.object}: ${v.detail}`),
    `converged after the last fault: median ${(f.convergeMs.median / 1000).toFixed(1)} s, max ${(f.convergeMs.max / 1000).toFixed(1)} s (limit ${limitMs / 1000} s)${f.unconverged.length ? `; NOT converged: ${f.unconverged.join(", ")}` : ""}`,
    `requests/min at the replicas' proxies: ${f.proxyPerMin.faults} during faults, ${f.proxyPerMin.quiet} outside; busiest second ${f.proxyPerMin.peakPerSecond}`,
    `requests/min of the hit replica at its proxy, by fault: ${Object.entries(f.perKindPerMin)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ")}`,
    ...(f.auditPerMin ? [`requests/min in the audit log (ordinal/*): ${f.auditPerMin.faults} during faults, ${f.auditPerMin.quiet} outside`] : []),
    ...f.memory.map((m) => `memory ${m.name}: ${m.lives} lives; longest ${m.minutes} min after a minute's warm-up: RSS ${m.startMb} -> ${m.endMb} MB (max ${m.maxMb}); each 5 min of it: ${m.byFiveMinutes.join(", ")} MB`),
  ];
  return lines;
}
