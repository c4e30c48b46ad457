/**
 * src/validation against the recorded answers of the real kube-apiserver 1.20.2
 * (oracle-recording.json, written by test/cluster/record-oracle.sh; no cluster needed here):
 * for every variant of the corpus, the same allow/deny and the same field paths and reasons
 * (and decode messages) for the pods and PVCs the set implies and for the set as apps/v1, with the
 * documented exceptions of test/validation/oracle.ts. The live version of the same check is
 * test/e2e/validation-oracle.e2e.test.ts.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_RANDOM_COUNT, DEFAULT_SEED, EXCEPTION_NAMES, type Recording, comparePodsAndClaims, compareSet, oracleVariants, variantSha } from "./oracle.ts";

const recording = JSON.parse(readFileSync(new URL("./oracle-recording.json", import.meta.url), "utf8")) as Recording;
const variants = oracleVariants(recording.seed, recording.randomCount);
const RERUN = "the recording is older than test/e2e/variants.ts: rerun `flock /tmp/ordinal-e2e.lock bash test/cluster/record-oracle.sh`";

describe("the recorded kube-apiserver answers", () => {
  it("are for the default corpus, variant by variant", () => {
    expect([recording.seed, recording.randomCount]).toEqual([DEFAULT_SEED, DEFAULT_RANDOM_COUNT]);
    expect(recording.variants.map((r) => `${r.name} ${r.sha256}`), RERUN).toEqual(variants.map((v) => `${v.name} ${variantSha(v)}`));
    for (const name of EXCEPTION_NAMES) expect(variants.some((v) => v.name === name), name).toBe(true);
  });

  it("cover admitted and refused objects of every kind", () => {
    const codes = (pick: (r: Recording["variants"][number]) => number[]) => new Set(recording.variants.flatMap(pick));
    expect([...codes((r) => r.pods.map((p) => p.answer.code))].sort()).toEqual([201, 400, 422]);
    expect([...codes((r) => r.claims.map((c) => c.answer.code))].sort()).toEqual([201, 400, 422]);
    expect([...codes((r) => [r.set.code])].sort()).toEqual([201, 400, 422]);
  });
});

describe("src/validation agrees with the recorded kube-apiserver", () => {
  for (const [i, v] of variants.entries()) {
    const rec = recording.variants[i];
    it(`pod/PVC and apps/v1: ${v.name}`, () => {
      expect(rec?.name, RERUN).toBe(v.name);
      const o = comparePodsAndClaims(v, rec!, recording.namespace);
      expect(o.agree, `pod/PVC ${v.name}: only 1.20 ${JSON.stringify(o.onlyOracle)}; only Ordinal ${JSON.stringify(o.onlyOrdinal)}`).toBe(true);
      const s = compareSet(v, rec!.set, recording.namespace);
      expect(s.agree, `apps/v1 ${v.name}: only 1.20 ${JSON.stringify(s.onlyOracle)}; only Ordinal ${JSON.stringify(s.onlyOrdinal)}`).toBe(true);
    });
  }
});
