#!/usr/bin/env node
// `mnote-compile ENTRY OUTFILE`: a package's `build` step (apps/cli, apps/hermes-bridge) compiles its process entry.
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { compileEntry } from "./compile-entry.mjs";

const { positionals } = parseArgs({ allowPositionals: true, options: {} });
if (positionals.length !== 2) {
  console.error("usage: mnote-compile ENTRY OUTFILE");
  process.exit(2);
}
const [entry, outfile] = positionals.map((path) => resolve(path));
await compileEntry(entry, outfile);
