// A short human-readable diff for the "spec is immutable" style messages. The real apiserver
// appends a go-cmp diff of its internal Go types; this one lists the differing JSON paths the same
// way round (`-` the requested value, `+` the stored one) but is not byte-identical.

import { deepEqual, isObject } from "./json.ts";

function collect(a: unknown, b: unknown, path: string, out: string[]): void {
  if (deepEqual(a, b)) return;
  if (isObject(a) && isObject(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) collect(a[k], b[k], path ? `${path}.${k}` : k, out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((x, i) => collect(x, b[i], `${path}[${i}]`, out));
    return;
  }
  out.push(`- \t${path}: ${JSON.stringify(a ?? null)}`, `+ \t${path}: ${JSON.stringify(b ?? null)}`);
}

/** specDiff renders `  core.PodSpec{ ... }` with one -/+ pair per differing path. */
export function specDiff(typeName: string, requested: unknown, stored: unknown): string {
  const lines: string[] = [];
  collect(requested, stored, "", lines);
  return `  ${typeName}{\n${lines.join("\n")}\n  }\n`;
}
