/**
 * Work in steps: a generator that yields between parts of a long computation and returns its
 * result. Run it through at once (runSteps), or pausing at each yield (runStepsPausing) so that a
 * server does other work, such as another webhook call or /healthz, between the parts.
 */
export type Steps<T> = Generator<void, T, void>;

/** runSteps returns the result of `steps`, run without pausing. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** runStepsPausing returns the result of `steps`, awaiting `pause()` at each of its yields. */
export async function runStepsPausing<T>(steps: Steps<T>, pause: () => Promise<void>): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await pause();
  }
}
