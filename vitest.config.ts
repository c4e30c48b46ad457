// Two projects: `node` runs every test under test/ in Node; `workers` runs test/workers/ inside
// workerd through @cloudflare/vitest-pool-workers, with the bindings and flags of wrangler.toml.
// `npx vitest run --project node` / `--project workers` selects one.
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "node",
          environment: "node",
          include: ["test/**/*.test.ts"],
          exclude: ["test/workers/**", "test/e2e/**", "**/node_modules/**"],
          setupFiles: ["test/support/fast-check-setup.ts"],
        },
      },
      {
        plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" } })],
        test: {
          name: "workers",
          include: ["test/workers/**/*.test.ts"],
        },
      },
    ],
  },
});
