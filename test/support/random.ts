/**
 * Counts and seeds of the randomized tests, in one place. The default `npm test` runs a small
 * seeded sample so it stays fast and deterministic; ORDINAL_THOROUGH=1 (set by .ci/run) runs the
 * large sample. ORDINAL_RANDOM_RUNS / ORDINAL_RANDOM_SEED pick an exact range (to rerun one seed),
 * FC_SEED the fast-check seed (a failing property prints it).
 */

/** thorough is true when the large randomized samples are asked for (ORDINAL_THOROUGH=1). */
const thorough = process.env.ORDINAL_THOROUGH === "1";

/** randomRuns returns how many seeded runs to make: ORDINAL_RANDOM_RUNS if set, else `fast` or `large`. */
export function randomRuns(fast: number, large: number): number {
  const env = process.env.ORDINAL_RANDOM_RUNS;
  return env ? Number(env) : thorough ? large : fast;
}

/** seedRange returns the seeds to run: `runs` seeds from ORDINAL_RANDOM_SEED (default 1). */
export function seedRange(runs: number): number[] {
  const first = Number(process.env.ORDINAL_RANDOM_SEED ?? 1);
  return Array.from({ length: runs }, (_, i) => first + i);
}

/** rerunHint returns the command that reruns one failing seed of a test file. */
export function rerunHint(file: string, seed: number): string {
  return `rerun with: ORDINAL_RANDOM_SEED=${seed} ORDINAL_RANDOM_RUNS=1 npx vitest run ${file}`;
}

/**
 * forEachSeed runs `run` for every seed of the range in order; a failure is rethrown with its
 * seed and the command that reruns it. Returns the results in seed order.
 */
export async function forEachSeed<T>(file: string, runs: number, run: (seed: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (const seed of seedRange(runs)) {
    try {
      out.push(await run(seed));
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      throw new Error(`seed ${seed} failed (${rerunHint(file, seed)}): ${msg}`, { cause: e });
    }
  }
  return out;
}

/** The fast-check seed: FC_SEED if set, else a fixed one, so the default run is deterministic. */
export const fcSeed = Number(process.env.FC_SEED ?? 20261121);

/** fcRuns returns fast-check's numRuns: FC_RUNS if set, else `fast` or `large` (see thorough). */
export function fcRuns(fast: number, large: number): number {
  const env = process.env.FC_RUNS;
  return env ? Number(env) : thorough ? large : fast;
}
