#!/usr/bin/env node
// `ordinal`, and `kubectl-ordinal` (kubectl finds it on PATH: `kubectl ordinal rollout status web`):
// runs the bundle `npm run build:node` writes (npm pack builds it first, in prepack), which
// needs nothing but Node. In a checkout, `node src/cli/bin.mjs` runs the TypeScript instead.
import { existsSync } from "node:fs";
import { URL } from "node:url";

const entry = new URL("../dist/node/ordinal.mjs", import.meta.url);
if (!existsSync(entry)) {
  console.error("ordinal: dist/node/ordinal.mjs is missing: run `npm run build:node` first (or `node src/cli/bin.mjs` in a checkout)");
  process.exit(2);
}
await import(entry.href);
