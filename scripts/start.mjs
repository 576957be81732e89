#!/usr/bin/env node
// Prepares the embedded database with the demo workspace and prints how to call a tool.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const mnote = (...args) => {
  const result = spawnSync(process.execPath, [join(root, "apps/cli/bin/mnote.mjs"), ...args], { cwd: root, encoding: "utf8" });
  if (result.status !== 0) {
    process.stderr.write(result.stdout + result.stderr);
    process.exit(result.status ?? 1);
  }
  return JSON.parse(result.stdout);
};

mnote("init");
const demo = mnote("demo");
const db = process.env.MNOTE_DATABASE_URL ?? "file:./.mnote/mnote.db";
console.log(`
mnote is ready (database ${db}).

Demo workspace ${demo.workspaceId}: pages ${Object.values(demo.pages).join(", ")}
Demo users and tokens (also in ${demo.credentialsFile}):
${Object.entries(demo.users)
  .map(([key, user]) => `  ${user.id.padEnd(10)} ${user.name.padEnd(24)} person token ${demo.credentials[key].person}`)
  .join("\n")}

Call a tool:
  echo '{"toolName":"mnote.page.get","workspaceId":"ws_demo","documentId":"doc_plan","actorId":"user_ada","sessionId":"s1","runId":"r1","toolCallId":"c1","traceId":"t1","capabilityScope":["page.read"],"args":{}}' \\
    | MNOTE_TOKEN=${demo.credentials.ada.person} pnpm mnote call
`);
