import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Real PostgreSQL and PGlite tests do real I/O and WebAssembly work; give them room on a busy machine.
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
