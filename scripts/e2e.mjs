#!/usr/bin/env node
// `npm test`'s end-to-end step: build the panel (turbo caches it), find a system Chromium,
// and run the Playwright flows in e2e/ against a fresh bridge + panel stack. Never downloads browsers.
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BUILD_STACK_ARGS } from "./stack.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const PNPM = ["-y", "pnpm@12.4.2"];

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** CHROMIUM_PATH, then Debian's /usr/bin/chromium, then chromium / chromium-browser on PATH. */
function findChromium() {
  if (process.env.CHROMIUM_PATH) {
    if (executable(process.env.CHROMIUM_PATH)) return process.env.CHROMIUM_PATH;
    console.error(`e2e: CHROMIUM_PATH=${process.env.CHROMIUM_PATH} is not an executable file`);
    return null;
  }
  if (executable("/usr/bin/chromium")) return "/usr/bin/chromium";
  for (const name of ["chromium", "chromium-browser"]) {
    for (const dir of (process.env.PATH ?? "").split(delimiter)) {
      if (dir && executable(join(dir, name))) return join(dir, name);
    }
  }
  return null;
}

const chromium = findChromium();
if (!chromium) {
  if (process.env.CI) {
    console.error(
      "e2e: FAILED — no Chromium found and CI is set. Install it with `apt-get install chromium` (or set CHROMIUM_PATH).",
    );
    process.exit(1);
  }
  console.log("e2e: skipped — no Chromium found; install it with `apt-get install chromium` (or set CHROMIUM_PATH)");
  process.exit(0);
}

const env = {
  ...process.env,
  CHROMIUM_PATH: chromium,
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1",
  TURBO_TELEMETRY_DISABLED: "1",
  DO_NOT_TRACK: "1",
  NEXT_TELEMETRY_DISABLED: "1",
};

// `--panel-built`: npm test has just built the panel (scripts/npm-entry.mjs) and runs the panel's typecheck beside
// the flows; a turbo run here would restore .next from its cache while the flows' panel serves it.
const panelBuilt = process.argv.includes("--panel-built");
const playwrightArgs = process.argv.slice(2).filter((arg) => arg !== "--panel-built");
if (!panelBuilt) {
  const build = spawnSync("npx", [...PNPM, ...BUILD_STACK_ARGS], {
    cwd: root,
    stdio: "inherit",
    env,
  });
  if (build.status !== 0) {
    console.error("e2e: building the panel failed");
    process.exit(build.status ?? 1);
  }
}

console.log(`e2e: Playwright flows on ${chromium}`);
const run = spawnSync("npx", [...PNPM, "--filter", "@mnote/e2e", "exec", "playwright", "test", ...playwrightArgs], {
  cwd: root,
  stdio: "inherit",
  env,
});
if (run.error) console.error(`e2e: could not start Playwright: ${run.error.message}`);
process.exit(run.status ?? 1);
