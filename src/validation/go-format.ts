/**
 * Go's ways of printing and measuring values, as the apiserver's messages show them:
 * strconv.Quote (goQuote), fmt's %v for floats (goFloat), encoding/json.Marshal (goJSON), the byte
 * order of sort.Strings (byteOrder, sortedMap) and len() of a string (byteLength, exceedsBytes).
 */

/** sortedMap returns a copy of a string-keyed map with keys in Go's (byte) order, as json.Marshal writes maps. */
export function sortedMap<T>(m: Record<string, T> | undefined | null): Record<string, T> | null {
  if (m === undefined || m === null) return null;
  const out: Record<string, T> = {};
  for (const k of Object.keys(m).sort(byteOrder)) out[k] = m[k];
  return out;
}

/** byteOrder compares strings by UTF-8 bytes, the order of Go's sort.Strings. */
export function byteOrder(a: string, b: string): number {
  const ea = utf8.encode(a);
  const eb = utf8.encode(b);
  for (let i = 0; i < Math.min(ea.length, eb.length); i++) if (ea[i] !== eb[i]) return ea[i] - eb[i];
  return ea.length - eb.length;
}

const utf8 = new TextEncoder();

/**
 * exceedsBytes is byteLength(s) > max, counted only when the string's length does not decide it
 * (UTF-8 takes at least one byte per UTF-16 code unit and at most three).
 */
export function exceedsBytes(s: string, max: number): boolean {
  if (s.length > max) return true;
  if (s.length * 3 <= max) return false;
  return byteLength(s) > max;
}

/**
 * byteLength is Go's len(s) for a string: its UTF-8 length (a lone surrogate counts as the 3 bytes
 * of U+FFFD, as TextEncoder writes it). Counted, not encoded: no copy of the string.
 */
export function byteLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a surrogate pair: 2 code units, 4 bytes
      i++;
    } else n += 2;
  }
  return n;
}

/** goJSON is encoding/json.Marshal for plain JSON data: HTML-safe escapes, null for undefined. */
export function goJSON(v: unknown): string {
  const text = JSON.stringify(v, (_k, val: unknown) => (typeof val === "bigint" ? Number(val) : val));
  if (text === undefined) return "null";
  return text.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
/** Printable ASCII without `"` and `\`: quoted as is (the common case, one regex pass). */
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** goQuote is strconv.Quote: a double-quoted Go string literal, printable runes kept as they are. */
export function goQuote(s: string): string {
  if (PLAIN_ASCII.test(s)) return `"${s}"`;
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case "\\":
        out += "\\\\";
        continue;
      case "\x07":
        out += "\\a";
        continue;
      case "\b":
        out += "\\b";
        continue;
      case "\f":
        out += "\\f";
        continue;
      case "\n":
        out += "\\n";
        continue;
      case "\r":
        out += "\\r";
        continue;
      case "\t":
        out += "\\t";
        continue;
      case "\v":
        out += "\\v";
        continue;
    }
    if (cp >= 0xd800 && cp <= 0xdfff) out += "\\ufffd";
    else if (PRINTABLE.test(ch)) out += ch;
    else if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, "0")}`;
    else out += `\\U${cp.toString(16).padStart(8, "0")}`;
  }
  return out + '"';
}

/** goFloat is fmt's %v for a float64 (%g, shortest): exponent form below 1e-4 and from 1e6 up. */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return "NaN";
  if (!Number.isFinite(f)) return f > 0 ? "+Inf" : "-Inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const [mant, expStr] = f.toExponential().split("e");
  const exp = Number(expStr);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? "-" : "+";
    return `${mant}e${sign}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  const neg = mant.startsWith("-");
  const digits = mant.replace("-", "").replace(".", "");
  let body: string;
  if (exp >= 0) {
    const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
    const frac = digits.slice(exp + 1);
    body = frac ? `${intPart}.${frac}` : intPart;
  } else {
    body = `0.${"0".repeat(-exp - 1)}${digits}`;
  }
  return (neg ? "-" : "") + body;
}
