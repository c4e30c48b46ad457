/**
 * The chaos run's observer (test/chaos/observer/) is independent of the reconciler it judges: its
 * files import only each other and packages, never src/ (nor the test helpers built on src/), so
 * a mistake in Ordinal's reading of the spec cannot hide in the observer's.
 */
import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { importsOf, sourceFiles } from "./source-graph.ts";

const OBSERVER = resolve(import.meta.dirname, "../chaos/observer");

/** outsideImports returns each relative import of a file in `dir` that leaves `dir`, as `file imports spec`. */
function outsideImports(dir: string, files: { path: string; source: string }[]): string[] {
  return files.flatMap(({ path, source }) =>
    importsOf(source)
      .filter((spec) => !resolve(dirname(path), spec).startsWith(dir + "/"))
      .map((spec) => `${relative(dir, path)} imports ${spec}`),
  );
}

describe("test/chaos/observer", () => {
  it("imports nothing outside its folder (no src/, no helpers built on it)", () => {
    const files = sourceFiles(OBSERVER).map((path) => ({ path, source: readFileSync(path, "utf8") }));
    expect(files.length).toBeGreaterThan(3);
    expect(outsideImports(OBSERVER, files)).toEqual([]);
  });

  it("the check sees an import of src/, a type import and a re-export", () => {
    const files = [
      { path: `${OBSERVER}/a.ts`, source: `import { plan } from "../../../src/core/planner.ts";\nimport type { X } from "./b.ts";` },
      { path: `${OBSERVER}/c.ts`, source: `export { y } from "../../e2e/support.ts";\nimport type { Pod } from "../../../src/api/k8s.ts";` },
    ];
    expect(outsideImports(OBSERVER, files)).toEqual(["a.ts imports ../../../src/core/planner.ts", "c.ts imports ../../e2e/support.ts", "c.ts imports ../../../src/api/k8s.ts"]);
  });
});
