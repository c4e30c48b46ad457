/**
 * Pre-warm benchmark: a simulated 10-pod in-place release (the kubelet player pulls each new
 * image in `pullSeconds` of simulated time unless the node has it) with and without
 * `imagePrewarm`, side by side. The rollout time is in simulated seconds (one reconcile pass and
 * one kubelet step per second: what a release would take with those pull delays); the time the
 * simulation itself takes is shown too (warm-up, then the median of 3).
 */
import { simulateRelease } from "../reconciler/prewarm-sim.ts";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function runPrewarmBench(): Promise<void> {
  console.log("== pre-warm: simulated 10-pod in-place release (maxUnavailable 1), rollout time without vs with imagePrewarm");
  for (const pullSeconds of [10, 30]) {
    const rows: { label: string; seconds: number; ms: number }[] = [];
    for (const prewarm of [undefined, 1, 2]) {
      await simulateRelease({ replicas: 10, pullSeconds, prewarm }); // warm-up
      const runs: { seconds: number; ms: number }[] = [];
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        const r = await simulateRelease({ replicas: 10, pullSeconds, prewarm });
        runs.push({ seconds: r.seconds, ms: performance.now() - t0 });
      }
      rows.push({ label: prewarm ? `imagePrewarm parallelism ${prewarm}` : "without pre-warm", seconds: median(runs.map((r) => r.seconds)), ms: median(runs.map((r) => r.ms)) });
    }
    const base = rows[0].seconds;
    for (const r of rows)
      console.log(
        `  pull ${String(pullSeconds).padStart(2)} s, ${r.label.padEnd(26)} rollout ${String(r.seconds).padStart(4)} s   ratio to without: ${(r.seconds / base).toFixed(2)}x (${(base / r.seconds).toFixed(1)}x faster)   simulation took ${r.ms.toFixed(0)} ms`,
      );
  }
}
