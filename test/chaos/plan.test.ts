/** The chaos run's seeded pieces: the fault plan and the figures it reports. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../src/sim/fake-apiserver/random.ts";
import { FAULT_KINDS, planFaults } from "./faults/injector.ts";
import { chaosFigures, formatFigures } from "./report.ts";
import { chaosSets } from "./sets.ts";

describe("planFaults", () => {
  it.each([
    [1, 1_800_000],
    [7, 120_000],
    [42, 600_000],
  ])("seed %i over %i ms: the same plan for the same seed, faults one after the other within the phase, a stale leader first", (seed, phase) => {
    const plan = planFaults(mulberry32(seed), phase, 2, 30);
    expect(planFaults(mulberry32(seed), phase, 2, 30)).toEqual(plan);
    expect(plan[0].kind).toBe("stale-leader");
    expect(plan[0].durationMs).toBeGreaterThan(30_000);
    for (let i = 0; i < plan.length; i++) {
      expect(plan[i].atMs + plan[i].durationMs).toBeLessThanOrEqual(phase);
      if (i) expect(plan[i].atMs).toBeGreaterThanOrEqual(plan[i - 1].atMs + plan[i - 1].durationMs + 3000);
      expect([0, 1]).toContain(plan[i].replica);
    }
  });

  it("a 30-minute phase sees every kind several times", () => {
    const kinds = new Map<string, number>();
    for (const f of planFaults(mulberry32(1), 1_800_000, 2, 30)) kinds.set(f.kind, (kinds.get(f.kind) ?? 0) + 1);
    for (const k of FAULT_KINDS) expect(kinds.get(k) ?? 0, k).toBeGreaterThanOrEqual(3);
  });
});

describe("chaosSets", () => {
  it("mixes both policies, both update policies, claims, hooks and deadlines over 8 sets", () => {
    const specs = chaosSets(8, "t", mulberry32(1)).map((s) => JSON.stringify(s.manifest));
    for (const feature of ['"Parallel"', '"OrderedReady"', '"InPlaceIfPossible"', '"ReCreate"', "volumeClaimTemplates", "lifecycle", "progressDeadlineSeconds"]) {
      expect(specs.some((s) => s.includes(feature)), feature).toBe(true);
    }
  });
});

describe("chaosFigures", () => {
  const base = {
    report: { violations: [], events: 10 },
    sets: ["a/app", "b/app", "c/app"],
    convergeLimitMs: 60_000,
    proxyCounts: {},
    replicas: [],
    person: { scales: 0, reimages: 0, broken: 0, applies: 0, refused: 0, released: 0, repairs: 0 },
    startedAt: 0,
    durationMs: 600_000,
  };
  it("counts requests in fault windows (overlaps once) apart from the rest, the median and max convergence, the sets that did not converge", () => {
    const t0 = Date.parse("2026-12-05T00:00:00Z");
    const f = chaosFigures({
      ...base,
      windows: [
        { kind: "kill", target: "chaos-a", replica: "chaos-a", start: new Date(t0).toISOString(), end: new Date(t0 + 60_000).toISOString() },
        { kind: "proxy-429", target: "chaos-b", start: new Date(t0 + 30_000).toISOString(), end: new Date(t0 + 120_000).toISOString() },
      ],
      convergedMs: new Map([
        ["a/app", 1000],
        ["b/app", 5000],
      ]),
      proxyCounts: { "chaos-a": { [t0 / 1000 + 10]: 200, [t0 / 1000 + 300]: 80 }, "chaos-b": { [t0 / 1000 + 10]: 40 } },
    });
    expect(f.faults).toEqual({ kill: 1, "proxy-429": 1 });
    expect(f.proxyPerMin).toEqual({ faults: 120, quiet: 10, peakPerSecond: 240 });
    expect(f.perKindPerMin).toEqual({ kill: 200, "chaos-a outside faults": 10, "chaos-b outside faults": 0 });
    expect(f.convergeMs).toEqual({ median: 1000, max: 5000 });
    expect(f.unconverged).toEqual(["c/app"]);
  });

  it("counts only the run's own requests in the audit log: what other servers logged before it began is not the run's", () => {
    const t0 = Date.parse("2026-12-05T01:00:00Z");
    const entry = (at: number) => JSON.stringify({ stage: "ResponseComplete", requestReceivedTimestamp: new Date(at).toISOString(), userAgent: "ordinal/node-1", verb: "patch" });
    const file = join(mkdtempSync(join(tmpdir(), "chaos-")), "audit.log");
    writeFileSync(file, [entry(t0 - 3_600_000), entry(t0 - 60_000), entry(t0 + 10_000), entry(t0 + 90_000)].join("\n"));
    const f = chaosFigures({ ...base, startedAt: t0, durationMs: 120_000, auditLog: file, convergedMs: new Map(), windows: [{ kind: "kill", target: "chaos-a", start: new Date(t0).toISOString(), end: new Date(t0 + 60_000).toISOString() }] });
    expect(f.auditPerMin).toEqual({ faults: 1, quiet: 1 });
  });
});

describe("formatFigures", () => {
  it("prints how many times the observer judged each rule and its late events beside the violations", () => {
    const f = chaosFigures({
      report: { violations: [], events: 10, checks: { "one-pod-per-ordinal": 7, "max-unavailable": 3 }, lateEvents: 2 },
      sets: [],
      convergeLimitMs: 60_000,
      proxyCounts: {},
      replicas: [],
      person: { scales: 0, reimages: 0, broken: 0, applies: 0, refused: 0, released: 0, repairs: 0 },
      startedAt: 0,
      durationMs: 60_000,
      windows: [],
      convergedMs: new Map(),
    });
    const line = formatFigures(f, 60_000).find((l) => l.startsWith("violations:"));
    expect(line).toBe("violations: 0; checks judged per rule: one-pod-per-ordinal 7, max-unavailable 3; late events 2");
  });
});
