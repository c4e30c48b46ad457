// metav1.Time and metav1.MicroTime as the apiserver decodes and re-encodes them: Time is written
// back in UTC at whole seconds (a fraction in the input is dropped), MicroTime must carry exactly
// six fraction digits and is written back in UTC with six digits.

import { isObject, type Obj } from "./json.ts";

const TIME_LAYOUT = "2006-01-02T15:04:05Z07:00";
const MICRO_LAYOUT = "2006-01-02T15:04:05.000000Z07:00";
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/;

/** TimeDecodeError says a time field could not be decoded; the request becomes a 400. */
export class TimeDecodeError extends Error {
  constructor(value: string, layout: string) {
    super(`unmarshalerDecoder: parsing time ${JSON.stringify(value)} as ${JSON.stringify(layout)}: cannot parse ${JSON.stringify(value)} as "2006"`);
  }
}

/** formatTime writes a Date as metav1.Time does: `2026-01-02T03:04:05Z`. */
export function formatTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}

interface Parsed {
  /** seconds since the epoch, UTC */
  seconds: number;
  fraction: string;
}

function parse(s: string): Parsed | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h, mi, se] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59) return undefined;
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (d > days) return undefined;
  let offset = 0;
  const zone = m[8]!;
  if (zone !== "Z") {
    const sign = zone[0] === "-" ? -1 : 1;
    offset = sign * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
  }
  const seconds = Date.UTC(y, mo - 1, d, h, mi, se) / 1000 - offset;
  return { seconds, fraction: m[7] ?? "" };
}

/** normalizeTime decodes and re-encodes a metav1.Time string. */
export function normalizeTime(s: unknown): unknown {
  if (s === null) return null;
  if (typeof s !== "string") throw new TimeDecodeError(String(s), TIME_LAYOUT);
  const p = parse(s);
  if (!p) throw new TimeDecodeError(s, TIME_LAYOUT);
  return formatTime(new Date(p.seconds * 1000));
}

/** normalizeMicroTime decodes and re-encodes a metav1.MicroTime string (exactly 6 digits). */
export function normalizeMicroTime(s: unknown): unknown {
  if (s === null) return null;
  if (typeof s !== "string") throw new TimeDecodeError(String(s), MICRO_LAYOUT);
  const p = parse(s);
  if (!p || p.fraction.length !== 6) throw new TimeDecodeError(s, MICRO_LAYOUT);
  return formatTime(new Date(p.seconds * 1000)).replace(/Z$/, `.${p.fraction}Z`);
}

/** A path into an object; `*` steps into every element of an array. */
export type FieldPath = readonly string[];

/** mapAt replaces the value at every match of path with fn(value); missing steps are skipped. */
export function mapAt(obj: unknown, path: FieldPath, fn: (v: unknown) => unknown, i = 0): void {
  if (i >= path.length) return;
  const step = path[i]!;
  if (step === "*") {
    if (!Array.isArray(obj)) return;
    if (i === path.length - 1) {
      for (let k = 0; k < obj.length; k++) obj[k] = fn(obj[k]);
    } else {
      for (const el of obj) mapAt(el, path, fn, i + 1);
    }
    return;
  }
  if (!isObject(obj) || !(step in obj)) return;
  if (i === path.length - 1) {
    (obj as Obj)[step] = fn(obj[step]);
  } else {
    mapAt(obj[step], path, fn, i + 1);
  }
}

/** truncateToSecond gives a Date at whole seconds (floor), as a stored metav1.Time would read. */
export function truncateToSecond(d: Date): Date {
  return new Date(Math.floor(d.getTime() / 1000) * 1000);
}
