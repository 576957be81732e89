#!/usr/bin/env node
// Runs the compiled bridge (dist/mnote-bridge.mjs, built from src/main.ts by `pnpm build`, which `npm start` runs
// first): plain JavaScript, no TypeScript compiler at run time.
import { existsSync } from "node:fs";

const compiled = new URL("../dist/mnote-bridge.mjs", import.meta.url);
if (!existsSync(compiled)) {
  console.error(
    "mnote-bridge: the bridge is not built; run `pnpm build` (or `npm start`, which builds it) in the checkout",
  );
  process.exit(2);
}
await import(compiled.href);
