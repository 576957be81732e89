import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The contract suites run every case on SQLite, PGlite (WebAssembly) and the PostgreSQL server; each builds a
    // world of users, pages and tokens first. Under load on a 2-core machine one case took over vitest's 5 s default
    // (2 of 1,796 on a busy run), so the limit fits a database-bound case there, not an idle laptop.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two files at a time: a contract case mostly waits on the PostgreSQL server's round trips and commits, so on
    // a 2-core machine (where vitest's default is one worker) a second file keeps the cores busy. The files share
    // their worker's modules (isolate: false): each file loading PGlite, zod's schemas and the router afresh was
    // 87 s of a 305 s run. Every case opens a fresh world of its own (useWorlds), and no file here mocks a
    // module, fakes timers or changes globals, so a file cannot see another's state.
    maxWorkers: 2,
    isolate: false,
  },
});
