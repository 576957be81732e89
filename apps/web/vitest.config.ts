import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The panel's server tests start local HTTP servers and child processes; on a busy 2-core machine that takes
    // seconds, not milliseconds.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
