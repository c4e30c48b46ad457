/**
 * The one argument parser of the `ordinal` CLI: node:util's parseArgs in strict mode, wrapped so
 * every command gets the same behaviour — unknown options and typos are errors that name the
 * closest known option, missing values are errors, booleans take no value, positionals are
 * counted. Every command also accepts `--help` / `-h`.
 */
import { parseArgs } from "node:util";

type OptionKind = "string" | "boolean";

export interface OptionSpec {
  type: OptionKind;
  short?: string;
  /** One line for the command's usage text. */
  help?: string;
  /** Shown in usage as the value's name: `--timeout DURATION`. */
  value?: string;
}

/** UsageError is a mistake on the command line: the CLI prints it with the usage and exits 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * parseCommandLine returns the options and positionals of `args`, or throws a UsageError: an
 * unknown option (with a "did you mean" when one is close), a string option without a value,
 * `--flag=value` on a boolean, fewer than `min` or more than `max` positionals.
 */
export function parseCommandLine(args: readonly string[], options: Record<string, OptionSpec>, positionals: { min?: number; max?: number; names?: string } = {}): Parsed {
  const known = Object.keys(options);
  // kubectl reads `-n=demo` as namespace demo; parseArgs would read the value "=demo".
  const shortWithValue = new Set(Object.values(options).filter((o) => o.type === "string" && o.short).map((o) => o.short));
  args = args.flatMap((a) => {
    const m = /^-([^-=])=(.*)$/s.exec(a);
    return m && shortWithValue.has(m[1]) ? [`-${m[1]}`, m[2]] : [a];
  });
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...args],
      options: Object.fromEntries(Object.entries(options).map(([k, o]) => [k, o.short ? { type: o.type, short: o.short } : { type: o.type }])),
      strict: true,
      allowPositionals: true,
    }) as typeof parsed;
  } catch (e) {
    throw new UsageError(explain(e, args, options));
  }
  for (const [k, v] of Object.entries(parsed.values)) {
    if (typeof v === "string" && v === "") throw new UsageError(`option --${k} needs a value`);
  }
  const n = parsed.positionals.length;
  const what = positionals.names ?? "arguments";
  if (positionals.max === 0 && n > 0) throw new UsageError(`unexpected argument "${parsed.positionals[0]}"; options: ${known.map((k) => `--${k}`).join(", ")}`);
  if (positionals.min !== undefined && n < positionals.min) throw new UsageError(`missing ${what}`);
  if (positionals.max !== undefined && n > positionals.max) throw new UsageError(`too many arguments: ${parsed.positionals.slice(positionals.max).join(" ")} (expected ${what})`);
  return parsed;
}

/** explain turns parseArgs' error into one line that says what to type instead. */
function explain(e: unknown, args: readonly string[], options: Record<string, OptionSpec>): string {
  const code = (e as { code?: string }).code;
  const msg = e instanceof Error ? e.message : String(e);
  const names = Object.keys(options);
  const opt = /'(--[^'=\s,]+)/.exec(msg)?.[1] ?? /'(-[^'=\s,]+)/.exec(msg)?.[1] ?? "";
  const bare = opt.replace(/^-+/, "");
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const near = closest(bare, names);
    return `unknown option ${opt}${near ? `; did you mean --${near}?` : ""} (options: ${names.map((k) => `--${k}`).join(", ")})`;
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const name = names.find((k) => opt === `--${k}` || opt === `-${options[k].short}`) ?? bare;
    if (options[name]?.type === "boolean") return `option --${name} takes no value`;
    return `option --${name} needs a value`;
  }
  return `${msg} (arguments: ${args.join(" ")})`;
}

/** closest returns the known name within edit distance 2 of `s` (a typo), if any. */
export function closest(s: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = 3;
  for (const n of names) {
    const d = editDistance(s, n);
    if (d < bestD) [best, bestD] = [n, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

/** parseDuration returns milliseconds for "90", "90s", "5m", "1h", "1m30s"; 0 means no limit. */
export function parseDuration(s: string, option = "--timeout"): number {
  if (/^\d+$/.test(s)) return Number(s) * 1000;
  const re = /(\d+)(ms|s|m|h)/g;
  let total = 0;
  let consumed = 0;
  for (const m of s.matchAll(re)) {
    total += Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as "ms" | "s" | "m" | "h"];
    consumed += m[0].length;
  }
  if (consumed !== s.length || s.length === 0) throw new UsageError(`${option} must be a duration like 30s, 5m or 1h30m, got ${JSON.stringify(s)}`);
  return total;
}
