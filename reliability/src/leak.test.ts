import { isWorkspaceTool, TOOL_NAMES, toProviderName, type ToolName, TOOLS } from "@mnote/contract";
import type { RunningBridge } from "@mnote/hermes-bridge";
import { createCaller, createToolsContext } from "@mnote/tools";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  captureLogger,
  createWorld,
  expectContractFailure,
  postTool,
  SAMPLE_ARGS,
  startTestBridge,
  type World,
} from "./support";

/**
 * The tools on the page their envelope names. A workspace tool names none (mnote.page.create's page is named by its
 * key, decision 0046): its checks and doors are page-create.test.ts's, the plugin tests' and e2e page-create's.
 */
const PAGE_TOOL_NAMES = TOOL_NAMES.filter((tool) => !isWorkspaceTool(tool));

/**
 * Leak: nothing tells a caller whether a page they may not read exists, and the secret
 * text on a private page never leaves through a failure envelope, the panel's audit view
 * of someone who may not read the page, or a bridge log line.
 */

let world: World;
let bridge: RunningBridge;
const log = captureLogger();
/** Every envelope any call in this file answered, to search for secrets at the end. */
const answered: unknown[] = [];

beforeAll(async () => {
  world = await createWorld();
  bridge = await startTestBridge(world.kernel, log.logger);
});
afterAll(async () => {
  await bridge?.close();
  await world?.close();
});

const secrets = () => [world.SECRET, world.OTHER_SECRET];
function expectNoSecret(value: unknown, where: string) {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  for (const secret of secrets()) expect(text, `${where} carries a secret`).not.toContain(secret);
}

/** The same call through the router in process and through the bridge's HTTP endpoint. */
async function both(tool: ToolName, token: string, overrides: Record<string, unknown>) {
  const envelope = world.envelope(tool, overrides);
  const router = await world.call(tool, envelope, token);
  const http = await postTool(bridge, toProviderName(tool), envelope, { authorization: `Bearer ${token}` });
  answered.push(router, http.json);
  return { router, http };
}

/** What must be identical between two denials: everything but the ids the caller itself sent. */
function denialShape(output: {
  ok: boolean;
  error: unknown;
  result: unknown;
  audit: { effect: string; commandId: unknown };
  toolName: string;
}) {
  return {
    ok: output.ok,
    toolName: output.toolName,
    error: output.error,
    result: output.result,
    effect: output.audit.effect,
    commandId: output.audit.commandId,
  };
}

describe("leak: a page you may not read looks exactly like a page that does not exist", () => {
  const cases = [
    {
      name: "a private page without a grant (viewer)",
      user: "viewer" as const,
      forbidden: () => ({ documentId: world.ids.privatePage }),
      missing: () => ({ documentId: `${world.ids.privatePage}_missing` }),
    },
    {
      name: "a private page without a grant (editor, who may write the rest of the workspace)",
      user: "editor" as const,
      forbidden: () => ({ documentId: world.ids.privatePage }),
      missing: () => ({ documentId: "no_such_page" }),
    },
    {
      name: "another workspace's page named under your workspace",
      user: "owner" as const,
      forbidden: () => ({ documentId: world.ids.otherPage }),
      missing: () => ({ documentId: "no_such_page" }),
    },
    {
      name: "a page in a workspace you are not a member of",
      user: "owner" as const,
      forbidden: () => ({ workspaceId: world.ids.otherWs, documentId: world.ids.otherPage }),
      missing: () => ({ workspaceId: "no_such_workspace", documentId: "no_such_page" }),
    },
    {
      name: "a user in no workspace at all",
      user: "stranger" as const,
      forbidden: () => ({ documentId: world.ids.page }),
      missing: () => ({ workspaceId: "no_such_workspace", documentId: "no_such_page" }),
    },
  ];
  for (const tool of PAGE_TOOL_NAMES) {
    for (const c of cases) {
      it(`${tool}: ${c.name}`, async () => {
        const actor = { actorId: world.ids[c.user] };
        const token = world.tokens[c.user];
        const forbidden = await both(tool, token, { ...actor, ...c.forbidden() });
        const missing = await both(tool, token, { ...actor, ...c.missing() });
        expect(forbidden.router.error?.code).toBe("mnote_tool_permission_denied");
        expect(denialShape(forbidden.router)).toEqual(denialShape(missing.router));
        expect(forbidden.http.status).toBe(missing.http.status);
        expect(denialShape(expectContractFailure(forbidden.http.json, forbidden.http.status))).toEqual(
          denialShape(expectContractFailure(missing.http.json, missing.http.status)),
        );
        expect(forbidden.http.json).toEqual(forbidden.router);
      });
    }
  }
});

