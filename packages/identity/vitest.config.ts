import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Each case signs in at a real OpenID provider over loopback HTTP (RSA signatures, a few round trips): well
    // under a second idle, several on a saturated 2-core machine.
    testTimeout: 30_000,
  },
});
