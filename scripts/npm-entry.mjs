#!/usr/bin/env node
// `npm start` and `npm test` from a fresh clone with only Node 20 and npm: this
// script fetches the pinned pnpm through npx, installs, then hands over.
import { spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BUILD_STACK_ARGS } from "./stack.mjs";

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

function stepName(command, args) {
  return [command === "npx" ? "pnpm" : command === process.execPath ? "node" : command, ...args]
    .filter((part) => !PNPM.includes(part) && !part.startsWith("--"))
    .map((part) => part.replace(`${root}/`, ""))
    .slice(0, 6)
    .join(" ");
}

function fail(status) {
  if (process.argv[2] === "test") printTimings();
  process.exit(status ?? 1);
}

/** One step, the terminal its own; a failure ends the run. */
function run(command, args, options = {}) {
  const at = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env, ...options });
  timings.push({ step: stepName(command, args), ms: Date.now() - at, status: result.status });
  if (result.status !== 0) fail(result.status);
}

/** One step beside others: resolves with its exit status (a failure is reported when every step has ended). */
function start(command, args) {
  const at = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: "inherit", env });
    child.on("error", () => resolve(1));
    child.on("exit", (code, signal) => {
      const status = code ?? (signal ? 1 : 0);
      timings.push({ step: stepName(command, args), ms: Date.now() - at, status });
      resolve(status);
    });
  });
}

const pnpm = (...args) => run("npx", [...PNPM, ...args]);
const startPnpm = (...args) => start("npx", [...PNPM, ...args]);

const task = process.argv[2];
pnpm("install", "--frozen-lockfile", "--reporter=append-only");
if (task === "test") {
  run(process.execPath, [join(root, "scripts", "check-cycles.mjs")]);
  pnpm("run", "format:check");
  // Two lines of work at once on both cores (docs/test-time.md). Each leaves the cores idle part of the time (the
  // suites wait on database round trips and the processes they spawn, the flows on the browser and the panel), so
  // side by side they finish sooner than one after the other.
  //
  // The first: lint (type-aware, one ESLint process for the whole repository, so each package's sources are parsed
  // once), the typecheck (one program for the Node packages and bench, plus e2e's own) and every package's tests, in
  // one turbo run, three tasks at a time: most suites spend much of their time waiting on a database or a child.
  const checksAndSuites = startPnpm(
    "exec",
    "turbo",
    "run",
    "//#lint",
    "typecheck:repo",
    "typecheck",
    "test",
    "--continue",
    "--concurrency=3",
    "--output-logs=new-only",
    "--log-order=grouped",
  );
  // The second: the panel's production build, then the Playwright flows on it and, beside them, the panel's
  // typecheck, which reads the route types the build writes (.next/types). Nothing rebuilds or restores .next
  // while the flows' panel serves it.
  const panelAndFlows = (async () => {
    const built = await startPnpm(...BUILD_STACK_ARGS);
    if (built !== 0) return built;
    const statuses = await Promise.all([
      start(process.execPath, [join(root, "scripts", "e2e.mjs"), "--panel-built"]),
      startPnpm("--filter", "@mnote/web", "run", "typecheck:built"),
    ]);
    return statuses.find((status) => status !== 0) ?? 0;
  })();
  const statuses = await Promise.all([checksAndSuites, panelAndFlows]);
  const failed = statuses.find((status) => status !== 0);
  if (failed !== undefined) fail(failed);
  printTimings();
} else if (task === "start") {
  run(process.execPath, [join(root, "scripts", "start.mjs")]);
} else {
  console.error("usage: node scripts/npm-entry.mjs start|test");
  process.exit(2);
}
