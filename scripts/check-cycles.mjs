#!/usr/bin/env node
// Fails when product code imports in a circle. A cycle makes module initialisation order matter: under tsx,
// importing a panel procedure first once threw "Cannot access 'proposalsList' before initialization", while vitest
// hid it. Type-only imports are erased at run time and do not count. No dependency: the imports are read with a
// regular expression, which is enough for the import forms this repository uses.
// It also fails when product code imports a test module (a spec, a fixture, a test-* helper, `@mnote/x/testing`): the
// bridge's entry once imported the test world to serve a tests-only command.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const SOURCE_ROOTS = ["packages", "apps"].flatMap((top) =>
  readdirSync(join(root, top))
    .map((name) => join(root, top, name, "src"))
    .filter((dir) => existsSync(dir)),
);
/** Tests and what only tests import: specs, fixtures, test-* helpers and the kernel's conformance suite. */
const isTestModule = (file) => /\.(test|spec|fixture)\.tsx?$|\/test-[^/]*$|conformance/.test(file);
const isProduct = (file) => /\.(ts|tsx)$/.test(file) && !isTestModule(file);

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === "node_modules" || name === ".next") continue;
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (isProduct(path)) yield path;
  }
}

/** `@mnote/tools` → packages/tools/src/index.ts; `~/x` (the web app's alias) → apps/web/src/x. */
function resolveImport(from, specifier) {
  let base;
  if (specifier.startsWith(".")) base = resolve(dirname(from), specifier);
  else if (specifier.startsWith("~/")) base = join(root, "apps", "web", "src", specifier.slice(2));
  else {
    const match = /^@mnote\/([^/]+)$/.exec(specifier);
    if (!match) return null;
    base = join(root, "packages", match[1], "src", "index");
  }
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?([^'"]*?)\s*from\s*["']([^"']+)["']/gm;
const graph = new Map();
/** Product code that imports a test module: the shipped program would carry test fixtures. */
const testImports = [];
for (const dir of SOURCE_ROOTS) {
  for (const file of walk(dir)) {
    const edges = new Set();
    for (const [, , typeOnly, clause, specifier] of readFileSync(file, "utf8").matchAll(IMPORT)) {
      // `import type {…}` and `import { type A, type B }` leave nothing behind at run time.
      if (typeOnly || /^\{\s*(type\s+[^,}]+\s*,?\s*)+\}$/.test(clause)) continue;
      const target = resolveImport(file, specifier);
      if (/^@mnote\/[^/]+\/testing$/.test(specifier) || (target && isTestModule(target))) {
        testImports.push(`${relative(root, file)} imports ${specifier}`);
      }
      if (target && isProduct(target)) edges.add(target);
    }
    graph.set(file, edges);
  }
}

// Tarjan's strongly connected components: every component of more than one file is a cycle.
let index = 0;
const stack = [];
const meta = new Map();
const cycles = [];
function connect(node) {
  meta.set(node, { index, low: index, onStack: true });
  index++;
  stack.push(node);
  for (const next of graph.get(node) ?? []) {
    if (!meta.has(next)) {
      connect(next);
      meta.get(node).low = Math.min(meta.get(node).low, meta.get(next).low);
    } else if (meta.get(next).onStack) meta.get(node).low = Math.min(meta.get(node).low, meta.get(next).index);
  }
  if (meta.get(node).low === meta.get(node).index) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      meta.get(member).onStack = false;
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? new Set()).has(node)) cycles.push(component);
  }
}
for (const node of graph.keys()) if (!meta.has(node)) connect(node);

if (testImports.length > 0) {
  console.error(`product code imports test modules (${testImports.length}):`);
  for (const line of testImports) console.error(`  ${line}`);
  process.exit(1);
}
if (cycles.length > 0) {
  console.error(`import cycles in product code (${cycles.length}):`);
  for (const cycle of cycles)
    console.error(
      `  ${cycle
        .map((file) => relative(root, file))
        .sort()
        .join("\n    ")}`,
    );
  process.exit(1);
}
console.log(`no import cycles and no test imports in ${graph.size} product files`);
