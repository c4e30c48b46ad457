// parseQuantity / quantityToString / compareQuantities: upstream's grammar, errors, exact values
// and canonical strings. FC_SEED=<n> replays the randomized part.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fcRuns } from "../support/random.ts";
import { compareQuantities, parseQuantity, quantityMilliValue, quantityToString } from "../../src/validation/index.ts";

const q = (s: string | number) => {
  const r = parseQuantity(s);
  if (!r.ok) throw new Error(`${s}: ${r.error}`);
  return r.quantity;
};

describe("parseQuantity", () => {
  const values: Array<[string | number, bigint]> = [
    ["0", 0n],
    ["1", 1_000_000_000n],
    ["100m", 100_000_000n],
    ["0.5", 500_000_000n],
    ["1Gi", 1073741824n * 1_000_000_000n],
    ["1e3", 1000n * 1_000_000_000n],
    ["1E-3", 1_000_000n],
    ["1.5Ki", 1536n * 1_000_000_000n],
    ["-2k", -2000n * 1_000_000_000n],
    ["+3", 3_000_000_000n],
    ["1n", 1n],
    ["0.1n", 1n], // finer than 1n rounds up, as upstream
    [".5", 500_000_000n],
    ["1.", 1_000_000_000n],
    [2, 2_000_000_000n],
    [0.25, 250_000_000n],
  ];
  for (const [input, nanos] of values) it(`parses ${JSON.stringify(input)}`, () => expect(q(input).nanos).toBe(nanos));

  const errors: Array<[string, string]> = [
    ["", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ["1 Gi", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ["abc", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ["1.2.3", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ["1K", "unable to parse quantity's suffix"],
    ["1iK", "unable to parse quantity's suffix"],
    ["1Gb", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
  ];
  for (const [input, error] of errors) it(`refuses ${JSON.stringify(input)}`, () => expect(parseQuantity(input)).toEqual({ ok: false, error }));
});

describe("quantityToString", () => {
  const canonical: Array<[string | number, string]> = [
    ["0.5", "500m"],
    ["1000", "1k"],
    ["2", "2"],
    ["2000m", "2"],
    ["1024Mi", "1Gi"],
    ["1536Mi", "1536Mi"],
    ["0.5Gi", "512Mi"],
    ["1.5Ki", "1536"],
    ["512", "512"],
    ["1e3", "1e3"],
    ["1e2", "100"],
    ["100m", "100m"],
    ["0m", "0"],
    ["+1", "+1"],
    ["1500m", "1500m"],
    ["1.5", "1500m"],
    ["1Pi", "1Pi"],
    [1, "1"],
  ];
  for (const [input, out] of canonical) it(`${JSON.stringify(input)} prints as ${out}`, () => expect(quantityToString(q(input))).toBe(out));
});

describe("compareQuantities", () => {
  it("compares exactly across formats", () => {
    expect(compareQuantities(q("1Gi"), q("1024Mi"))).toBe(0);
    expect(compareQuantities(q("1G"), q("1Gi"))).toBe(-1);
    expect(compareQuantities(q("2"), q("1999m"))).toBe(1);
    expect(compareQuantities(q("0.1"), q("100m"))).toBe(0);
    expect(compareQuantities(q("9223372036854775807"), q("9223372036854775806"))).toBe(1);
  });

  it("agrees with the canonical string (randomized)", () => {
    const suffix = fc.constantFrom("", "m", "k", "M", "G", "Ki", "Mi", "Gi", "e3", "e-2", "n", "u");
    const arb = fc.tuple(fc.integer({ min: 0, max: 10 ** 9 }), fc.integer({ min: 0, max: 999 }), fc.boolean(), suffix);
    fc.assert(
      fc.property(arb, ([int, frac, hasFrac, suf]) => {
        const s = `${int}${hasFrac ? `.${frac}` : ""}${suf}`;
        const a = q(s);
        const b = q(quantityToString(a));
        expect(compareQuantities(a, b)).toBe(0);
      }),
      { numRuns: fcRuns(500, 2000) },
    );
  });
});

describe("quantityMilliValue", () => {
  it("rounds up to milli-units", () => {
    expect(quantityMilliValue(q("1.5"))).toBe(1500n);
    expect(quantityMilliValue(q("1n"))).toBe(1n);
  });
});
