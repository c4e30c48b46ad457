/**
 * Reading src/ as a graph of imports, for the architecture tests: every source file, the relative
 * imports of each, and the groups of nodes that reach each other (a circle).
 */
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

export const SRC = resolve(import.meta.dirname, "../../src");

/** sourceFiles returns every .ts/.mjs file under dir. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return /\.(ts|mjs)$/.test(name) ? [p] : [];
  });
}

/** importsOf returns the relative module specifiers a file imports or re-exports (static and dynamic, types too). */
export function importsOf(source: string): string[] {
  const specs: string[] = [];
  for (const m of source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;"']*?\bfrom\s*["']([^"']+)["']/g)) specs.push(m[1]);
  for (const m of source.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g)) specs.push(m[1]);
  for (const m of source.matchAll(/(?:^|\n)\s*import\s*["']([^"']+)["']/g)) specs.push(m[1]);
  return specs.filter((s) => s.startsWith("."));
}

/** A graph: node -> the nodes it imports, with one example import per edge. */
export type Graph = Map<string, Map<string, string>>;

/** tangles returns the groups of two or more nodes that all reach each other through imports (strongly connected), each sorted and joined by ", ". */
export function tangles(graph: Graph): string[] {
  const reach = (from: string): Set<string> => {
    const seen = new Set<string>();
    const todo = [from];
    while (todo.length) {
      for (const next of graph.get(todo.pop()!)?.keys() ?? []) {
        if (seen.has(next)) continue;
        seen.add(next);
        todo.push(next);
      }
    }
    return seen;
  };
  const reaches = new Map([...graph.keys()].map((f) => [f, reach(f)]));
  const groups = new Set<string>();
  for (const [f, r] of reaches) {
    const group = [f, ...[...r].filter((g) => g !== f && reaches.get(g)?.has(f))].sort();
    if (group.length > 1) groups.add(group.join(", "));
  }
  return [...groups].sort();
}

/** describeTangles returns each tangle with the imports that close it, for a failure message. */
export function describeTangles(graph: Graph): string[] {
  return tangles(graph).map((group) => {
    const members = group.split(", ");
    const edges = members.flatMap((f) => [...(graph.get(f) ?? new Map<string, string>())].filter(([to]) => members.includes(to)).map(([, example]) => example));
    return `${group}: ${edges.join("; ")}`;
  });
}
