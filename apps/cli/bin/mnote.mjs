#!/usr/bin/env node
// Runs the TypeScript sources directly: the CLI ships with the monorepo, not as a build.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/main.ts");
process.exitCode = await main(process.argv.slice(2));
