import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // Some tests spawn `mnote-bridge` (tsx compiles on start) or run a real MCP session.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
