import { SAMPLE_ARGS } from "@mnote/tools/testing";
import { type Block, type Capability, isWorkspaceTool, type ToolName, TOOLS } from "@mnote/contract";
import { type SqlKernel, openKernel } from "@mnote/kernel";
import { callTool, createCaller, createToolsContext } from "@mnote/tools";
import { AjvJsonSchemaValidator as AjvValidatorV2 } from "@modelcontextprotocol/client/validators/ajv";
import { AjvJsonSchemaValidator as AjvValidatorV1 } from "@modelcontextprotocol/sdk/validation/ajv";
import { createLogger } from "./logging";

/**
 * A small seeded world for the bridge's tests (vitest and, through
 * `scripts/seed-test-world.mjs`, the Hermes plugin's unittest): a workspace with an
 * owner, an editor and a viewer, a page whose text carries a marker the log tests
 * look for, and tokens. Not @mnote/tools' test world: these tests need agent tokens
 * (a second, a revoked and a read-only one) and the marker in the page's own text.
 */
export async function seedWorld(kernel: SqlKernel) {
  const { admin } = kernel;
  const suffix = Math.random().toString(36).slice(2, 8);
  const user = async (name: string) => (await admin.createUser({ id: `${name}_${suffix}`, name })).id;
  const owner = await user("owner");
  const editor = await user("editor");
  const viewer = await user("viewer");
  const stranger = await user("stranger");
  const ws = (
    await admin.createWorkspace({ id: `ws_${suffix}`, name: "Team", ownerId: owner, approvalRequired: false })
  ).id;
  await admin.addMember({ workspaceId: ws, userId: editor, role: "editor" });
  await admin.addMember({ workspaceId: ws, userId: viewer, role: "viewer" });
  const secret = `PAGETEXT-${suffix}`;
  const blocks: Block[] = [
    { id: "h1", type: "heading", level: 1, text: "Plan" },
    { id: "p1", type: "paragraph", text: `First paragraph ${secret}` },
  ];
  const page = (
    await admin.createPage({
      id: `doc_${suffix}`,
      workspaceId: ws,
      title: `Project plan ${secret}`,
      blocks,
      createdBy: owner,
    })
  ).id;
  const page2 = (
    await admin.createPage({ id: `doc2_${suffix}`, workspaceId: ws, title: "Second page", createdBy: owner })
  ).id;
  // A workspace like the demo's: agent writes wait for a person's approval (issue 22's decisions are tested there).
  const heldWs = (
    await admin.createWorkspace({ id: `held_${suffix}`, name: "Held", ownerId: owner, approvalRequired: true })
  ).id;
  const heldPage = (
    await admin.createPage({ id: `heldp_${suffix}`, workspaceId: heldWs, title: "Held page", blocks, createdBy: owner })
  ).id;

  const ALL: Capability[] = ["page.read", "page.write", "artifact.write"];
  const token = async (userId: string, holder: "person" | "agent", scopes: Capability[] = ALL) =>
    (await admin.createToken({ userId, holder, scopes, label: "bridge tests" })).token;
  const tokens = {
    owner: await token(owner, "agent"),
    ownerSecond: await token(owner, "agent"),
    editor: await token(editor, "agent"),
    viewer: await token(viewer, "agent"),
    stranger: await token(stranger, "agent"),
    ownerReadOnly: await token(owner, "agent", ["page.read"]),
    /** The owner's own session, as the panel holds it: the person who decides on held writes. */
    ownerPerson: await token(owner, "person"),
  };
  const revoked = await admin.createToken({ userId: owner, holder: "agent", scopes: ALL });
  await admin.revokeToken(revoked.record.id);
  return {
    ids: { owner, editor, viewer, stranger, ws, page, page2, heldWs, heldPage },
    tokens: { ...tokens, revoked: revoked.token },
    secret,
    scopes: ALL,
  };
}

export type SeededWorld = Awaited<ReturnType<typeof seedWorld>>;

/** An in-memory kernel with a seeded world. */
export async function createTestWorld(databaseUrl = ":memory:") {
  const kernel = await openKernel(databaseUrl);
  return { kernel, ...(await seedWorld(kernel)) };
}

