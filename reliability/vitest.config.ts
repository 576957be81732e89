import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // The crash suite spawns 30 writer processes (tsx compiles on start) on a shared, busy machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
