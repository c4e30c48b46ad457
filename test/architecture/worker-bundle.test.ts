/**
 * What the Worker bundle is made of (its size budget, 100 KiB gzip, is checked by `npm run bench`).
 * Built as the bench builds it (esbuild, minified, the Worker's entry); the metafile says how many
 * bytes each input file contributes. Classic zod cannot be tree-shaken (its schemas import the
 * toJSONSchema code), so the schemas use zod/mini and the CRD generator alone uses toJSONSchema;
 * @kubernetes/client-node is types only; jose (JWT verification: src/auth/jwt-verify.ts) and
 * fast-json-patch (src/objects/json-diff.ts) are left to Node and the tests.
 */
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

/** workerInputs returns the bytes each input file contributes to the minified Worker bundle. */
async function workerInputs(): Promise<Map<string, number>> {
  const r = await build({
    entryPoints: ["src/worker/index.ts"],
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    minify: true,
    write: false,
    external: ["node:*"],
    logLevel: "silent",
    metafile: true,
  });
  const [output] = Object.values(r.metafile.outputs);
  return new Map(Object.entries(output.inputs).map(([path, v]) => [path, v.bytesInOutput]));
}

/** A module that only re-exports or is tree-shaken away still appears, with a stub of a few bytes. */
const STUB_BYTES = 64;

describe("the Worker bundle", () => {
  it("has zod/mini's parser and English messages, not classic zod, toJSONSchema or @kubernetes/client-node", async () => {
    const inputs = await workerInputs();
    const paths = [...inputs.keys()];
    const carried = (pattern: RegExp) => paths.filter((p) => pattern.test(p) && inputs.get(p)! > STUB_BYTES);
    expect(carried(/node_modules\/zod\/v4\/mini\/schemas\.js$/)).toHaveLength(1);
    expect(carried(/node_modules\/zod\/v4\/locales\/en\.js$/)).toHaveLength(1);
    expect(carried(/node_modules\/zod\/v4\/locales\/(?!en\.js)/)).toEqual([]);
    expect(carried(/node_modules\/zod\/v4\/classic\//)).toEqual([]);
    expect(carried(/node_modules\/zod\/v4\/core\/(json-schema-processors|to-json-schema|json-schema-generator)\.js$/)).toEqual([]);
    expect(paths.filter((p) => p.includes("@kubernetes/client-node"))).toEqual([]);
  });

  it("verifies JWTs and diffs JSON with its own code: jose and fast-json-patch are Node's and the tests'", async () => {
    const inputs = await workerInputs();
    expect([...inputs.keys()].filter((p) => /node_modules\/(jose|fast-json-patch)\//.test(p) && inputs.get(p)! > STUB_BYTES)).toEqual([]);
  });
});