/** Tool args for every tool (the `args` of an envelope, or flattened beside the page ids for a model). */
export { SAMPLE_ARGS };

/** A logger whose JSON lines a test can read back. */
export function captureLogger() {
  const lines: string[] = [];
  const logger = createLogger({ destination: { write: (line: string) => void lines.push(line) }, level: "debug" });
  return { logger, lines, records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

/** A model's page arguments for `tool` on the world's page: a workspace tool names no page (issue 34). */
export function modelPageArgs(world: SeededWorld, tool: ToolName = "mnote.page.get"): Record<string, string> {
  return { workspaceId: world.ids.ws, ...(isWorkspaceTool(tool) ? {} : { documentId: world.ids.page }) };
}

let calls = 0;
/** A complete input envelope for `tool` on the world's page, acting as the owner. */
export function envelopeFor(
  world: SeededWorld,
  tool: ToolName,
  args: Record<string, unknown> = SAMPLE_ARGS[tool],
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  calls++;
  const write = TOOLS[tool].kind === "write";
  return {
    toolName: tool,
    workspaceId: world.ids.ws,
    // A workspace tool names no page (issue 34); overrides may still send one, to see it refused.
    ...(isWorkspaceTool(tool) ? {} : { documentId: world.ids.page }),
    actorId: world.ids.owner,
    sessionId: "session_http",
    runId: "run_http",
    toolCallId: `call_${calls}`,
    traceId: `trace_${calls}`,
    capabilityScope: world.scopes,
    ...(write ? { idempotencyKey: `key_${calls}_${Math.random().toString(36).slice(2, 8)}`, dryRun: false } : {}),
    args,
    ...overrides,
  };
}

/**
 * A person rejects the newest pending proposal on a page with a reason, through the panel's own procedures in
 * process (the panel's door, a person's token): what the agent's retry then answers with. Test only.
 */
export async function rejectInPanel(
  kernel: SqlKernel,
  personToken: string,
  ref: { workspaceId: string; documentId: string },
  reason: string,
) {
  const panel = createCaller(
    createToolsContext({ kernel, authorization: `Bearer ${personToken}`, door: "panel" }),
  ).panel;
  const pending = (await panel.proposals.list(ref)).find((proposal) => proposal.status === "pending");
  if (!pending) throw new Error("no pending proposal to reject");
  return panel.proposals.reject({ ...ref, proposalId: pending.id, reason });
}

/** The router's answer for an envelope, called in process exactly as the bridge calls it. */
export function routerCall(kernel: SqlKernel, token: string | null, name: string, envelope: unknown) {
  return callTool(createToolsContext({ kernel, authorization: token ? `Bearer ${token}` : null }), name, envelope);
}

/**
 * Each SDK client's own default JSON Schema validator (its Ajv, as `new Client()` makes it), with what it compiles
 * kept per schema for the test process: `{ jsonSchemaValidator: SCHEMA_VALIDATORS.v1 }` in a client's options.
 * A client compiles every tool's outputSchema on tools/list and checks each structuredContent against it; the
 * bridge's suite opens about sixty clients on the same seven schemas, and compiling them again for each was a
 * quarter of the suite's CPU time. The check is the same Ajv's, of the same schema; only the compiling is shared.
 */
function compiledOncePerSchema<V extends { getValidator(schema: never): unknown }>(inner: V): V {
  const compiled = new Map<string, unknown>();
  return {
    getValidator(schema: never) {
      const key = JSON.stringify(schema);
      if (!compiled.has(key)) compiled.set(key, inner.getValidator(schema));
      return compiled.get(key);
    },
  } as V;
}
export const SCHEMA_VALIDATORS = {
  /** For `@modelcontextprotocol/sdk`'s Client (1.x). */
  v1: compiledOncePerSchema(new AjvValidatorV1()),
  /** For `@modelcontextprotocol/client`'s Client (2.x). */
  v2: compiledOncePerSchema(new AjvValidatorV2()),
};
