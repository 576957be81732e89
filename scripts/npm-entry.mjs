#!/usr/bin/env node
// `npm start` and `npm test` from a fresh clone with only Node 20 and npm: this
// script fetches the pinned pnpm through npx, installs, then hands over.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const PNPM = ["-y", "pnpm@12.4.2"];
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1", NEXT_TELEMETRY_DISABLED: "1" };

// How long each step took, printed at the end (or at the step that failed): where a slow `npm test` spends its time.
const timings = [];
const started = Date.now();
function printTimings() {
  const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;
  console.log(`\nnpm ${process.argv[2] ?? ""}: ${seconds(Date.now() - started)} in all`);
  for (const { step, ms, status } of timings)
    console.log(`  ${seconds(ms).padStart(6)}  ${step}${status ? ` (exit ${status})` : ""}`);
}

function run(command, args, options = {}) {
  const at = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env, ...options });
  const step = [command === "npx" ? "pnpm" : command === process.execPath ? "node" : command, ...args]
    .filter((part) => !PNPM.includes(part) && !part.startsWith("--"))
    .map((part) => part.replace(`${root}/`, ""))
    .slice(0, 6)
    .join(" ");
  timings.push({ step, ms: Date.now() - at, status: result.status });
  if (result.status !== 0) {
    if (process.argv[2] === "test") printTimings();
    process.exit(result.status ?? 1);
  }
}

const pnpm = (...args) => run("npx", [...PNPM, ...args]);

const task = process.argv[2];
pnpm("install", "--frozen-lockfile", "--reporter=append-only");
if (task === "test") {
  run(process.execPath, [join(root, "scripts", "check-cycles.mjs")]);
  pnpm("run", "format:check");
  // Lint (type-aware, one ESLint process for the whole repository: one TypeScript project service, so each package's
  // sources are parsed once, not once per package that imports them), the typecheck (one program for every Node
  // package, plus the panel's, e2e's and bench's own) and every package's tests, in one turbo run on both cores.
  // Lint is one core's work for a minute and a half: beside the tests rather than before them (a lint error is
  // reported at the end of this step, with the rest). The panel's build (for the e2e flows; turbo caches it, so
  // scripts/e2e.mjs finds it done) fills the cores while the last suites wait on their databases; the panel's
  // typecheck follows it, so it always sees the route types the build writes (.next/types).
  pnpm(
    "exec",
    "turbo",
    "run",
    "//#lint",
    "typecheck:repo",
    "typecheck",
    "test",
    "build",
    "--continue",
    "--concurrency=2",
    "--output-logs=new-only",
    "--log-order=grouped",
  );
  run(process.execPath, [join(root, "scripts", "e2e.mjs")]);
  printTimings();
} else if (task === "start") {
  run(process.execPath, [join(root, "scripts", "start.mjs")]);
} else {
  console.error("usage: node scripts/npm-entry.mjs start|test");
  process.exit(2);
}
