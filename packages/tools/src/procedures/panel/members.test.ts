import { TRPCError } from "@trpc/server";
import { beforeEach, describe, expect, it } from "vitest";
import { createWorld, type World } from "../../test-support";
import { panelAs } from "./test-panel";

/** Owners manage their workspace's members in the panel, with the kernel's (the CLI's) rules and audit. */
describe("panel.members", () => {
  let w: World;
  beforeEach(async () => {
    w = await createWorld();
    await w.kernel.admin.setUserEmail(w.ids.stranger, "stranger@example.com");
  });

  const refused = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TRPCError);
    return { code: (error as TRPCError).code, message: (error as TRPCError).message };
  };
  const roleOf = async (userId: string) =>
    (await w.kernel.admin.listMembers(w.ids.ws)).find((m) => m.userId === userId)?.role ?? null;

  it("lists the members to any member; only an owner may manage; a stranger finds no workspace", async () => {
    const asViewer = await panelAs(w, w.tokens.viewer).members.list({ workspaceId: w.ids.ws });
    expect(asViewer.canManage).toBe(false);
    expect(asViewer.members.map((m) => m.userId)).toContain(w.ids.owner);
    expect((await panelAs(w, w.tokens.owner).members.list({ workspaceId: w.ids.ws })).canManage).toBe(true);
    expect((await refused(panelAs(w, w.tokens.stranger).members.list({ workspaceId: w.ids.ws }))).code).toBe(
      "NOT_FOUND",
    );
    const before = await w.kernel.admin.tableSnapshot();
    for (const change of [
      panelAs(w, w.tokens.editor).members.invite({
        workspaceId: w.ids.ws,
        email: "stranger@example.com",
        role: "viewer",
      }),
      panelAs(w, w.tokens.editor).members.setRole({ workspaceId: w.ids.ws, userId: w.ids.viewer, role: "owner" }),
      panelAs(w, w.tokens.viewer).members.remove({ workspaceId: w.ids.ws, userId: w.ids.editor }),
      panelAs(w, w.tokens.ownerAgent).members.remove({ workspaceId: w.ids.ws, userId: w.ids.editor }),
    ])
      expect((await refused(change)).code).toBe("FORBIDDEN");
    expect(await w.kernel.admin.tableSnapshot()).toEqual(before);
  });

  it("invites a user who exists by email (any case), changes a role, removes: each audited under the owner", async () => {
    const owner = panelAs(w, w.tokens.owner).members;
    expect(
      await owner.invite({ workspaceId: w.ids.ws, email: " Stranger@Example.COM ", role: "viewer" }),
    ).toMatchObject({ userId: w.ids.stranger, role: "viewer" });
    expect(await roleOf(w.ids.stranger)).toBe("viewer");
    await owner.setRole({ workspaceId: w.ids.ws, userId: w.ids.stranger, role: "editor" });
    expect(await roleOf(w.ids.stranger)).toBe("editor");
    await owner.remove({ workspaceId: w.ids.ws, userId: w.ids.stranger });
    expect(await roleOf(w.ids.stranger)).toBeNull();
    const audit = await w.kernel.listAudit({ workspaceId: w.ids.ws });
    expect(audit.reverse().map((r) => [r.identity.toolName, r.identity.actorId, r.detail])).toEqual([
      ["admin.member.add", w.ids.owner, { userId: w.ids.stranger, role: "viewer", previousRole: null }],
      ["admin.member.role", w.ids.owner, { userId: w.ids.stranger, role: "editor", previousRole: "viewer" }],
      ["admin.member.remove", w.ids.owner, { userId: w.ids.stranger }],
    ]);
  });

  it("keeps the last owner, changes no non-member, invites no unknown email: refused, nothing written", async () => {
    const owner = panelAs(w, w.tokens.owner).members;
    const before = await w.kernel.admin.tableSnapshot();
    const cases: Array<[Promise<unknown>, string, RegExp]> = [
      [owner.setRole({ workspaceId: w.ids.ws, userId: w.ids.owner, role: "editor" }), "CONFLICT", /last owner/],
      [owner.remove({ workspaceId: w.ids.ws, userId: w.ids.owner }), "CONFLICT", /last owner/],
      [owner.setRole({ workspaceId: w.ids.ws, userId: w.ids.stranger, role: "viewer" }), "CONFLICT", /not a member/],
      [owner.remove({ workspaceId: w.ids.ws, userId: w.ids.stranger }), "CONFLICT", /not a member/],
      [
        owner.invite({ workspaceId: w.ids.ws, email: "nobody@example.com", role: "viewer" }),
        "NOT_FOUND",
        /no mnote user/,
      ],
      [
        owner.invite({ workspaceId: w.ids.ws, email: "not-an-email", role: "viewer" }),
        "UNPROCESSABLE_CONTENT",
        /email/i,
      ],
      [
        owner.invite({ workspaceId: w.ids.ws, email: "stranger@example.com", role: "admin" as never }),
        "UNPROCESSABLE_CONTENT",
        /role/,
      ],
    ];
    for (const [change, code, message] of cases) {
      const error = await refused(change);
      expect(error.code).toBe(code);
      expect(error.message).toMatch(message);
    }
    expect(await w.kernel.admin.tableSnapshot()).toEqual(before);
  });

  it("a removed member's next call is refused", async () => {
    await panelAs(w, w.tokens.owner).members.remove({ workspaceId: w.ids.ws, userId: w.ids.editor });
    const result = await w.call(
      "mnote.page.get",
      w.envelope("mnote.page.get", {}, { actorId: w.ids.editor }),
      w.tokens.editor,
    );
    expect(result).toMatchObject({ ok: false, error: { code: "mnote_tool_permission_denied" } });
  });
});
