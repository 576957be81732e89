#!/usr/bin/env node
// `npm start`: the demo database, the bridge and the panel, with URLs and demo credentials.
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { BUILD_STACK_ARGS, mnote, mnoteResult, ROOT, startStack } from "./stack.mjs";

// The kernel's default database (DEFAULT_DATABASE_FILE in packages/kernel/src/open.ts), made absolute so the panel
// (which runs in apps/web) and the bridge open the same file; this plain script cannot import the TypeScript kernel.
const databaseUrl = process.env.MNOTE_DATABASE_URL ?? `file:${resolve(ROOT, ".mnote/mnote.db")}`;
const env = { MNOTE_DATABASE_URL: databaseUrl };

// The panel runs as a production build, the CLI and the bridge as compiled JavaScript (their bins run `dist/`, no
// TypeScript compiler at run time); turbo's cache makes this instant when nothing changed.
const build = spawnSync("npx", ["-y", "pnpm@12.4.2", ...BUILD_STACK_ARGS], {
  cwd: ROOT,
  stdio: "inherit",
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1", NEXT_TELEMETRY_DISABLED: "1" },
});
if (build.status !== 0) process.exit(build.status ?? 1);

await mnote(["init"], env);
// The demo workspace and its passwordless sign-in picker only on a database the demo created
// (no users but its own), or where the operator says so (MNOTE_DEMO=force). docs/security.md.
const demoRun = await mnoteResult(
  [
    "demo",
    "--credentials",
    resolve(ROOT, ".mnote/demo-tokens.json"),
    ...(process.env.MNOTE_DEMO === "force" ? ["--force"] : []),
  ],
  env,
);
const demo = demoRun.code === 0 ? demoRun.json : null;

const stack = await startStack({
  databaseUrl,
  bridgePort: Number(process.env.MNOTE_BRIDGE_PORT ?? 4100),
  webPort: Number(process.env.MNOTE_WEB_PORT ?? 4200),
  devSignInUsers: demo ? Object.values(demo.users).map((user) => user.id) : [],
  quiet: true,
});

const signIn = demo
  ? "sign in with the demo picker (Ada owns the demo workspace)"
  : "sign in with a person token: pnpm mnote admin token create --user USER_ID --holder person --scopes page.read,page.write,artifact.write";
console.log(`
mnote is running (database ${databaseUrl})

  Page-AI panel   ${stack.webUrl}    ${signIn}
  Bridge          ${stack.bridgeUrl}  GET /v1/tools · POST /v1/tools/{name} · /mcp · /healthz  (agent tokens only; /mcp also by OAuth)
${demo ? demoHelp(demo) : `\nNo demo workspace, no sign-in picker: ${demoRun.json.error}\n`}
  Ask Hermes      ${await hermesStatus()}

Use with Hermes: see apps/hermes-bridge/README.md.  Stop with Ctrl-C.
`);

/**
 * Whether the panel's "Ask Hermes" box works, in the panel's own words (GET /api/hermes: Hermes answers, takes
 * the key, and would offer a run only the allowed toolsets — decision 0021), with Hermes's version.
 */
async function hermesStatus() {
  const url = process.env.MNOTE_HERMES_URL?.trim().replace(/\/+$/, "");
  if (!url || !process.env.MNOTE_HERMES_API_KEY?.trim())
    return "not connected: set MNOTE_HERMES_URL and MNOTE_HERMES_API_KEY (README: Connecting Hermes to the panel)";
  try {
    const panel = await (await fetch(`${stack.webUrl}/api/hermes`, { signal: AbortSignal.timeout(10_000) })).json();
    // The page says what a person can do; what to change is the panel's own log line ("Ask Hermes is off: …").
    if (!panel.connected) return 'off: the panel\'s log line "[panel] Ask Hermes is off: …" above says what to change';
    const health = await fetch(`${url}/health`, { signal: AbortSignal.timeout(3000) });
    const version = health.ok ? ((await health.json().catch(() => ({}))).version ?? "?") : "?";
    return `connected to Hermes ${version} at ${url} (its runs get only the allowed toolsets)`;
  } catch {
    return `configured for ${url}, but the panel could not check it: run \`hermes gateway run\` with API_SERVER_ENABLED=true`;
  }
}

function demoHelp(demo) {
  const ada = demo.credentials.ada;
  return `
Demo workspace ${demo.workspaceId}; pages ${Object.values(demo.pages).join(", ")}.
Demo tokens (also in .mnote/demo-tokens.json):
${Object.entries(demo.users)
  .map(
    ([key, user]) =>
      `  ${user.name.padEnd(8)} ${user.id.padEnd(9)} agent ${demo.credentials[key].agent}\n${" ".repeat(28)}person ${demo.credentials[key].person}`,
  )
  .join("\n")}

Try it as an agent (the edit waits for Ada's approval in the panel):
  curl -s ${stack.bridgeUrl}/v1/tools/mnote_page_update_title -H 'authorization: Bearer ${ada.agent}' \\
    -H 'content-type: application/json' -d '{"toolName":"mnote.page.update_title","workspaceId":"ws_demo","documentId":"doc_plan",
    "actorId":"user_ada","sessionId":"s1","runId":"r1","toolCallId":"c1","traceId":"t1","idempotencyKey":"k1","dryRun":false,
    "capabilityScope":["page.write"],"args":{"title":"Project plan (reviewed)"}}'
`;
}

const shutdown = async () => {
  await stack.stop();
  process.exit(0);
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
