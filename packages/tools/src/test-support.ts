import { type Block, type Capability, type InputEnvelope, isWorkspaceTool, type ToolName } from "@mnote/contract";
import { SqlKernel, openSqliteDriver } from "@mnote/kernel";
import { callTool } from "./call-tool";
import { bearerSecret, createToolsContext, type Door, type ToolsSettings } from "./context";
import { createCaller } from "./root";

/**
 * A small world for tests: one workspace with an owner, an editor, a viewer, a
 * granted reader of the private page, a stranger, and tokens for each.
 */
export async function createWorld(
  openKernel: () => Promise<SqlKernel> = () => SqlKernel.open(openSqliteDriver(":memory:")),
) {
  const kernel = await openKernel();
  const { admin } = kernel;
  const suffix = Math.random().toString(36).slice(2, 8);
  const user = async (name: string) => (await admin.createUser({ id: `${name}_${suffix}`, name })).id;
  const owner = await user("owner");
  const editor = await user("editor");
  const viewer = await user("viewer");
  const privateReader = await user("reader");
  const stranger = await user("stranger");
  const ws = (
    await admin.createWorkspace({ id: `ws_${suffix}`, name: "Team", ownerId: owner, approvalRequired: false })
  ).id;
  const otherWs = (
    await admin.createWorkspace({ id: `ws2_${suffix}`, name: "Other", ownerId: stranger, approvalRequired: false })
  ).id;
  await admin.addMember({ workspaceId: ws, userId: editor, role: "editor" });
  await admin.addMember({ workspaceId: ws, userId: viewer, role: "viewer" });
  await admin.addMember({ workspaceId: ws, userId: privateReader, role: "viewer" });
  const blocks: Block[] = [
    { id: "h1", type: "heading", level: 1, text: "Plan" },
    { id: "p1", type: "paragraph", text: "First paragraph" },
  ];
  const page = (
    await admin.createPage({ id: `doc_${suffix}`, workspaceId: ws, title: "Project plan", blocks, createdBy: owner })
  ).id;
  const SECRET = `TOPSECRET-${suffix}`;
  const privatePage = (
    await admin.createPage({
      id: `priv_${suffix}`,
      workspaceId: ws,
      title: `Private ${SECRET}`,
      isPrivate: true,
      blocks: [{ id: "s1", type: "paragraph", text: `secret body ${SECRET}` }],
      createdBy: owner,
    })
  ).id;
  await admin.grantPage({ documentId: privatePage, userId: owner, access: "write" });
  await admin.grantPage({ documentId: privatePage, userId: privateReader, access: "read" });
  const otherPage = (
    await admin.createPage({ id: `other_${suffix}`, workspaceId: otherWs, title: "Elsewhere", createdBy: stranger })
  ).id;

  const ALL: Capability[] = ["page.read", "page.write", "artifact.write"];
  /** Who holds each token this world issued, so a call comes through the door its holder uses. */
  const holders = new Map<string, "person" | "agent">();
  const issue = async (input: {
    userId: string;
    holder: "person" | "agent";
    scopes: Capability[];
    ttlSeconds?: number | null;
  }) => {
    const issued = await admin.createToken(input);
    holders.set(issued.token, input.holder);
    return issued;
  };
  const token = async (userId: string, holder: "person" | "agent" = "person", scopes = ALL) =>
    (await issue({ userId, holder, scopes })).token;
  const tokens = {
    owner: await token(owner),
    editor: await token(editor),
    viewer: await token(viewer),
    privateReader: await token(privateReader),
    stranger: await token(stranger),
    ownerAgent: await token(owner, "agent"),
  };
  let n = 0;
  /** A valid envelope for `tool` on the main page, as `actorId`. */
  const envelope = (tool: ToolName, args: Record<string, unknown> = {}, overrides: Partial<InputEnvelope> = {}) => {
    n++;
    const write = tool !== "mnote.page.get";
    const built = {
      toolName: tool,
      workspaceId: ws,
      // A workspace tool's envelope names no page (overrides may still send one, to see it refused).
      ...(isWorkspaceTool(tool) ? {} : { documentId: page }),
      actorId: owner,
      sessionId: "session_1",
      runId: "run_1",
      toolCallId: `call_${n}`,
      traceId: "trace_1",
      capabilityScope: ALL,
      ...(write ? { idempotencyKey: `key_${n}_${suffix}`, dryRun: false } : {}),
      args,
      ...overrides,
      // Typed as a page tool's (the typed callers' tools are): a workspace tool's is sent through `call`.
    } as InputEnvelope & { idempotencyKey?: string; dryRun?: boolean };
    return built;
  };
  /**
   * A tools context for one credential; `settings` overrides e.g. the idempotency retention.
   * A person's token comes through the panel, an agent's through an agent door, unless `door` says otherwise.
   */
  const context = (authorization: string | null = tokens.owner, settings?: Partial<ToolsSettings>, door?: Door) =>
    createToolsContext({
      kernel,
      authorization,
      settings,
      door: door ?? (holders.get(bearerSecret(authorization) ?? "") === "person" ? "panel" : "agent"),
    });
  const call = (
    tool: string,
    input: unknown,
    authorization: string | null = tokens.owner,
    settings?: Partial<ToolsSettings>,
    door?: Door,
  ) => callTool(context(authorization, settings, door), tool, input);
  /** The typed tRPC caller, e.g. `caller().mnote.page.get(envelope)`. */
  const caller = (authorization: string | null = tokens.owner, door?: Door) =>
    createCaller(context(authorization, undefined, door));
  /** A token for `userId` with the given scopes (and optional ttl), for auth tests. */
  const newToken = (
    userId: string,
    scopes: Capability[] = ALL,
    ttlSeconds: number | null = null,
    holder: "person" | "agent" = "person",
  ) => issue({ userId, holder, scopes, ttlSeconds });
  return {
    kernel,
    ids: { owner, editor, viewer, privateReader, stranger, ws, otherWs, page, privatePage, otherPage },
    tokens,
    envelope,
    call,
    caller,
    context,
    newToken,
    SECRET,
  };
}

