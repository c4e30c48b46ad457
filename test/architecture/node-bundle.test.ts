/**
 * What each `ordinal` command loads from the Node bundle (src/cli/build-node.ts, code splitting):
 * the embedded simulated cluster (src/sim) only when `serve` runs without a cluster, so neither
 * `ordinal --help` nor `ordinal serve` against a real cluster parses it; and the commands import
 * the command type (src/cli/command.ts), never main.ts, which imports them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { build, type Metafile } from "esbuild";
import { describe, expect, it } from "vitest";
import { nodeBuildOptions } from "../../src/cli/build-node.ts";

/** staticClosure returns the output files loaded with `start` before any import() runs. */
function staticClosure(meta: Metafile, start: string): Set<string> {
  const seen = new Set<string>();
  const visit = (out: string) => {
    if (seen.has(out)) return;
    seen.add(out);
    for (const i of meta.outputs[out].imports) if (i.kind === "import-statement" && !i.external) visit(i.path);
  };
  visit(start);
  return seen;
}

describe("the Node bundle", () => {
  it("loads src/sim only through the simulation's own chunk", async () => {
    const { metafile } = await build({ ...nodeBuildOptions("/tmp/ordinal-node-bundle-test"), write: false, sourcemap: false, logLevel: "silent" });
    const outputOf = (entry: string) => Object.keys(metafile.outputs).find((o) => metafile.outputs[o].entryPoint === entry)!;
    const simIn = (outs: Set<string>) => [...outs].flatMap((o) => Object.keys(metafile.outputs[o].inputs).filter((p) => p.startsWith("src/sim/")));
    // `ordinal --help` and every other command: the entry and the command modules it loads.
    const entry = outputOf("src/cli/node-entry.ts");
    const commands = metafile.outputs[entry].imports.filter((i) => i.kind === "dynamic-import").map((i) => i.path);
    const cli = new Set([entry, ...commands].flatMap((o) => [...staticClosure(metafile, o)]));
    expect(simIn(cli)).toEqual([]);
    // `ordinal serve` against a real cluster.
    expect(simIn(staticClosure(metafile, outputOf("src/node/serve.ts")))).toEqual([]);
    // And the simulation does reach the bundle (for `serve` with no cluster).
    expect(simIn(staticClosure(metafile, outputOf("src/node/simulation.ts"))).length).toBeGreaterThan(10);
  }, 60_000);
});

describe("src/cli imports", () => {
  it("no command module imports main.ts (it imports them: the command type lives in command.ts)", () => {
    const importers = readdirSync("src/cli")
      .filter((f) => f.endsWith(".ts") && !["main.ts", "node-entry.ts", "gen.ts"].includes(f))
      .filter((f) => /from "\.\/main\.ts"|import\("\.\/main\.ts"\)/.test(readFileSync(`src/cli/${f}`, "utf8")));
    expect(importers).toEqual([]);
  });
});