describe("leak: secrets never appear in a failure envelope", () => {
  it("every tool, every way of failing on the private page and the other workspace's page", async () => {
    const privateRef = { documentId: world.ids.privatePage };
    const otherRef = { workspaceId: world.ids.otherWs, documentId: world.ids.otherPage };
    let failures = 0;
    for (const tool of PAGE_TOOL_NAMES) {
      const write = TOOLS[tool].kind === "write";
      const attempts: Array<[keyof World["tokens"], Record<string, unknown>]> = [
        ["viewer", { actorId: world.ids.viewer, ...privateRef }],
        ["editor", { actorId: world.ids.editor, ...privateRef }],
        ["stranger", { actorId: world.ids.stranger, ...privateRef }],
        ["outsider", { actorId: world.ids.outsider, ...privateRef }],
        ["owner", { ...otherRef }],
        ["viewer", { actorId: world.ids.viewer, ...otherRef }],
        // the reader may read the private page but not write it
        ["reader", { actorId: world.ids.reader, ...privateRef }],
        // invalid args, a stale revision, a wrong actor, a too-wide scope: on the private page
        ["viewer", { actorId: world.ids.viewer, ...privateRef, args: { bogus: true } }],
        ["owner", { ...privateRef, args: { ...SAMPLE_ARGS[tool], ...(write ? { baseRevision: 99 } : { bogus: 1 }) } }],
        ["viewer", { actorId: world.ids.owner, ...privateRef }],
      ];
      for (const [user, overrides] of attempts) {
        const { router, http } = await both(tool, world.tokens[user], overrides);
        if (user === "reader" && !write) continue; // the reader's read succeeds (and carries the secret): not a failure
        expect(router.ok, `${tool} as ${user} ${JSON.stringify(overrides)}`).toBe(false);
        expectContractFailure(http.json, http.status);
        expectNoSecret(router, `${tool} as ${user}`);
        expectNoSecret(http.text, `${tool} as ${user} over HTTP`);
        failures++;
      }
    }
    // An idempotency conflict on the private page, by its owner.
    const first = world.envelope("mnote.page.save", { documentId: world.ids.privatePage, idempotencyKey: "leak_key" });
    expect((await world.call("mnote.page.save", first)).ok).toBe(true);
    const conflict = await world.call("mnote.page.save", {
      ...first,
      args: { content: [{ type: "paragraph", text: "other" }], mode: "append" },
    });
    expect(conflict.error?.code).toBe("mnote_tool_idempotency_conflict");
    expectNoSecret(conflict, "idempotency conflict");
    expect(failures).toBeGreaterThan(50);
  });
});

describe("leak: the panel's audit view", () => {
  let privateRun: string;

  beforeAll(async () => {
    // Audit records on the private page that do carry the secret: the owner's dry run of a replace (its
    // preview lists the blocks it deletes) and a write whose args hold the secret, plus others' failed calls.
    privateRun = "run_private_work";
    const ref = { documentId: world.ids.privatePage, runId: privateRun, traceId: "trace_private_work" };
    const dry = await world.call(
      "mnote.page.save",
      world.envelope("mnote.page.save", {
        ...ref,
        dryRun: true,
        args: { mode: "replace", content: [{ type: "paragraph", text: "new" }] },
      }),
    );
    expect(dry.ok).toBe(true);
    expect(JSON.stringify(dry)).toContain(world.SECRET);
    const write = await world.call(
      "mnote.page.save",
      world.envelope("mnote.page.save", {
        ...ref,
        args: { mode: "append", content: [{ type: "paragraph", text: `more ${world.SECRET}` }] },
      }),
    );
    expect(write.ok).toBe(true);
    await world.call(
      "mnote.page.get",
      world.envelope("mnote.page.get", { ...ref, actorId: world.ids.viewer }),
      world.tokens.viewer,
    );
    // Public-page activity in the same run and trace, so the filters below have something to match.
    await world.call(
      "mnote.page.get",
      world.envelope("mnote.page.get", { runId: privateRun, traceId: "trace_private_work" }),
    );
  });

  const panel = (user: keyof World["personTokens"]) =>
    createCaller(
      createToolsContext({ kernel: world.kernel, authorization: `Bearer ${world.personTokens[user]}`, door: "panel" }),
    ).panel;

  it("the secret really is in the private page's audit (its reader sees it)", async () => {
    const records = await panel("reader").audit.list({ workspaceId: world.ids.ws, documentId: world.ids.privatePage });
    expect(JSON.stringify(records)).toContain(world.SECRET);
  });

  it("a user who may not read the private page is refused, exactly as for a missing page, with no secret", async () => {
    for (const user of ["viewer", "editor", "stranger", "outsider"] as const) {
      for (const ref of [
        { workspaceId: world.ids.ws, documentId: world.ids.privatePage },
        { workspaceId: world.ids.otherWs, documentId: world.ids.privatePage },
      ]) {
        const refused = await panel(user)
          .audit.list(ref)
          .then(
            () => null,
            (error: { code?: string; message?: string }) => error,
          );
        const missing = await panel(user)
          .audit.list({ ...ref, documentId: "no_such_page" })
          .then(
            () => null,
            (error: { code?: string; message?: string }) => error,
          );
        expect(refused, `${user} listed the private page's audit`).not.toBeNull();
        expect({ code: refused!.code, message: refused!.message }).toEqual({
          code: missing!.code,
          message: missing!.message,
        });
        const cause = (refused as { cause?: unknown }).cause;
        // The whole cause, not "[object Object]": a secret in any of its fields must be found.
        const causeText = cause instanceof Error ? `${cause.name}: ${cause.message}` : JSON.stringify(cause ?? "");
        expectNoSecret({ message: refused!.message, cause: causeText }, `${user}'s refusal`);
      }
    }
  });

  it("a user who can read a different page gets that page's audit, with no secret, whatever the filters", async () => {
    const viewer = panel("viewer");
    for (const filters of [{}, { runId: privateRun }, { traceId: "trace_private_work" }, { limit: 500 }]) {
      const records = await viewer.audit.list({ workspaceId: world.ids.ws, documentId: world.ids.page, ...filters });
      expect(records.length).toBeGreaterThan(0);
      expect(records.every((r) => r.identity.documentId === world.ids.page)).toBe(true);
      expectNoSecret(records, `viewer's audit list ${JSON.stringify(filters)}`);
    }
    // The private page's commands and proposals are not reachable through the public page either.
    const [privateWrite] = await panel("owner").audit.list({
      workspaceId: world.ids.ws,
      documentId: world.ids.privatePage,
      runId: privateRun,
    });
    const commandId = (
      await panel("owner").audit.list({ workspaceId: world.ids.ws, documentId: world.ids.privatePage })
    ).find((r) => r.commandId)?.commandId;
    expect(privateWrite).toBeDefined();
    expect(commandId).toBeTruthy();
    const command = await viewer.command
      .get({ workspaceId: world.ids.ws, documentId: world.ids.page, commandId: commandId! })
      .then(
        () => "returned",
        (error: { code?: string; message?: string }) => error,
      );
    expect(command).toMatchObject({ code: "NOT_FOUND" });
    expectNoSecret(command, "command.get through the public page");
    expectNoSecret(
      await viewer.proposals.list({ workspaceId: world.ids.ws, documentId: world.ids.page }),
      "proposals of the public page",
    );
  });
});

