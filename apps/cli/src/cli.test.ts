import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { TOOL_ERROR_MESSAGES as M } from "@mnote/contract";
import { openKernel } from "@mnote/kernel";
import { createCaller, createToolsContext } from "@mnote/tools";
import { builtCli, runCli } from "./test-support";

/** The CLI on this suite's own database file (compiled once; `bin/mnote.mjs` itself over its build where `real`). */
const mnote = async (dir: string, argv: string[], stdin?: string, real?: "bin/mnote.mjs") =>
  runCli(dir, argv, {
    databaseUrl: `file:${join(dir, "db", "mnote.db")}`,
    stdin,
    ...(real ? { bin: await builtCli() } : {}),
  });

describe("mnote CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "mnote-cli-"));
  let owner: string;
  let workspace: string;
  let page: string;
  let token: string;

  beforeAll(async () => {
    expect((await mnote(dir, ["init"], undefined, "bin/mnote.mjs")).json).toMatchObject({
      ok: true,
      dialect: "sqlite",
    });
    owner = (await mnote(dir, ["admin", "user", "create", "--name", "Olga"])).json.id;
    workspace = (
      await mnote(dir, ["admin", "workspace", "create", "--name", "Ops", "--owner", owner, "--approval", "off"])
    ).json.id;
    page = (
      await mnote(dir, [
        "admin",
        "page",
        "create",
        "--workspace",
        workspace,
        "--title",
        "Runbook",
        "--created-by",
        owner,
      ])
    ).json.id;
    token = (
      await mnote(dir, ["admin", "token", "create", "--user", owner, "--scopes", "page.read,page.write,artifact.write"])
    ).json.token;
  }, 60_000);

  const envelope = (toolName: string, args: object, extra: object = {}) =>
    JSON.stringify({
      toolName,
      workspaceId: workspace,
      documentId: page,
      actorId: owner,
      sessionId: "cli_session",
      runId: "cli_run",
      toolCallId: `call_${Math.random()}`,
      traceId: "cli_trace",
      capabilityScope: ["page.read", "page.write", "artifact.write"],
      args,
      ...extra,
    });

  it("writes through the router and can be traced to the kernel command", async () => {
    const save = await mnote(
      dir,
      ["call", "--token", token],
      envelope(
        "mnote.page.save",
        { content: [{ type: "paragraph", text: "Restart the bridge" }], mode: "append" },
        { idempotencyKey: "k1", dryRun: false },
      ),
    );
    expect(save.code).toBe(0);
    expect(save.json).toMatchObject({
      ok: true,
      result: { commandName: "page.body.save", revision: 2 },
      audit: { effect: "write" },
    });
    const command = await mnote(dir, ["command", "show", save.json.audit.commandId]);
    expect(command.json).toMatchObject({
      name: "page.body.save",
      revisionBefore: 1,
      revisionAfter: 2,
      identity: { sessionId: "cli_session", runId: "cli_run" },
    });
    const audit = await mnote(dir, ["audit", "--document", page]);
    expect(audit.json[0]).toMatchObject({ effect: "write", commandId: save.json.audit.commandId });
  }, 30_000);

  it("writes and reads Markdown through the router (decision 0026)", async () => {
    const save = await mnote(
      dir,
      ["call", "--token", token],
      envelope(
        "mnote.page.save",
        { markdown: "- Check **logs**\n  - [ ] then [alerts](https://example.com/alerts)\n", mode: "append" },
        { idempotencyKey: "k_md", dryRun: false },
      ),
    );
    expect(save.code).toBe(0);
    const read = await mnote(dir, ["call", "--token", token], envelope("mnote.page.get", { format: "markdown" }));
    expect(read.code).toBe(0);
    expect(read.json.result.markdown).toMatch(
      /^- Check \*\*logs\*\* <!-- mnote:id=\w+ -->\n {2}- \[ \] then \[alerts\]\(https:\/\/example\.com\/alerts\) <!-- mnote:id=\w+ -->\n$/m,
    );
    const blocks = await mnote(dir, ["call", "--token", token], envelope("mnote.page.get", {}));
    expect(blocks.json.result.blocks.at(-1)).toMatchObject({
      type: "todo",
      text: "then alerts",
      indent: 1,
      marks: [{ type: "link", start: 5, end: 11, href: "https://example.com/alerts" }],
    });
  }, 30_000);

  it("prints the failure envelope and exits 1 when a tool call fails", async () => {
    const result = await mnote(dir, ["call", "--token", "mnt_wrong"], envelope("mnote.page.get", {}), "bin/mnote.mjs");
    expect(result.code).toBe(1);
    expect(result.json).toMatchObject({ ok: false, error: { code: "mnote_tool_unauthenticated" } });
  }, 30_000);

  it("echoes a refused call's ids by the contract's rule, as the bridge's doors do (bridge doors-echo.test.ts)", async () => {
    // At each field's bound (kept) or one past it, or unprintable (dropped): the contract's echoEnvelopeIds.
    const claimed = {
      workspaceId: "w".repeat(128),
      documentId: "d".repeat(129),
      toolCallId: "c".repeat(256),
      traceId: "t\nforged",
    };
    for (const toolName of ["mnote.page.get", "mnote.page.delete"]) {
      const result = await mnote(dir, ["call", "--token", token], envelope(toolName, {}, claimed));
      expect(result.code).toBe(1);
      expect(result.json).toMatchObject({
        ok: false,
        toolName,
        toolCallId: claimed.toolCallId,
        traceId: null,
        audit: { workspaceId: claimed.workspaceId, documentId: null },
      });
    }
  }, 30_000);

  it("a held write exits 3 (held for approval, said by --help); its retry answers the person's rejection: mnote_tool_rejected with who and why, exit 1", async () => {
    const held = (
      await mnote(dir, ["admin", "workspace", "create", "--name", "Held", "--owner", owner, "--approval", "on"])
    ).json.id;
    const heldPage = (
      await mnote(dir, ["admin", "page", "create", "--workspace", held, "--title", "Held", "--created-by", owner])
    ).json.id;
    const person = (
      await mnote(dir, [
        "admin",
        "token",
        "create",
        "--user",
        owner,
        "--holder",
        "person",
        "--scopes",
        "page.read,page.write",
      ])
    ).json.token;
    const call = envelope(
      "mnote.page.update_title",
      { title: "Agent title" },
      { workspaceId: held, documentId: heldPage, idempotencyKey: "cli_held_1", dryRun: false },
    );
    const first = await mnote(dir, ["call", "--token", token], call);
    expect(first).toMatchObject({ code: 3, json: { error: { code: "mnote_tool_approval_required" } } });
    // The exit code is the one `--help` states, so a script can rely on it.
    expect((await mnote(dir, ["call", "--help"])).stdout).toMatch(/3 when the write is held for a person's approval/);
    // Olga rejects it in the panel (its own procedures, on this database).
    const kernel = await openKernel(`file:${join(dir, "db", "mnote.db")}`);
    try {
      const panel = createCaller(
        createToolsContext({ kernel, authorization: `Bearer ${person}`, door: "panel" }),
      ).panel;
      const ref = { workspaceId: held, documentId: heldPage };
      const [proposal] = await panel.proposals.list(ref);
      await panel.proposals.reject({ ...ref, proposalId: proposal!.id, reason: "Not this title" });
    } finally {
      await kernel.close();
    }
    const retry = await mnote(dir, ["call", "--token", token], call);
    expect(retry.code).toBe(1);
    expect(retry.json).toMatchObject({
      ok: false,
      error: { code: "mnote_tool_rejected", message: M.rejected("Olga", "Not this title") },
    });
  }, 60_000);

  it("admin page create --blocks-file gives a block without an id a new one, and names the field of a bad block", async () => {
    const file = join(dir, "blocks.json");
    writeFileSync(
      file,
      JSON.stringify([
        { type: "heading", text: "Restart" },
        { id: "kept_id", type: "paragraph", text: "Stop the service first." },
        { type: "todo", text: "Check the logs" },
      ]),
    );
    const create = (blocksFile: string) =>
      mnote(dir, [
        "admin",
        "page",
        "create",
        "--workspace",
        workspace,
        "--title",
        "From a file",
        "--created-by",
        owner,
        "--blocks-file",
        blocksFile,
      ]);
    const made = await create(file);
    expect(made.code).toBe(0);
    const read = await mnote(
      dir,
      ["call", "--token", token],
      envelope("mnote.page.get", {}, { documentId: made.json.id as string }),
    );
    const blocks = read.json.result.blocks as Array<{ id: string; type: string; text: string }>;
    expect(blocks.map((b) => [b.type, b.text])).toEqual([
      ["heading", "Restart"],
      ["paragraph", "Stop the service first."],
      ["todo", "Check the logs"],
    ]);
    expect(blocks[1]!.id).toBe("kept_id");
    expect(new Set(blocks.map((b) => b.id)).size).toBe(3);
    for (const block of blocks) expect(block.id).toMatch(/^[A-Za-z0-9_-]{1,64}$/);

    writeFileSync(file, JSON.stringify([{ type: "paragraph" }]));
    const missingText = await create(file);
    expect(missingText.code).toBe(2);
    expect(missingText.json.error).toMatch(/^--blocks-file: blocks\.0\.text/);
    writeFileSync(file, "[{not json");
    const notJson = await create(file);
    expect(notJson.code).toBe(2);
    expect(notJson.json.error).toMatch(/is not JSON/);
  }, 30_000);

  it("shows artifacts with their edges", async () => {
    await mnote(
      dir,
      ["call", "--token", token],
      envelope("mnote.artifact.create_summary", { summary: "How to restart" }, { idempotencyKey: "s1", dryRun: false }),
    );
    const { json } = await mnote(dir, ["artifacts", "--document", page]);
    expect(json.nodes).toHaveLength(1);
    expect(json.edges[0]).toMatchObject({ fromDocumentId: page, toNodeId: json.nodes[0].id });
  }, 30_000);

  it("exits 2 with the usage line on usage errors", async () => {
    const missing = await mnote(dir, ["admin", "member", "add", "--workspace", workspace]);
    expect(missing.code).toBe(2);
    expect(missing.json.error).toMatch(/--user is required/);
    const badRole = await mnote(dir, [
      "admin",
      "member",
      "add",
      "--workspace",
      workspace,
      "--user",
      owner,
      "--role",
      "god",
    ]);
    expect(badRole.code).toBe(2);
    const badJson = await mnote(dir, ["call", "--token", token], "{not json", "bin/mnote.mjs");
    expect(badJson.code).toBe(2);
  }, 30_000);

  it("creates the demo workspace once and reuses its tokens (forced: this database has Olga)", async () => {
    const first = await mnote(dir, ["demo", "--force"]);
    const second = await mnote(dir, ["demo", "--force"]);
    expect(first.json.workspaceId).toBe("ws_demo");
    expect(second.json.credentials).toEqual(first.json.credentials);
  }, 30_000);
});
