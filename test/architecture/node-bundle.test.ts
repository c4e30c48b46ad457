/**
 * What each `ordinal` command loads from the Node bundle (src/cli/build-node.ts, code splitting):
 * the embedded simulated cluster (src/sim) only when `serve` runs without a cluster, so neither
 * `ordinal --help` nor `ordinal serve` against a real cluster parses it; `ordinal --help` loads
 * the command table and nothing heavy (each command imports the code that does its work when it
 * runs); and the commands import the command type (src/cli/command.ts), never main.ts, which
 * imports them. Speed itself is a benchmark: `npm run bench:cli`.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

/**
 * What `ordinal --help` must not load: any package, and the code that does a command's work.
 * Small pure readers and constants (src/core/update-strategy.ts, src/deploy/identity.ts) are fine;
 * HELP_MAX_BYTES bounds what is loaded in all.
 */
const HEAVY = /^(node_modules\/|src\/(sim|reconciler|schedule|lease|worker|node|admission|http|webhook-config|validation|kube\/http)|src\/core\/(planner|rollout-state)\.ts$|src\/api\/(crd|statefulset|imagelist|zod)\.ts$|src\/auth\/(token|webhook-auth|settings)\.ts$|src\/deploy\/(manifests|rbac)\.ts$)/;
const HELP_MAX_BYTES = 80 * 1024;

/** bundleMeta returns the metafile of the Node bundle, built in memory once. */
let built: Promise<Metafile> | undefined;
const bundleMeta = () => (built ??= build({ ...nodeBuildOptions("/tmp/ordinal-node-bundle-test"), write: false, sourcemap: false, logLevel: "silent" }).then((r) => r.metafile));

describe("the Node bundle", () => {
  it("ordinal --help loads the command table only: no package, none of the code a command runs", async () => {
    const metafile = await bundleMeta();
    const entry = Object.keys(metafile.outputs).find((o) => metafile.outputs[o].entryPoint === "src/cli/node-entry.ts")!;
    // The entry's static imports, then the command modules main.ts imports to list them, with theirs
    // (not the cluster connection, src/node/kubeconfig.ts, which a command loads when it needs a client).
    const commands = metafile.outputs[entry].imports
      .filter((i) => i.kind === "dynamic-import" && metafile.outputs[i.path].entryPoint?.startsWith("src/cli/"))
      .map((i) => i.path);
    expect(commands.length).toBeGreaterThanOrEqual(7);
    const loaded = new Set([entry, ...commands].flatMap((o) => [...staticClosure(metafile, o)]));
    const heavy = [...loaded].flatMap((o) => Object.keys(metafile.outputs[o].inputs).filter((p) => HEAVY.test(p)));
    expect(heavy).toEqual([]);
    expect([...loaded].reduce((n, o) => n + metafile.outputs[o].bytes, 0)).toBeLessThanOrEqual(HELP_MAX_BYTES);
  }, 60_000);

  it("the built commands run what they import() (a package imported so gets only a default export in the bundle)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ordinal-node-bundle-"));
    try {
      await build({ ...nodeBuildOptions(dir), sourcemap: false, logLevel: "silent" });
      const run = (...args: string[]) => spawnSync(process.execPath, [join(dir, "ordinal.mjs"), ...args], { encoding: "utf8", env: { PATH: process.env.PATH } });
      for (const args of [["manifests", "--kube-version", "1.20"], ["register", "--url", "https://127.0.0.1:8443", "--dry-run"], ["token", "--generate-keys", join(dir, "keys")]]) {
        const r = run(...args);
        expect(r.stderr, args.join(" ")).toBe("");
        expect(r.status, args.join(" ")).toBe(0);
        expect(r.stdout.length, args.join(" ")).toBeGreaterThan(100);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("loads src/sim only through the simulation's own chunk", async () => {
    const metafile = await bundleMeta();
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
