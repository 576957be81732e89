import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Real PostgreSQL and PGlite tests do real I/O and WebAssembly work; give them room on a busy machine.
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Two files at a time (vitest's default on 2 cores is one): the PostgreSQL cases mostly wait on the server.
    // The files share their worker's modules (isolate: false), so PGlite starts once per worker, not per file;
    // each suite opens databases of its own (test-databases.ts) and none mocks a module or changes globals.
    maxWorkers: 2,
    isolate: false,
  },
});
