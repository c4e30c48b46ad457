/**
 * Builds the Node `ordinal` (`npm run build:node`, and `prepack` before `npm pack`/`npm publish`):
 * src/cli/node-entry.ts bundled with its runtime dependencies into dist/node/, so the installed
 * package needs nothing but Node. Code splitting: what one command alone uses (the embedded
 * simulated cluster, the server, the reconciler) is a chunk loaded by import() when that command
 * runs, so `ordinal --help` parses a small entry file.
 *   tsx src/cli/build-node.ts [--outdir DIR] [--metafile FILE]
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { build, type BuildOptions, type Metafile } from "esbuild";

/** nodeBuildOptions returns the esbuild options of the Node bundle written to `outdir`. */
export function nodeBuildOptions(outdir: string): BuildOptions & { metafile: true } {
  return {
    // ordinal.mjs: what bin/ordinal.mjs and the container image run.
    entryPoints: { ordinal: "src/cli/node-entry.ts" },
    outdir,
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    platform: "node",
    target: "node20",
    format: "esm",
    // Bundled CommonJS packages (node-forge) call require(); give ES modules one.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    sourcemap: true,
    logLevel: "warning",
    metafile: true,
  };
}

/** buildNode bundles into `outdir` and returns esbuild's metafile (which inputs went into which chunk). */
export async function buildNode(outdir = "dist/node"): Promise<Metafile> {
  return (await build(nodeBuildOptions(outdir))).metafile;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { outdir: { type: "string" }, metafile: { type: "string" } }, strict: true });
  const meta = await buildNode(values.outdir);
  if (values.metafile) writeFileSync(values.metafile, JSON.stringify(meta));
}
