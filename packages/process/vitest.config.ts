import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The limiters' properties are pure CPU work; on a 2-core machine saturated by other work a property can pass
    // vitest's 5 s default, so the limit fits the slow machine and the properties keep their number of runs.
    testTimeout: 30_000,
  },
});
