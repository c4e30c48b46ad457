/**
 * Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource/quantity.go): parsing with
 * the same grammar and errors, exact comparison, and the canonical string form the apiserver prints
 * in messages (`0.5` → `500m`, `1024Mi` → `1Gi`, `1000` → `1k`).
 *
 * A quantity is held as a BigInt count of nano-units. That is exact: upstream rounds any value finer
 * than 1n up to 1n, and a parsed quantity is otherwise an integer multiple of 10^-9.
 */

type QuantityFormat = "DecimalSI" | "BinarySI" | "DecimalExponent";

export interface Quantity {
  /** The value in units of 10^-9 (1 = "1n", 1_000_000_000n = "1"). */
  readonly nanos: bigint;
  readonly format: QuantityFormat;
  /** The string upstream caches when the input was already canonical; toString returns it. */
  readonly cached?: string;
}

/** The regular expression in upstream's ErrFormatWrong message. */
const QUANTITY_REGEX = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";
const ERR_FORMAT_WRONG = `quantities must match the regular expression '${QUANTITY_REGEX}'`;
const ERR_NUMERIC = "unable to parse numeric part of quantity";
const ERR_SUFFIX = "unable to parse quantity's suffix";

const NANO = 1_000_000_000n;
const MAX_INT64 = 9223372036854775807n;
const DEC_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BIN_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

export type ParseResult = { ok: true; quantity: Quantity } | { ok: false; error: string };

