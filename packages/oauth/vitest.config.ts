import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The document reader's cases open TLS connections to a loopback server; one waits out a 300 ms timeout.
    testTimeout: 20_000,
  },
});
