// resource.Quantity: parsed on decode and written back in canonical form (`1024Mi` reads back as
// `1Gi`, `1000M` as `1G`, `0.5Gi` as `512Mi`), following apimachinery's CanonicalizeBytes.

const QUANTITY = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/;
const DECIMAL_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL_BY_EXP = new Map(Object.entries(DECIMAL_SUFFIX).map(([k, v]) => [v, k]));
const BINARY_BY_EXP = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
const NANO = 1_000_000_000n;

type Format = "BinarySI" | "DecimalSI" | "DecimalExponent";

/** Quantity is a parsed quantity: its value in nano-units and the format it was written in. */
export interface Quantity {
  nanos: bigint;
  format: Format;
}

/** QuantityError says a string is not a quantity; the request becomes a 400. */
export class QuantityError extends Error {
  constructor(value: string) {
    super(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (value ${JSON.stringify(value)})`);
  }
}

function pow(base: bigint, exp: number): bigint {
  let r = 1n;
  for (let i = 0; i < exp; i++) r *= base;
  return r;
}

/** ceilDiv rounds away from zero, as Quantity rounds to nano precision. */
function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b === 0n ? q : a > 0n ? q + 1n : q - 1n;
}

/** parseQuantity parses `1Gi`, `500m`, `1e3`; throws QuantityError. */
export function parseQuantity(input: string | number): Quantity {
  const s = typeof input === "number" ? String(input) : input;
  const m = QUANTITY.exec(s);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) throw new QuantityError(s);
  const sign = m[1] === "-" ? -1n : 1n;
  const whole = m[2]!;
  const frac = m[3] ?? "";
  const suffix = m[4]!;
  const digits = BigInt((whole + frac) || "0");
  let format: Format;
  let num = digits * sign;
  let exp10 = 9 - frac.length;
  if (suffix in BINARY_SUFFIX) {
    format = "BinarySI";
    num *= pow(1024n, BINARY_SUFFIX[suffix]!);
  } else if (suffix in DECIMAL_SUFFIX) {
    format = "DecimalSI";
    exp10 += DECIMAL_SUFFIX[suffix]!;
  } else if (/^[eE][-+]?[0-9]+$/.test(suffix)) {
    format = "DecimalExponent";
    exp10 += Number(suffix.slice(1));
  } else {
    throw new QuantityError(s);
  }
  const nanos = exp10 >= 0 ? num * pow(10n, exp10) : ceilDiv(num, pow(10n, -exp10));
  return { nanos, format };
}

/** formatQuantity writes a quantity in canonical form. */
export function formatQuantity(q: Quantity): string {
  if (q.nanos === 0n) return "0";
  let format = q.format;
  if (format === "BinarySI") {
    const abs = q.nanos < 0n ? -q.nanos : q.nanos;
    if (abs < 1024n * NANO || q.nanos % NANO !== 0n) format = "DecimalSI";
  }
  if (format === "BinarySI") {
    let v = q.nanos / NANO;
    let e = 0;
    while (e < 6 && v % 1024n === 0n) {
      v /= 1024n;
      e++;
    }
    return `${v}${BINARY_BY_EXP[e]}`;
  }
  let mantissa = q.nanos;
  let exp = -9;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exp++;
  }
  const r = ((exp % 3) + 3) % 3;
  mantissa *= pow(10n, r);
  exp -= r;
  if (format === "DecimalSI") {
    const suffix = DECIMAL_BY_EXP.get(exp);
    if (suffix !== undefined) return `${mantissa}${suffix}`;
  }
  return exp === 0 ? `${mantissa}` : `${mantissa}e${exp}`;
}

/** canonicalQuantity parses and re-formats; throws QuantityError. */
export function canonicalQuantity(v: unknown): string {
  if (typeof v !== "string" && typeof v !== "number") throw new QuantityError(String(v));
  return formatQuantity(parseQuantity(v));
}

/** compareQuantities returns <0, 0, >0. */
export function compareQuantities(a: string, b: string): number {
  const x = parseQuantity(a).nanos;
  const y = parseQuantity(b).nanos;
  return x < y ? -1 : x > y ? 1 : 0;
}
