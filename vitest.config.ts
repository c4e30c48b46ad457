// Two projects: `node` runs every test under test/ in Node; `workers` runs test/workers/ inside
// workerd through @cloudflare/vitest-pool-workers, with the bindings and flags of wrangler.toml.
// `npx vitest run --project node` / `--project workers` selects one.
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Every core: vitest's default in a run is one fewer than the cores, which on a 2-core machine
    // is a single worker and nearly doubles the suite's wall time (~100 s vs ~57 s for the node tests).
    maxWorkers: "100%",
    projects: [
      {
        test: {
          name: "node",
          environment: "node",
          include: ["test/**/*.test.ts"],
          exclude: ["test/workers/**", "test/e2e/**", "**/node_modules/**"],
          setupFiles: ["test/support/fast-check-setup.ts"],
          // Several engineers share these 2 cores; under a load of ~20 a few heavier tests (cert
          // generation, property runs) pass 5 s. No test asserts wall-clock time, so the ceiling only
          // catches hangs.
          testTimeout: 20_000,
        },
      },
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            // The shard objects' own env: an apiserver the tests answer by mocking fetch (the objects
            // run in the tests' isolate), and three shards.
            miniflare: { bindings: { KUBE_API_URL: "https://apiserver.test", KUBE_TOKEN: "test-token", RECONCILE_SHARDS: "3", RECONCILE_INTERVAL_MS: "60000" } },
          }),
        ],
        test: {
          name: "workers",
          include: ["test/workers/**/*.test.ts"],
        },
      },
    ],
  },
});
