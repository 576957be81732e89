import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // The app's `~/` alias (tsconfig.json paths), for the component tests that import views.
  resolve: { alias: { "~": fileURLToPath(new URL("./src", import.meta.url)) } },
  test: {
    // The panel's server tests start local HTTP servers and child processes; on a busy 2-core machine that takes
    // seconds, not milliseconds. Component tests (*.test.tsx) pick happy-dom per file.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