interface Parts {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

/** parseQuantityString is upstream's hand-written scanner, including its quirks ("1." and "Gi" parse). */
function parseQuantityString(str: string): Parts | undefined {
  let positive = true;
  let pos = 0;
  const end = str.length;
  const isDigit = (c: string) => c >= "0" && c <= "9";
  if (pos < end && (str[0] === "-" || str[0] === "+")) {
    positive = str[0] !== "-";
    pos++;
  }
  for (;;) {
    if (pos >= end) return { positive, value: "0", num: "0", denom: "", suffix: "" };
    if (str[pos] !== "0") break;
    pos++;
  }
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, value: str, num: str.slice(pos), denom: "", suffix: "" };
  let num = str.slice(pos, i);
  pos = i;
  if (num.length === 0) num = "0";
  let denom = "";
  if (pos < end && str[pos] === ".") {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    if (i >= end) return { positive, value: str, num, denom: str.slice(pos), suffix: "" };
    denom = str.slice(pos, i);
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  i = pos;
  while (i < end && "eEinumkKMGTP".includes(str[i])) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  pos = i;
  if (str[pos] === "-" || str[pos] === "+") pos++;
  for (i = pos; i < end; i++) if (!isDigit(str[i])) return undefined;
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

function interpretSuffix(s: string): { base: 10 | 2; exponent: number; format: QuantityFormat } | undefined {
  if (Object.prototype.hasOwnProperty.call(DEC_SUFFIXES, s)) return { base: 10, exponent: DEC_SUFFIXES[s], format: "DecimalSI" };
  if (Object.prototype.hasOwnProperty.call(BIN_SUFFIXES, s)) return { base: 2, exponent: BIN_SUFFIXES[s], format: "BinarySI" };
  if (s.length > 1 && (s[0] === "e" || s[0] === "E")) {
    const m = /^[+-]?[0-9]+$/.exec(s.slice(1));
    if (!m) return undefined;
    const exp = Number(s.slice(1));
    if (!Number.isSafeInteger(exp) || Math.abs(exp) > 2147483647) return undefined;
    return { base: 10, exponent: exp, format: "DecimalExponent" };
  }
  return undefined;
}

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** ceilDiv divides a non-negative numerator, rounding up (inf.RoundUp away from zero on magnitudes). */
const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/**
 * parseQuantity parses a quantity as the apiserver does when it decodes one (a JSON string, or a
 * JSON number taken as its text). Errors carry upstream's messages.
 */
export function parseQuantity(input: string | number): ParseResult {
  const str = typeof input === "number" ? numberText(input) : input;
  if (str.length === 0) return { ok: false, error: ERR_FORMAT_WRONG };
  if (str === "0") return { ok: true, quantity: { nanos: 0n, format: "DecimalSI", cached: "0" } };
  const parts = parseQuantityString(str);
  if (!parts) return { ok: false, error: ERR_FORMAT_WRONG };
  const suf = interpretSuffix(parts.suffix);
  if (!suf) return { ok: false, error: ERR_SUFFIX };
  const digits = parts.num + parts.denom;
  if (!/^[0-9]*$/.test(digits)) return { ok: false, error: ERR_NUMERIC };
  // magnitude = digits * 10^(-len(denom)) * base^exponent, exactly, as a fraction n / d.
  let n = BigInt(digits || "0");
  let d = pow10(parts.denom.length);
  if (suf.base === 10) {
    if (suf.exponent >= 0) n *= pow10(suf.exponent);
    else d *= pow10(-suf.exponent);
  } else {
    n *= 2n ** BigInt(suf.exponent);
  }
  // In nanos, rounding up what is finer than 1n (upstream rounds non-zero values up to 1n).
  let nanos = ceilDiv(n * NANO, d);
  // Upstream caps BinarySI and DecimalExponent values at 2^63-1 (not DecimalSI ones).
  if (suf.format !== "DecimalSI" && nanos > MAX_INT64 * NANO) nanos = MAX_INT64 * NANO;
  if (!parts.positive) nanos = -nanos;
  const quantity: Quantity = { nanos, format: suf.format, cached: canonicalInput(str, parts, suf) };
  return { ok: true, quantity };
}

/**
 * canonicalInput mirrors upstream's fast path that keeps the input string when it is already in
 * canonical form (so "+1" prints as "+1", and "2" as "2").
 */
function canonicalInput(str: string, p: Parts, suf: { base: 10 | 2; exponent: number; format: QuantityFormat }): string | undefined {
  const shifted = p.num + p.denom;
  if (suf.format === "BinarySI") {
    const precision = 15 - p.num.length - Math.trunc((suf.exponent * 3) / 10) - 1;
    if (p.denom.length !== 0 || precision < 0) return undefined;
    const value = BigInt(shifted);
    return suf.exponent % 10 === 0 && (value & 7n) !== 0n ? str : undefined;
  }
  const scale = suf.exponent - p.denom.length;
  if (scale < -9 || shifted.length > 18) return undefined;
  return scale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0" ? str : undefined;
}

function numberText(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return BigInt(n).toString();
  return String(n).replace("e+", "e");
}

/** compareQuantities returns -1, 0 or 1, exactly. */
export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}

/** quantityMilliValue is Quantity.MilliValue(): the value in milli-units, rounded up. */
export function quantityMilliValue(q: Quantity): bigint {
  const m = 1_000_000n;
  return q.nanos >= 0n ? ceilDiv(q.nanos, m) : -(-q.nanos / m);
}

function removeFactors(v: bigint, f: bigint): [bigint, number] {
  let times = 0;
  while (v !== 0n && v % f === 0n) {
    v /= f;
    times++;
  }
  return [v, times];
}

const DEC_BY_EXP = new Map(Object.entries(DEC_SUFFIXES).map(([s, e]) => [e, s]));
const BIN_BY_EXP = new Map(Object.entries(BIN_SUFFIXES).map(([s, e]) => [e, s]));

/**
 * quantityToString is Quantity.String(): the input itself when it was canonical, else the
 * canonical form (CanonicalizeBytes): binary suffixes for whole BinarySI values of 1Ki or more,
 * otherwise a mantissa with the largest decimal suffix (or `eN` exponent) that keeps it an integer.
 */
export function quantityToString(q: Quantity): string {
  if (q.cached !== undefined) return q.cached;
  if (q.nanos === 0n) return "0";
  let format = q.format;
  if (format === "BinarySI") {
    const abs = q.nanos < 0n ? -q.nanos : q.nanos;
    if (abs < 1024n * NANO || abs % NANO !== 0n) format = "DecimalSI";
  }
  if (format === "BinarySI") {
    const [amount, times] = removeFactors(q.nanos / NANO, 1024n);
    return amount.toString() + (BIN_BY_EXP.get(times * 10) ?? "");
  }
  let [amount, exponent] = removeFactors(q.nanos, 10n);
  exponent -= 9;
  while (((exponent % 3) + 3) % 3 !== 0) {
    amount *= 10n;
    exponent--;
  }
  if (format === "DecimalExponent") return amount.toString() + (exponent === 0 ? "" : `e${exponent}`);
  return amount.toString() + (DEC_BY_EXP.get(exponent) ?? "");
}
