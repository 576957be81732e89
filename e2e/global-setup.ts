import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { freePort, ROOT, startStack } from "../scripts/stack.mjs";
import { startTestIdp } from "@mnote/identity/test-idp";
import { TEST_CA_PATH } from "@mnote/oauth/testing";
import { compiledEntry } from "@mnote/process/testing";
import { startHermesStandIn } from "./hermes-standin/start";
import { FLOW_PAGES } from "./flows/pages";
import { DEMO_USER_IDS, type E2EState, OIDC_PEOPLE } from "./flows/state";

/**
 * One temporary SQLite database with the demo data, the bridge and the panel on it,
 * a stand-in for Hermes's API server that the panel's "Ask Hermes" talks to (its tools
 * act with Ada's agent token through the real plugin and bridge),
 * and a page of its own for each flow (created with the CLI while the stack boots).
 * Tests find the URLs and the demo tokens through MNOTE_E2E_STATE (a JSON file);
 * global-teardown.ts stops the stack.
 */
export default async function globalSetup() {
  const dir = await mkdtemp(join(tmpdir(), "mnote-e2e-"));
  const databaseUrl = `file:${join(dir, "mnote.db")}`;
  const env = { MNOTE_DATABASE_URL: databaseUrl };
  // The setup runs 30 CLI commands: the CLI's `main` (what bin/mnote.mjs runs), compiled once, in one process that
  // takes them one after another. A process per command paid the bundle's start (about half a CPU-second) 30 times,
  // and on a loaded 2-core machine the pages were done well after the stack was up. The flows run bin/mnote.mjs.
  const cli = await cliProcess();
  const mnote = cli.run;
  await mnote(["init"], env);

  // The stack boots while the CLI adds the demo data and the flows' pages.
  const seed = async () => {
    const demo = await mnote(["demo", "--credentials", join(dir, "demo-tokens.json")], env);
    for (const page of Object.values(FLOW_PAGES)) {
      const blocksFile = join(dir, `${page.id}.blocks.json`);
      await writeFile(blocksFile, JSON.stringify(page.blocks));
      await mnote(
        [
          "admin",
          "page",
          "create",
          "--workspace",
          demo.workspaceId,
          "--title",
          page.title,
          "--created-by",
          "user_ada",
          "--blocks-file",
          blocksFile,
          "--id",
          page.id,
        ],
        env,
      );
    }
    // Ada signs in through the identity provider too: her mnote user has the email it vouches for.
    await mnote(["admin", "user", "set-email", "--id", "user_ada", "--email", "ada@example.com"], env);
    return demo;
  };
  // The panel reads MNOTE_HERMES_URL at start; the stand-in starts once the demo's agent token exists.
  const hermesPort = await freePort();
  const hermesKey = randomBytes(24).toString("hex");
  // A real OpenID provider (oidc-provider) the panel signs people in through; it knows the panel's callback.
  const webPort = await freePort();
  const idp = await startTestIdp({
    redirectUris: [`http://127.0.0.1:${webPort}/api/auth/oidc/callback`],
    people: OIDC_PEOPLE,
  });
  const stackStarting = startStack({
    databaseUrl,
    webPort,
    devSignInUsers: Object.values(DEMO_USER_IDS),
    quiet: true,
    webEnv: {
      MNOTE_HERMES_URL: `http://127.0.0.1:${hermesPort}`,
      MNOTE_HERMES_API_KEY: hermesKey,
      MNOTE_OIDC_ISSUER: idp.issuer,
      MNOTE_OIDC_CLIENT_ID: idp.clientId,
      MNOTE_OIDC_CLIENT_SECRET: idp.clientSecret,
      // Configured, never taken from a request's Host (issue 31).
      MNOTE_OIDC_REDIRECT_URI: `http://127.0.0.1:${webPort}/api/auth/oidc/callback`,
      // Client ID metadata documents served by the flows themselves, over https on loopback with the test
      // certificate: development's switch, never production's (decision 0027).
      MNOTE_OAUTH_CLIENT_DOCUMENTS: "loopback",
      NODE_EXTRA_CA_CERTS: TEST_CA_PATH,
    },
  });
  const [stack, demo] = await Promise.all([stackStarting, seed().finally(cli.stop)]).catch(async (error) => {
    await stackStarting.then(
      (s) => s.stop(),
      () => undefined,
    );
    await idp.stop();
    throw error;
  });
  // What Hermes's API server offers a run (its config.yaml platform_toolsets.api_server); flows may change it.
  const toolsetsFile = join(dir, "hermes-toolsets.txt");
  await writeFile(toolsetsFile, "mnote");
  const hermes = await startHermesStandIn({
    port: hermesPort,
    key: hermesKey,
    bridgeUrl: stack.bridgeUrl,
    token: demo.credentials.ada.agent,
    toolsetsFile,
  }).catch(async (error) => {
    await Promise.all([stack.stop(), idp.stop()]);
    throw error;
  });
  const stop = async () => {
    await Promise.all([stack.stop(), hermes.stop(), idp.stop()]);
  };
  // If the runner dies without teardown, do not leave the servers behind.
  process.once("exit", () => void stop());
  (globalThis as { __mnoteE2EStack?: { stop: () => Promise<void>; dir: string } }).__mnoteE2EStack = { stop, dir };

  const state: E2EState = {
    bridgeUrl: stack.bridgeUrl,
    webUrl: stack.webUrl,
    databaseUrl,
    dir,
    workspaceId: demo.workspaceId,
    credentials: demo.credentials,
    hermes: { url: hermes.url, pid: hermes.pid, toolsetsFile, key: hermesKey },
    idp: { issuer: idp.issuer },
  };
  const file = join(dir, "state.json");
  await writeFile(file, JSON.stringify(state, null, 2), { mode: 0o600 });
  process.env.MNOTE_E2E_STATE = file;
  console.log(
    `e2e stack: panel ${stack.webUrl}, bridge ${stack.bridgeUrl}, Hermes stand-in ${hermes.url}, OpenID provider ${idp.issuer}, database ${databaseUrl}`,
  );
}

