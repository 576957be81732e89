#!/usr/bin/env node
// Runs the compiled CLI (dist/mnote.mjs, built from src/bin.ts by `pnpm build`, which `npm start` and
// `pnpm mnote` run first): plain JavaScript, no TypeScript compiler at run time.
import { existsSync } from "node:fs";

const compiled = new URL("../dist/mnote.mjs", import.meta.url);
if (!existsSync(compiled)) {
  console.error("mnote: the CLI is not built; run `pnpm build` (or `npm start`, which builds it) in the checkout");
  process.exit(2);
}
await import(compiled.href);
