/**
 * The folder rules of src/: each folder's README.md says what it owns and, on a line
 * `May import: a, b, c` (or `May import: nothing`), which other folders of src/ (or files directly
 * in src/) it may import.
 * This test reads every import of every file under src/ and checks it against that line, and
 * checks that the folders (and the files directly in src/) import each other without a cycle: a
 * piece two folders share lives in a folder both may import (e.g. src/objects for core and
 * validation), never in one of them.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { describeTangles, importsOf, sourceFiles, SRC, tangles, type Graph } from "./source-graph.ts";

const folders = readdirSync(SRC).filter((n) => statSync(join(SRC, n)).isDirectory()).sort();
/** The files directly in src/ (the runtimes' shared pieces), which a README may list too. */
const rootFiles = readdirSync(SRC).filter((n) => !statSync(join(SRC, n)).isDirectory());

/** folderOf returns the top-level folder of src/ a path is in, or the file's name for a file directly in src/. */
const folderOf = (path: string): string => relative(SRC, path).split("/")[0];

/** The folder graph: folder (or file directly in src/) -> the folders it imports, with one example import per edge. */
function folderGraph(): Graph {
  const graph: Graph = new Map();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    for (const spec of importsOf(readFileSync(file, "utf8"))) {
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(SRC + "/")) continue;
      const to = folderOf(target);
      if (to === from) continue;
      if (!graph.has(from)) graph.set(from, new Map());
      if (!graph.get(from)!.has(to)) graph.get(from)!.set(to, `${relative(SRC, file)} imports ${spec}`);
    }
  }
  return graph;
}

/** allowedImports reads the `May import:` line of a folder's README.md. */
function allowedImports(folder: string): string[] | undefined {
  let text: string;
  try {
    text = readFileSync(join(SRC, folder, "README.md"), "utf8");
  } catch {
    return undefined;
  }
  const line = text.split("\n").find((l) => l.startsWith("May import:"));
  if (!line) return undefined;
  const list = line.slice("May import:".length).replace(/\.$/, "").trim();
  return list === "nothing" ? [] : list.split(",").map((s) => s.trim().replace(/`/g, "").replace(/\/$/, ""));
}

const graph = folderGraph();

describe("src/ folders", () => {
  it.each(folders)("%s/README.md says what the folder owns and what it may import", (folder) => {
    const text = readFileSync(join(SRC, folder, "README.md"), "utf8");
    expect(text.split("\n")[0]).toMatch(/^# src\/[a-z-]+\/?$/);
    const allowed = allowedImports(folder);
    expect(allowed, `${folder}/README.md needs a line "May import: a, b" or "May import: nothing"`).toBeDefined();
    for (const a of allowed ?? []) expect([...folders, ...rootFiles], `${folder}/README.md names "${a}"`).toContain(a);
  });

  it.each(folders)("%s imports only the folders its README allows", (folder) => {
    const allowed = new Set(allowedImports(folder) ?? []);
    const extra = [...(graph.get(folder) ?? new Map<string, string>()).entries()].filter(([to]) => !allowed.has(to)).map(([, example]) => example);
    expect(extra).toEqual([]);
  });

  it("folders import each other without a cycle", () => {
    const cycles = describeTangles(graph);
    expect(cycles, "move the shared piece to a folder both may import").toEqual([]);
  });

  it("the cycle finder finds a cycle (so an empty answer means something)", () => {
    const g = (edges: [string, string][]) => {
      const m = new Map<string, Map<string, string>>();
      for (const [a, b] of edges) m.set(a, (m.get(a) ?? new Map()).set(b, `${a} imports ${b}`));
      return m;
    };
    expect(tangles(g([["a", "b"], ["b", "c"], ["c", "a"], ["c", "d"]]))).toEqual(["a, b, c"]);
    expect(tangles(g([["a", "b"], ["b", "c"], ["a", "c"]]))).toEqual([]);
    expect(tangles(g([["core", "validation"], ["validation", "core"], ["cli", "node"], ["node", "cli"]]))).toEqual(["cli, node", "core, validation"]);
  });
});
