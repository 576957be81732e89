import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The contract suites run every case on SQLite, PGlite (WebAssembly) and the PostgreSQL server; each builds a
    // world of users, pages and tokens first. Under load on a 2-core machine one case took over vitest's 5 s default
    // (2 of 1,796 on a busy run), so the limit fits a database-bound case there, not an idle laptop.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
