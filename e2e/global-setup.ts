import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mnote, startStack } from "../scripts/stack.mjs";
import type { E2EState } from "./flows/state";

/**
 * One temporary SQLite database with the demo data, the bridge and the panel on it.
 * Tests find the URLs and the demo tokens through MNOTE_E2E_STATE (a JSON file);
 * global-teardown.ts stops the stack.
 */
export default async function globalSetup() {
  const dir = await mkdtemp(join(tmpdir(), "mnote-e2e-"));
  const databaseUrl = `file:${join(dir, "mnote.db")}`;
  const env = { MNOTE_DATABASE_URL: databaseUrl };
  await mnote(["init"], env);
  const demo = await mnote(["demo", "--credentials", join(dir, "demo-tokens.json")], env);

  const stack = await startStack({ databaseUrl, devSignIn: true, quiet: true });
  // If the runner dies without teardown, do not leave the servers behind.
  process.once("exit", () => void stack.stop());
  (globalThis as { __mnoteE2EStack?: { stop: () => Promise<void>; dir: string } }).__mnoteE2EStack = { stop: stack.stop, dir };

  const state: E2EState = {
    bridgeUrl: stack.bridgeUrl,
    webUrl: stack.webUrl,
    databaseUrl,
    dir,
    workspaceId: demo.workspaceId,
    credentials: demo.credentials,
  };
  const file = join(dir, "state.json");
  await writeFile(file, JSON.stringify(state, null, 2), { mode: 0o600 });
  process.env.MNOTE_E2E_STATE = file;
  console.log(`e2e stack: panel ${stack.webUrl}, bridge ${stack.bridgeUrl}, database ${databaseUrl}`);
}
