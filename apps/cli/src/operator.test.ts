import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCliInProcess } from "./test-support";

/** The operator's commands on their own database, through the CLI's own entry point (`main`). */
const dir = mkdtempSync(join(tmpdir(), "mnote-operator-"));
const mnote = (argv: string[], stdin?: string) =>
  runCliInProcess(argv, { databaseUrl: `file:${join(dir, "db", "mnote.db")}`, stdin });
/** Each command opens and closes the SQLite database, as the CLI does; a few dozen of them on a busy machine. */
const CLI_TIMEOUT = 30_000;

describe("operator commands", () => {
  let owner: string;
  let editor: string;
  let workspace: string;
  let page: string;
  let editorToken: string;

  const envelope = (toolName: string, args: object, extra: object = {}) =>
    JSON.stringify({
      toolName,
      workspaceId: workspace,
      documentId: page,
      actorId: editor,
      sessionId: "op_session",
      runId: "op_run",
      toolCallId: `call_${Math.random()}`,
      traceId: "op_trace",
      capabilityScope: ["page.read", "page.write"],
      args,
      ...extra,
    });
  const note = (key: string) =>
    envelope("mnote.page.update_title", { title: `Title ${key}` }, { idempotencyKey: key, dryRun: false });

  beforeAll(async () => {
    await mnote(["init"]);
    owner = (await mnote(["admin", "user", "create", "--name", "Olga"])).json.id;
    editor = (await mnote(["admin", "user", "create", "--name", "Egon"])).json.id;
    workspace = (await mnote(["admin", "workspace", "create", "--name", "Ops", "--owner", owner, "--approval", "off"]))
      .json.id;
    page = (
      await mnote(["admin", "page", "create", "--workspace", workspace, "--title", "Runbook", "--created-by", owner])
    ).json.id;
    await mnote(["admin", "member", "add", "--workspace", workspace, "--user", editor, "--role", "editor"]);
    editorToken = (await mnote(["admin", "token", "create", "--user", editor, "--scopes", "page.read,page.write"])).json
      .token;
  }, CLI_TIMEOUT * 2);

  it(
    "lists users, workspaces, members and pages",
    async () => {
      expect((await mnote(["admin", "user", "list"])).json.map((u: { name: string }) => u.name)).toEqual([
        "Egon",
        "Olga",
      ]);
      expect((await mnote(["admin", "workspace", "list", "--user", editor])).json).toEqual([
        { id: workspace, name: "Ops", approvalRequired: false, holdArtifacts: false, role: "editor" },
      ]);
      expect((await mnote(["admin", "member", "list", "--workspace", workspace])).json).toEqual([
        { userId: editor, name: "Egon", role: "editor" },
        { userId: owner, name: "Olga", role: "owner" },
      ]);
      expect((await mnote(["admin", "page", "list", "--workspace", workspace])).json).toMatchObject([
        { id: page, title: "Runbook" },
      ]);
    },
    CLI_TIMEOUT,
  );

  it(
    "lists a user's tokens without their secrets",
    async () => {
      const { json, stdout } = await mnote(["admin", "token", "list", "--user", editor]);
      expect(json).toHaveLength(1);
      expect(json[0]).toMatchObject({
        userId: editor,
        holder: "agent",
        scopes: ["page.read", "page.write"],
        revokedAt: null,
      });
      expect(stdout).not.toContain(editorToken);
      expect(Object.keys(json[0])).not.toContain("tokenHash");
    },
    CLI_TIMEOUT,
  );

  it(
    "a role change and a removal take effect on the member's next call, replays included",
    async () => {
      const first = await mnote(["call", "--token", editorToken], note("k1"));
      expect(first.json).toMatchObject({ ok: true });
      // The same call again replays its stored result while the editor may still write.
      expect((await mnote(["call", "--token", editorToken], note("k1"))).json).toMatchObject({
        ok: true,
        audit: { commandId: first.json.audit.commandId },
      });

      expect(
        (await mnote(["admin", "member", "role", "--workspace", workspace, "--user", editor, "--role", "viewer"])).code,
      ).toBe(0);
      expect((await mnote(["call", "--token", editorToken], note("k2"))).json).toMatchObject({
        ok: false,
        error: { code: "mnote_tool_permission_denied" },
      });
      expect((await mnote(["call", "--token", editorToken], note("k1"))).json).toMatchObject({
        ok: false,
        error: { code: "mnote_tool_permission_denied" },
      });

      expect((await mnote(["admin", "member", "remove", "--workspace", workspace, "--user", editor])).code).toBe(0);
      const replay = await mnote(["call", "--token", editorToken], note("k1"));
      expect(replay.json).toMatchObject({ ok: false, error: { code: "mnote_tool_permission_denied" } });
      expect(JSON.stringify(replay.json)).not.toContain(first.json.audit.commandId);
      await mnote(["admin", "member", "add", "--workspace", workspace, "--user", editor, "--role", "editor"]);
    },
    CLI_TIMEOUT * 2,
  );

  it(
    "gives users an email to sign in with, one user's each, set and cleared",
    async () => {
      const created = await mnote(["admin", "user", "create", "--name", "Mia", "--email", "Mia@Example.com"]);
      expect(created.json).toMatchObject({ name: "Mia", email: "mia@example.com" });
      const mia = created.json.id;
      const taken = await mnote(["admin", "user", "set-email", "--id", owner, "--email", "MIA@example.com"]);
      expect(taken.code).toBe(1);
      expect(taken.json.error).toMatch(/another user .* has the email mia@example.com/);
      const malformed = await mnote(["admin", "user", "create", "--name", "X", "--email", "no-at-sign"]);
      expect(malformed.code).toBe(1);
      expect(malformed.json.error).toMatch(/is not an email address/);
      expect((await mnote(["admin", "user", "set-email", "--id", mia])).code).toBe(2);
      expect((await mnote(["admin", "user", "set-email", "--id", mia, "--email", "m@x.org", "--clear"])).code).toBe(2);
      expect((await mnote(["admin", "user", "set-email", "--id", owner, "--email", "olga@example.com"])).json).toEqual({
        id: owner,
        name: "Olga",
        email: "olga@example.com",
      });
      expect((await mnote(["admin", "user", "set-email", "--id", mia, "--clear"])).json).toMatchObject({ email: null });
      expect((await mnote(["admin", "user", "set-email", "--id", "user_nobody", "--clear"])).json.error).toMatch(
        /no user user_nobody/,
      );
      await mnote(["admin", "user", "remove", "--id", mia]);
    },
    CLI_TIMEOUT * 2,
  );

  it(
    "a workspace keeps its last owner",
    async () => {
      const demote = await mnote([
        "admin",
        "member",
        "role",
        "--workspace",
        workspace,
        "--user",
        owner,
        "--role",
        "editor",
      ]);
      expect(demote.code).toBe(1);
      expect(demote.json.error).toMatch(/last owner/);
      expect(
        (await mnote(["admin", "member", "remove", "--workspace", workspace, "--user", owner])).json.error,
      ).toMatch(/last owner/);
      expect((await mnote(["admin", "user", "remove", "--id", owner])).json.error).toMatch(/last owner/);
      expect((await mnote(["admin", "member", "list", "--workspace", workspace])).json).toContainEqual({
        userId: owner,
        name: "Olga",
        role: "owner",
      });
    },
    CLI_TIMEOUT,
  );

  it(
    "revokes every token of a user, then removes the user",
    async () => {
      const second = (await mnote(["admin", "token", "create", "--user", editor, "--scopes", "page.read"])).json.token;
      expect((await mnote(["admin", "token", "revoke", "--user", editor])).json).toEqual({
        userId: editor,
        revoked: 2,
      });
      for (const token of [editorToken, second]) {
        expect((await mnote(["call", "--token", token], envelope("mnote.page.get", {}))).json).toMatchObject({
          error: { code: "mnote_tool_unauthenticated" },
        });
      }
      expect((await mnote(["admin", "user", "remove", "--id", editor])).json).toEqual({ id: editor, removed: true });
      expect((await mnote(["admin", "user", "list"])).json.map((u: { id: string }) => u.id)).toEqual([owner]);
      expect((await mnote(["admin", "member", "list", "--workspace", workspace])).json).toEqual([
        { userId: owner, name: "Olga", role: "owner" },
      ]);
      expect((await mnote(["admin", "user", "remove", "--id", editor])).code).toBe(1);
    },
    CLI_TIMEOUT * 2,
  );

  it(
    "audits every operator change under the operator, with no secret",
    async () => {
      const { json } = await mnote(["audit", "--workspace", workspace, "--limit", "1000"]);
      const tools = json.map((r: { identity: { toolName: string } }) => r.identity.toolName);
      expect(tools).toEqual(
        expect.arrayContaining([
          "admin.workspace.create",
          "admin.member.add",
          "admin.member.role",
          "admin.member.remove",
        ]),
      );
      const removal = json.find(
        (r: { identity: { toolName: string } }) => r.identity.toolName === "admin.member.remove",
      );
      expect(removal.identity.actorId).toMatch(/^operator:/);
      expect(removal.detail).toEqual({ userId: editor });
      expect(JSON.stringify(json)).not.toContain(editorToken);
    },
    CLI_TIMEOUT,
  );

  it(
    "a change of the approval policy is audited with the operator, when, from and to (issue 20 item 2)",
    async () => {
      const on = await mnote(["admin", "workspace", "approval", "--workspace", workspace, "--policy", "on"]);
      expect(on.json).toMatchObject({
        workspaceId: workspace,
        approvalRequired: true,
        from: { approvalRequired: false, holdArtifacts: false },
        to: { approvalRequired: true, holdArtifacts: false },
      });
      const { json } = await mnote(["audit", "--workspace", workspace, "--limit", "1000"]);
      const changes = json.filter(
        (r: { identity: { toolName: string } }) => r.identity.toolName === "admin.workspace.policy",
      );
      expect(changes).toHaveLength(1);
      expect(changes[0].identity.actorId).toMatch(/^operator:/);
      expect(typeof changes[0].at).toBe("string");
      expect(changes[0].detail).toEqual({
        from: { approvalRequired: false, holdArtifacts: false },
        to: { approvalRequired: true, holdArtifacts: false },
        via: "cli",
      });
      // What the policy holds: artifacts too (issue 20 item 4), on record the same way.
      const artifacts = await mnote([
        "admin",
        "workspace",
        "approval",
        "--workspace",
        workspace,
        "--policy",
        "on",
        "--artifacts",
        "on",
      ]);
      expect(artifacts.json.to).toEqual({ approvalRequired: true, holdArtifacts: true });
      expect(
        (
          await mnote([
            "admin",
            "workspace",
            "approval",
            "--workspace",
            workspace,
            "--policy",
            "on",
            "--artifacts",
            "maybe",
          ])
        ).code,
      ).toBe(2);
      // An unknown workspace is refused, nothing on record.
      const unknown = await mnote(["admin", "workspace", "approval", "--workspace", "ws_nope", "--policy", "off"]);
      expect(unknown.code).toBe(1);
      await mnote([
        "admin",
        "workspace",
        "approval",
        "--workspace",
        workspace,
        "--policy",
        "off",
        "--artifacts",
        "off",
      ]);
    },
    CLI_TIMEOUT,
  );

  it(
    "answers --help for every command, and for a group",
    async () => {
      const one = await mnote(["admin", "member", "remove", "--help"]);
      expect(one.code).toBe(0);
      expect(one.stdout).toMatch(/^mnote admin member remove --workspace ID --user ID\n {4}\S/);
      const group = await mnote(["admin", "token", "--help"]);
      expect(group.stdout.match(/^mnote admin token /gm)).toHaveLength(3);
    },
    CLI_TIMEOUT,
  );
});