describe("leak: bridge log lines", () => {
  it("no log line carries page text, a secret or a token, whatever the transport and outcome", async () => {
    // The owner reads and writes the private page over HTTP and MCP: the answers carry the secret, the logs must not.
    const read = await postTool(
      bridge,
      "mnote_page_get",
      world.envelope("mnote.page.get", { documentId: world.ids.privatePage }),
      {
        authorization: `Bearer ${world.tokens.owner}`,
      },
    );
    expect(read.text).toContain(world.SECRET);
    const mcp = new Client({ name: "reliability-leak", version: "0.0.0" });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${bridge.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${world.tokens.owner}` } },
      }),
    );
    try {
      const viaMcp = await mcp.callTool({
        name: "mnote_page_get",
        arguments: { workspaceId: world.ids.ws, documentId: world.ids.privatePage },
      });
      expect(JSON.stringify(viaMcp.structuredContent)).toContain(world.SECRET);
      await mcp.callTool({
        name: "mnote_page_save",
        arguments: {
          workspaceId: world.ids.ws,
          documentId: world.ids.privatePage,
          mode: "append",
          content: [{ type: "paragraph", text: `log ${world.SECRET}` }],
        },
      });
      // A failure whose input holds the secret (pasted into an id by someone who knows it): ids are not logged.
      // (An unknown tool name is logged as the caller sent it, up to 128 printable characters: the caller's own string.)
      await mcp.callTool({
        name: "mnote_page_get",
        arguments: { workspaceId: world.ids.ws, documentId: world.SECRET },
      });
    } finally {
      await mcp.close();
    }
    await postTool(
      bridge,
      "mnote.page.get",
      world.envelope("mnote.page.get", { documentId: world.ids.privatePage, actorId: world.ids.viewer }),
      {
        authorization: `Bearer ${world.tokens.viewer}`,
      },
    );
    await postTool(bridge, "mnote.page.get", "{not json", { authorization: `Bearer ${world.tokens.owner}` });
    expect(log.lines.length).toBeGreaterThan(TOOL_NAMES.length * 10);
    for (const line of log.lines) {
      expectNoSecret(line, `log line ${line.slice(0, 400)}`);
      for (const token of Object.values(world.tokens)) expect(line).not.toContain(token);
      expect(line).not.toContain("secret body");
    }
  });

  it("no envelope answered in this file to anyone but a reader carried a secret (checked as they came)", () => {
    expect(answered.length).toBeGreaterThan(100);
  });
});