/**
 * One process running the mnote CLI's `main` (apps/cli/src/main.ts, what bin/mnote.mjs runs, compiled once) for
 * command after command: each call sends its arguments on a line of stdin and reads its exit code and JSON answer
 * back, one at a time; a failed command throws, as scripts/stack.mjs's `mnote` does. `vars`: the environment its
 * configuration reads. `stop` ends the process (it also ends with this one: its stdin closes).
 */
async function cliProcess() {
  const compiled = await compiledEntry(join(ROOT, "apps/cli/src/main.ts"));
  const child = spawn(process.execPath, ["--input-type=module", "-e", CLI_LOOP, pathToFileURL(compiled).href], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const answers = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`the seeding CLI process exited (${code})`))),
  );
  exited.catch(() => undefined);
  const run = async (args: string[], vars: Record<string, string>) => {
    child.stdin.write(`${JSON.stringify({ args, vars })}\n`);
    const next = await Promise.race([answers.next(), exited]);
    if (next.done) throw new Error(`mnote ${args.join(" ")}: the seeding CLI process closed its output`);
    const { code, out } = JSON.parse(next.value) as { code: number; out: string };
    if (code !== 0) throw new Error(`mnote ${args.join(" ")} failed (${code}): ${out}`);
    return JSON.parse(out);
  };
  const stop = () => child.stdin.end();
  return { run, stop };
}

/** The seeding process's loop: a line of `{ args, vars }` in, a line of `{ code, out }` out. */
const CLI_LOOP = `
import { createInterface } from "node:readline";
const { main } = await import(process.argv[1]);
for await (const line of createInterface({ input: process.stdin })) {
  const { args, vars } = JSON.parse(line);
  let out = "";
  const code = await main(args, {
    stdin: async () => "",
    env: { ...process.env, ...vars },
    stdout: (text) => void (out += text),
    stderr: (text) => void process.stderr.write(text),
  });
  process.stdout.write(JSON.stringify({ code, out }) + "\\n");
}
`;