export type World = Awaited<ReturnType<typeof createWorld>>;

/** Sample args for every tool, for tests that walk them all. */
export const SAMPLE_ARGS: Record<ToolName, Record<string, unknown>> = {
  "mnote.page.get": {},
  "mnote.page.save": { content: [{ type: "paragraph", text: "added" }], mode: "append" },
  "mnote.page.edit": {
    operations: [{ op: "insert", at: "end", blocks: [{ type: "paragraph", text: "added by edit" }] }],
  },
  "mnote.page.update_title": { title: "Renamed" },
  "mnote.page.update_options": { options: { wideLayout: true } },
  "mnote.page.create": { title: "Runbook", markdown: "First step" },
  "mnote.artifact.create_summary": { summary: "A summary" },
  "mnote.artifact.create_ai_note": { content: "A note" },
  "mnote.comment.create": { blockId: "p1", quote: "First", markdown: "Which **first**?" },
  "mnote.comment.list": {},
  "mnote.workspace.search": { query: "plan" },
};

/** Replaces the main page body through the kernel (setup, not the subject). */
export async function withBody(w: World, blocks: Block[]) {
  await w.kernel.execute({
    identity: {
      toolName: "setup",
      workspaceId: w.ids.ws,
      documentId: w.ids.page,
      actorId: w.ids.owner,
      tokenId: null,
      holder: null,
      sessionId: null,
      runId: null,
      toolCallId: null,
      traceId: null,
    },
    command: { name: "page.body.save", mode: "replace", blocks },
    idempotency: { key: `setup_${Math.random()}`, fingerprint: "setup", expiresAt: "2999-01-01T00:00:00.000Z" },
  });
  return (await w.kernel.getPage(w.ids.page))!.revision;
}

/**
 * The real kernel, counting the rows each getBlockWindow answered. A read cache is per kernel object, so reads through
 * this one are cached apart from the kernel's own.
 */
export function countingRows(kernel: SqlKernel) {
  const counter = { rows: 0 };
  const proxy = new Proxy(kernel, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (property !== "getBlockWindow" || typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        const rows: unknown[] = await (value as (...a: unknown[]) => Promise<unknown[]>).apply(target, args);
        counter.rows += rows.length;
        return rows;
      };
    },
  });
  return { kernel: proxy, counter };
}
