import { defineConfig } from "@playwright/test";

/**
 * Flows that create users or read the whole user list (a "nothing was created" check) or a workspace's members: they
 * run one at a time among themselves. No other flow creates a user or changes a membership.
 */
const USER_FLOWS = ["doors.spec.ts", "members.spec.ts", "sign-in-oidc.spec.ts"].map((file) => `**/${file}`);

/**
 * The page-AI panel end to end: one stack (bridge + panel on one SQLite database) for
 * the whole run, started by global-setup.ts. Two files at a time (one Chromium each on a 2-core machine: a flow
 * mostly waits on the panel and the bridge); each flow that writes works on a page of its own, and a file's flows
 * run in order in one worker (ask-hermes.spec.ts changes and then stops the Hermes stand-in only it uses).
 * Chromium is the system one (Debian's /usr/bin/chromium): this suite never downloads browsers.
 */
export default defineConfig({
  testDir: "./flows",
  outputDir: "./test-results",
  workers: 2,
  fullyParallel: false,
  projects: [
    { name: "flows", testIgnore: USER_FLOWS },
    { name: "user flows", testMatch: USER_FLOWS, workers: 1 },
  ],
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
