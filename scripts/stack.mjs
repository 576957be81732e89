// Starts the bridge and the panel as child processes on one database. `npm start`
// and the Playwright flows both use it, so the demo and the tests run the same way.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * pnpm's arguments that build what the stack runs: the panel's production build, and the CLI and the bridge as
 * compiled JavaScript (their bins run `dist/`); turbo's cache makes it instant when nothing changed.
 */
export const BUILD_STACK_ARGS = [
  "exec",
  "turbo",
  "run",
  "build",
  "--filter=@mnote/web",
  "--filter=@mnote/cli",
  "--filter=@mnote/hermes-bridge",
  "--output-logs=errors-only",
];

/** A port the OS says is free right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(url, child, name, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode}`);
    try {
      const response = await fetch(url, { redirect: "manual" });
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${name} did not answer ${url} within ${timeoutMs / 1000}s`);
}

/**
 * @param {{ databaseUrl: string, host?: string, bridgePort?: number, webPort?: number, devSignInUsers?: string[], quiet?: boolean, webEnv?: Record<string, string> }} options
 *   `devSignInUsers`: the demo users the panel's sign-in picker offers; only for a database the demo created.
 *   `webEnv`: more variables for the panel only (e.g. MNOTE_HERMES_URL / MNOTE_HERMES_API_KEY; the bridge needs no Hermes key).
 */
export async function startStack(options) {
  const host = options.host ?? "127.0.0.1";
  const bridgePort = options.bridgePort ?? (await freePort());
  const webPort = options.webPort ?? (await freePort());
  const env = { ...process.env, MNOTE_DATABASE_URL: options.databaseUrl, NEXT_TELEMETRY_DISABLED: "1" };
  // MCP authorization (decision 0027): the panel is the authorization server of the bridge's /mcp.
  const bridgeUrl = `http://${host}:${bridgePort}`;
  const webUrl = `http://${host}:${webPort}`;
  const bridgeEnv = { ...env, MNOTE_BRIDGE_OAUTH_ISSUER: webUrl };
  const oauthEnv = { MNOTE_OAUTH_ISSUER: webUrl, MNOTE_OAUTH_RESOURCES: `${bridgeUrl}/mcp` };
  const stdio = options.quiet ? ["ignore", "ignore", "inherit"] : ["ignore", "inherit", "inherit"];
  const bridge = spawn(
    process.execPath,
    [join(ROOT, "apps/hermes-bridge/bin/mnote-bridge.mjs"), "serve", "--port", String(bridgePort), "--host", host],
    { cwd: ROOT, env: bridgeEnv, stdio },
  );
  const web = spawn(
    process.execPath,
    [join(ROOT, "apps/web/node_modules/next/dist/bin/next"), "start", "-p", String(webPort), "-H", host],
    {
      cwd: join(ROOT, "apps/web"),
      env: { ...env, ...oauthEnv, ...options.webEnv, MNOTE_DEV_SIGNIN_USERS: (options.devSignInUsers ?? []).join(",") },
      stdio,
    },
  );
  const stop = async () => {
    for (const child of [bridge, web]) if (child.exitCode === null) child.kill("SIGTERM");
    await Promise.all(
      [bridge, web].map((child) => (child.exitCode !== null ? null : new Promise((r) => child.once("exit", r)))),
    );
  };
  try {
    await Promise.all([waitFor(`${bridgeUrl}/healthz`, bridge, "bridge"), waitFor(`${webUrl}/signin`, web, "panel")]);
    return { bridgeUrl, webUrl, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Run the mnote CLI and parse its JSON answer; a failed command throws. */
export async function mnote(args, env = {}) {
  const { code, out } = await runMnote(args, env);
  if (code !== 0) throw new Error(`mnote ${args.join(" ")} failed (${code}): ${out}`);
  return JSON.parse(out);
}

/** Run the mnote CLI: its exit code and its JSON answer, whichever it is. */
export async function mnoteResult(args, env = {}) {
  const { code, out } = await runMnote(args, env);
  return { code, json: JSON.parse(out) };
}

async function runMnote(args, env) {
  const child = spawn(process.execPath, [join(ROOT, "apps/cli/bin/mnote.mjs"), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk) => (out += chunk));
  const code = await new Promise((r) => child.once("exit", r));
  return { code, out };
}
