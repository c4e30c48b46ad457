/**
 * One pass over a webhook body's JSON text before it is parsed: how deep it nests, and which
 * containers of the judged parts are so large that the handler will refuse the object anyway
 * (see src/admission/limits.ts). JSON.parse of one object with tens of thousands of keys costs tens
 * of milliseconds; the scan costs about a millisecond per MiB and builds nothing.
 */

/** Key paths from the root of the body; "*" matches any key (array elements have the key "#"). */
export type KeyPath = readonly string[];

export interface MeasuredParts {
  /** Values at these paths, and everything inside them, are measured. */
  measured: readonly KeyPath[];
  /** Values at these paths are not measured roots (even where "*" matches them). */
  unmeasured?: readonly KeyPath[];
  /** A measured container (array or object) with more members than this is reported. */
  maxMembers: number;
}

export interface JsonScan {
  /** Deepest nesting of arrays and objects (0 for a scalar). */
  depth: number;
  /** [start, end) of each measured container with more than maxMembers members, outermost ones only, in order. */
  crowded: [number, number][];
  /** Characters between the quotes of the longest measured string value (escapes count as written). */
  longestString: number;
}

interface Frame {
  isObject: boolean;
  start: number;
  members: number;
  measured: boolean;
  /** Key path of this container while it is shallow enough to match a measured path, else undefined. */
  path: KeyPath | undefined;
  /** In an object: whether the next string is a key, and the last key read. */
  expectKey: boolean;
  key: string;
}

const matches = (pattern: KeyPath, path: KeyPath) => pattern.length === path.length && pattern.every((k, i) => k === "*" || k === path[i]);

/** stringEnd returns the index of the quote that closes the string opened before `start` (text.length if none). */
function stringEnd(text: string, start: number): number {
  let j = start;
  for (;;) {
    j = text.indexOf('"', j);
    if (j < 0) return text.length;
    let backslashes = 0;
    for (let k = j - 1; k >= start && text.charCodeAt(k) === 0x5c; k--) backslashes++;
    if (backslashes % 2 === 0) return j;
    j++;
  }
}

/**
 * scanJson measures `text` as JSON without parsing it. On valid JSON, `depth` is the nesting of
 * the parsed value and members are counted as written (a duplicate key counts again; the
 * apiserver never writes one). On invalid JSON the figures mean nothing, and the scan still ends
 * in one pass.
 */
export function scanJson(text: string, parts: MeasuredParts): JsonScan {
  const rootDepth = Math.max(0, ...parts.measured.map((p) => p.length));
  const isRoot = (path: KeyPath) => parts.measured.some((p) => matches(p, path)) && !(parts.unmeasured ?? []).some((p) => matches(p, path));
  const frames: Frame[] = [];
  const crowded: [number, number][] = [];
  let depth = 0;
  let longestString = 0;

  /** The key path of the value valueStarts saw last, while shallow enough to be tracked. */
  let startedPath: KeyPath | undefined;
  /** valueStarts counts a value in its container and returns whether it is measured (its path: startedPath). */
  const valueStarts = (): boolean => {
    startedPath = undefined;
    const top = frames[frames.length - 1];
    if (top === undefined) {
      startedPath = [];
      return isRoot([]);
    }
    top.members++;
    if (top.measured) return true;
    if (top.path === undefined) return false;
    const path = [...top.path, top.isObject ? top.key : "#"];
    if (path.length < rootDepth) startedPath = path;
    return isRoot(path);
  };

  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i + 1);
      const top = frames[frames.length - 1];
      if (top?.isObject && top.expectKey) {
        const raw = text.slice(i + 1, end);
        top.key = raw.includes("\\") ? decodeKey(raw) : raw;
        top.expectKey = false;
      } else if (valueStarts()) longestString = Math.max(longestString, end - i - 1);
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      const measured = valueStarts();
      frames.push({ isObject: c === 0x7b, start: i, members: 0, measured, path: startedPath, expectKey: c === 0x7b, key: "" });
      depth = Math.max(depth, frames.length);
    } else if (c === 0x7d || c === 0x5d) {
      const f = frames.pop();
      if (f?.measured && f.members > parts.maxMembers) {
        while (crowded.length > 0 && crowded[crowded.length - 1][0] > f.start) crowded.pop();
        crowded.push([f.start, i + 1]);
      }
    } else if (c === 0x2c) {
      const top = frames[frames.length - 1];
      if (top?.isObject) top.expectKey = true;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39) || c === 0x74 || c === 0x66 || c === 0x6e) {
      // A number, true, false or null: one value; skip to its last character.
      valueStarts();
      while (i + 1 < text.length && !isDelimiter(text.charCodeAt(i + 1))) i++;
    }
  }
  return { depth, crowded, longestString };
}

/** Whitespace and the structural characters that can end a number or literal. */
const isDelimiter = (c: number) => c === 0x2c || c === 0x5d || c === 0x7d || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x3a;

function decodeKey(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/** replaceSpans returns `text` with each [start, end) span (in order, not overlapping) replaced by `by`. */
export function replaceSpans(text: string, spans: readonly [number, number][], by: string): string {
  let out = "";
  let at = 0;
  for (const [start, end] of spans) {
    out += text.slice(at, start) + by;
    at = end;
  }
  return out + text.slice(at);
}
