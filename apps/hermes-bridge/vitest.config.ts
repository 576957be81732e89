import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // Some tests spawn `mnote-bridge` (tsx compiles on start) or run a real MCP session.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two files at a time: most of a file's time is waiting on a child process (a stdio bridge, the Python suite)
    // or on an MCP round trip, so on a 2-core machine (where vitest's default is one worker) a second file keeps
    // the cores busy. The files share their worker's modules (isolate: false): each file loading the kernel, the
    // contract's schemas and both MCP SDKs afresh is seconds of CPU per file. Every file opens its own kernel and
    // world, and no file here mocks a module, fakes timers or changes globals or process.env, so a file cannot see
    // another's state.
    maxWorkers: 2,
    isolate: false,
  },
});
