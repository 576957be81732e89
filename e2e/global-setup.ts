import { randomBytes } from "node:crypto";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, mnote, startStack } from "../scripts/stack.mjs";
import { startHermesStandIn } from "./hermes-standin/start";
import { FLOW_PAGES } from "./flows/pages";
import { DEMO_USER_IDS, type E2EState } from "./flows/state";

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
  await mnote(["init"], env);

  // The stack boots while the CLI adds the demo data and the flows' pages.
  const seed = async () => {
    const demo = await mnote(["demo", "--credentials", join(dir, "demo-tokens.json")], env);
    const queue = Object.values(FLOW_PAGES);
    const worker = async () => {
      for (let page = queue.shift(); page; page = queue.shift()) {
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
    };
    await Promise.all([worker(), worker(), worker()]);
    return demo;
  };
  // The panel reads MNOTE_HERMES_URL at start; the stand-in starts once the demo's agent token exists.
  const hermesPort = await freePort();
  const hermesKey = randomBytes(24).toString("hex");
  const stackStarting = startStack({
    databaseUrl,
    devSignInUsers: Object.values(DEMO_USER_IDS),
    quiet: true,
    webEnv: { MNOTE_HERMES_URL: `http://127.0.0.1:${hermesPort}`, MNOTE_HERMES_API_KEY: hermesKey },
  });
  const [stack, demo] = await Promise.all([stackStarting, seed()]).catch(async (error) => {
    await stackStarting.then(
      (s) => s.stop(),
      () => undefined,
    );
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
    await stack.stop();
    throw error;
  });
  const stop = async () => {
    await Promise.all([stack.stop(), hermes.stop()]);
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
  };
  const file = join(dir, "state.json");
  await writeFile(file, JSON.stringify(state, null, 2), { mode: 0o600 });
  process.env.MNOTE_E2E_STATE = file;
  console.log(
    `e2e stack: panel ${stack.webUrl}, bridge ${stack.bridgeUrl}, Hermes stand-in ${hermes.url}, database ${databaseUrl}`,
  );
}
