/** forEachSeed and the run counts: a failing seed names itself and the command that reruns it. */
import { describe, expect, it } from "vitest";
import { forEachSeed, randomRuns, rerunHint, seedRange } from "./random.ts";

describe("forEachSeed", () => {
  it("runs the seeds in order and returns their results", async () => {
    expect(await forEachSeed("t.test.ts", 3, async (s) => s * 10)).toEqual([10, 20, 30]);
  });

  it("rethrows a failure with its seed and the rerun command, and stops there", async () => {
    const ran: number[] = [];
    const run = forEachSeed("test/x.test.ts", 5, async (s) => {
      ran.push(s);
      if (s === 2) throw new Error("two pods for ordinal 0");
    });
    await expect(run).rejects.toThrow("seed 2 failed (rerun with: ORDINAL_RANDOM_SEED=2 ORDINAL_RANDOM_RUNS=1 npx vitest run test/x.test.ts): two pods for ordinal 0");
    expect(ran).toEqual([1, 2]);
  });
});

describe("randomRuns and seedRange", () => {
  it("use the fast count by default and the environment's range when given", () => {
    const saved = { ...process.env };
    try {
      delete process.env.ORDINAL_RANDOM_RUNS;
      delete process.env.ORDINAL_RANDOM_SEED;
      expect(randomRuns(5, 50)).toBe(process.env.ORDINAL_THOROUGH === "1" ? 50 : 5);
      expect(seedRange(2)).toEqual([1, 2]);
      process.env.ORDINAL_RANDOM_RUNS = "1";
      process.env.ORDINAL_RANDOM_SEED = "42";
      expect(randomRuns(5, 50)).toBe(1);
      expect(seedRange(randomRuns(5, 50))).toEqual([42]);
      expect(rerunHint("f.test.ts", 42)).toBe("rerun with: ORDINAL_RANDOM_SEED=42 ORDINAL_RANDOM_RUNS=1 npx vitest run f.test.ts");
    } finally {
      process.env = saved;
    }
  });
});
