/**
 * The file rules of src/: no two files import each other, directly or around a circle (the
 * folder test sees circles between folders only; a circle inside a folder hides which file is the
 * base and which builds on it), and no source file is over MAX_LINES lines (a file that grew past
 * it holds more than one job: split it by job). Nothing is exempt.
 */
import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { describeTangles, importsOf, sourceFiles, SRC, tangles, type Graph } from "./source-graph.ts";

const MAX_LINES = 400;
const files = sourceFiles(SRC);

/** fileGraph returns each file of src/ (relative to src/) -> the files of src/ it imports. */
function fileGraph(): Graph {
  const graph: Graph = new Map();
  for (const file of files) {
    const from = relative(SRC, file);
    const edges = new Map<string, string>();
    for (const spec of importsOf(readFileSync(file, "utf8"))) {
      const target = resolve(dirname(file), spec);
      if (target.startsWith(SRC + "/")) edges.set(relative(SRC, target), `${from} imports ${spec}`);
    }
    graph.set(from, edges);
  }
  return graph;
}

describe("src/ files", () => {
  it("import each other without a circle", () => {
    expect(describeTangles(fileGraph()), "the file imported from below belongs lower: move the shared piece to a file both may import").toEqual([]);
  });

  it(`are at most ${MAX_LINES} lines long`, () => {
    const long = files.map((f) => [relative(SRC, f), readFileSync(f, "utf8").split("\n").length - 1] as const).filter(([, n]) => n > MAX_LINES);
    expect(long.map(([f, n]) => `${f}: ${n} lines`)).toEqual([]);
  });

  it("the circle finder sees a circle of files through a type import", () => {
    const g: Graph = new Map([
      ["a.ts", new Map([["b.ts", "a.ts imports ./b.ts"]])],
      ["b.ts", new Map([["c.ts", "b.ts imports ./c.ts"]])],
      ["c.ts", new Map([["a.ts", "c.ts imports ./a.ts"]])],
    ]);
    expect(tangles(g)).toEqual(["a.ts, b.ts, c.ts"]);
    expect(importsOf(`import type { X } from "./a.ts";\nexport { y } from "../b/c.ts";\nconst m = await import("./d.ts");`)).toEqual(["./a.ts", "../b/c.ts", "./d.ts"]);
  });
});
