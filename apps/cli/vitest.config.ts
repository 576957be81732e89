import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The CLI suites run the real `mnote` binary (Node + tsx start per command) and open a SQLite database per call.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
