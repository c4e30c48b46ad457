// The suite `npm run mutate` (Stryker) runs against each mutant: the node tests without the
// randomized runs and fuzzers (seconds per run, and covering most of src: they would be re-run for
// nearly every mutant) and without workerd. Mutants must be killed by deterministic tests.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    environment: "node",
    include: ["test/**/*.test.ts"],
    exclude: [
      "test/workers/**",
      "test/e2e/**",
      "**/node_modules/**",
      "test/reconciler/random-runs.test.ts",
      "test/reconciler/inplace-random-runs.test.ts",
      "test/admission/fuzz.test.ts",
    ],
    setupFiles: ["test/support/fast-check-setup.ts"],
  },
});
