#!/usr/bin/env node
// Test only: seeds the bridge's test world (src/test-support.ts) into a throwaway database and prints its ids,
// tokens and sample arguments as JSON, for the Hermes plugin's unittest (hermes-plugin/tests/support.py).
// A script of its own so that the shipped entry, src/main.ts, imports no test fixture.
import { parseArgs } from "node:util";
import { register } from "tsx/esm/api";

register();
const { values } = parseArgs({ options: { "database-url": { type: "string" } } });
// An explicit URL only: seeding test users and tokens must never hit the default database by accident.
if (!values["database-url"]) {
  process.stderr.write("seed-test-world: needs --database-url URL (a throwaway database)\n");
  process.exit(2);
}
const { openKernel } = await import("@mnote/kernel");
const { SAMPLE_ARGS, seedWorld } = await import("../src/test-support.ts");
const kernel = await openKernel(values["database-url"]);
const world = await seedWorld(kernel);
await kernel.close();
process.stdout.write(`${JSON.stringify({ ...world, sampleArgs: SAMPLE_ARGS })}\n`);
