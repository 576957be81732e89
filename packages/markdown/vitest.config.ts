import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // These suites are fast-check properties: pure CPU work, a second or two per property on an idle machine. On a
    // 2-core machine saturated by other work a property took over vitest's 5 s default (CI, 2026-11-30), so the limit
    // fits the slow machine; the properties keep their full number of runs.
    testTimeout: 60_000,
  },
});
