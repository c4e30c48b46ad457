// The upstream e2e StatefulSet manifests (test/validation/corpus), converted to
// apps.ordinal.dev/v1: Ordinal's validation must admit every one of them.
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { describe, expect, it } from "vitest";
import { validateStatefulSet } from "../../src/validation/index.ts";
import { messages } from "./helpers.ts";

const dir = fileURLToPath(new URL("./corpus/", import.meta.url));

/** The StatefulSet documents of every corpus file (some files hold several documents). */
function corpus(): Array<{ file: string; set: Record<string, unknown> }> {
  const out: Array<{ file: string; set: Record<string, unknown> }> = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".yaml")).sort())
    for (const doc of parseAllDocuments(readFileSync(dir + file, "utf8"))) {
      const obj = doc.toJS() as Record<string, unknown> | null;
      if (obj?.kind === "StatefulSet") out.push({ file, set: { ...obj, apiVersion: "apps.ordinal.dev/v1" } });
    }
  return out;
}

describe("validateStatefulSet on the upstream e2e corpus", () => {
  const sets = corpus();

  it("has the eight upstream manifests", () => expect(sets.map((s) => s.file)).toHaveLength(8));

  for (const { file, set } of sets)
    it(`admits ${file}`, () => {
      expect(messages(validateStatefulSet(set, undefined, { group: "apps.ordinal.dev" }).errors)).toEqual([]);
    });

  it("counts admitted and denied", () => {
    let admitted = 0;
    let denied = 0;
    for (const { set } of sets) {
      if (validateStatefulSet(set, undefined, { group: "apps.ordinal.dev" }).errors.length === 0) admitted++;
      else denied++;
    }
    console.log(`corpus: ${admitted} admitted, ${denied} denied`);
    expect(denied).toBe(0);
  });
});
