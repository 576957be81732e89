import { defineConfig } from "@playwright/test";

/**
 * The page-AI panel end to end: one stack (bridge + panel on one SQLite database) for
 * the whole run, started by global-setup.ts. Flows run one at a time (2-core machine,
 * one shared database); each flow that writes works on a page of its own.
 * Chromium is the system one (Debian's /usr/bin/chromium): this suite never downloads browsers.
 */
export default defineConfig({
  testDir: "./flows",
  outputDir: "./test-results",
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  forbidOnly: Boolean(process.env.CI),
  reporter: "list",
  globalSetup: "./global-setup.ts",
  globalTeardown: "./global-teardown.ts",
  use: {
    browserName: "chromium",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
    viewport: { width: 1440, height: 900 },
    locale: "en-US",
    timezoneId: "UTC",
    actionTimeout: 10_000,
    navigationTimeout: 20_000,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
});
