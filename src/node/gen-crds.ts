/**
 * Writes deploy/crds/*.yaml from the zod schemas; with --check, exits 1 when the checked-in
 * files differ from what the schemas generate (npm test runs the check).
 */
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { stringify } from "yaml";
import { imageListCrd, statefulSetCrd } from "../api/crd.ts";

const header = "# Generated from src/api/*.ts by `npm run gen`; do not edit.\n";
export const crdFiles = (): Record<string, string> => ({
  "deploy/crds/statefulsets.apps.ordinal.dev.yaml": header + stringify(statefulSetCrd(), { lineWidth: 0 }),
  "deploy/crds/imagelists.apps.ordinal.dev.yaml": header + stringify(imageListCrd(), { lineWidth: 0 }),
});

if (import.meta.url === `file://${process.argv[1]}`) {
  const check = process.argv.includes("--check");
  let stale = 0;
  for (const [path, text] of Object.entries(crdFiles())) {
    let current = "";
    try {
      current = readFileSync(path, "utf8");
    } catch {
      current = "";
    }
    if (current === text) continue;
    if (check) {
      console.error(`${path} is stale: run \`npm run gen\` and commit it`);
      stale++;
    } else {
      mkdirSync("deploy/crds", { recursive: true });
      writeFileSync(path, text);
      console.log(`wrote ${path}`);
    }
  }
  process.exit(stale ? 1 : 0);
}
