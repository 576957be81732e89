import { expect } from "vitest";
import type { SqlKernel } from "@mnote/kernel";
import { createToolsContext } from "../../context";
import { createCaller } from "../../root";
import type { World } from "../../test-support";

/** The panel's procedures as a person's session sees them, over `kernel` (the world's, unless a test wraps it). */
export const panelAs = (world: World, token: string, kernel: SqlKernel = world.kernel) =>
  createCaller(createToolsContext({ kernel, authorization: `Bearer ${token}`, door: "panel" })).panel;

/** An agent's dry run on the world's page, on run `run_agent` unless `overrides` say otherwise. */
export async function agentDryRun(
  world: World,
  tool: Parameters<World["envelope"]>[0],
  args: Record<string, unknown>,
  overrides = {},
  token = world.tokens.ownerAgent,
) {
  const envelope = world.envelope(tool, args, { dryRun: true, runId: "run_agent", ...overrides });
  const result = await world.call(tool, envelope, token);
  expect(result.ok).toBe(true);
  return envelope;
}
