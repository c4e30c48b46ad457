import { defineConfig } from "vitest/config";

// The e2e suite: real kube-apiserver (test/cluster), one file at a time.
export default defineConfig({
  test: {
    include: ["test/e2e/**/*.e2e.test.ts"],
    fileParallelism: false,
    testTimeout: 240_000,
    hookTimeout: 120_000,
  },
});
