import { rm } from "node:fs/promises";

/** Stop the bridge and the panel that global-setup.ts started, and drop the temporary database. */
export default async function globalTeardown() {
  const holder = globalThis as { __mnoteE2EStack?: { stop: () => Promise<void>; dir: string } };
  const stack = holder.__mnoteE2EStack;
  if (!stack) return;
  delete holder.__mnoteE2EStack;
  await stack.stop();
  if (!process.env.MNOTE_E2E_KEEP_DB) await rm(stack.dir, { recursive: true, force: true });
}
