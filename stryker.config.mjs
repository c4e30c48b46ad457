/**
 * `npm run mutate`: mutation testing of the pure core, the reconciler and the admission handlers
 * with Stryker's vitest runner (vitest.mutate.config.ts: the deterministic node tests). Incremental:
 * reports/stryker-incremental.json keeps the results of unchanged code and tests, so a rerun tests
 * only what changed. Scope a run with `npm run mutate -- --mutate src/core/status.ts`.
 * Not part of `npm test` (minutes to hours on 2 cores).
 */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutate.config.ts" },
  mutate: ["src/core/**/*.ts", "src/objects/**/*.ts", "src/reconciler/**/*.ts", "src/schedule/**/*.ts", "src/lease/**/*.ts", "src/admission/**/*.ts"],
  coverageAnalysis: "perTest",
  incremental: true,
  incrementalFile: "reports/stryker-incremental.json",
  concurrency: 2,
  timeoutMS: 20000,
  reporters: ["clear-text", "progress", "json"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  thresholds: { high: 85, low: 70, break: null },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};
