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

  it("invites by email (any case); the person accepts, then roles change and removal work: each audited", async () => {
    const owner = panelAs(w, w.tokens.owner).members;
    expect(await owner.invite({ workspaceId: w.ids.ws, email: " Stranger@Example.COM ", role: "viewer" })).toEqual({
      workspaceId: w.ids.ws,
      email: "stranger@example.com",
      role: "viewer",
      invited: true,
    });
    // Invited is not a member: nobody joins a workspace without saying yes.
    expect(await roleOf(w.ids.stranger)).toBeNull();
    expect((await owner.list({ workspaceId: w.ids.ws })).invitations).toMatchObject([
      { email: "stranger@example.com", role: "viewer" },
    ]);
    const stranger = panelAs(w, w.tokens.stranger).invitations;
    const [invitation] = await stranger.list();
    expect(invitation).toMatchObject({ workspaceId: w.ids.ws, role: "viewer", invitedByName: "owner" });
    expect(await stranger.decide({ invitationId: invitation!.id, accept: true })).toMatchObject({
      outcome: "accepted",
    });
    expect(await roleOf(w.ids.stranger)).toBe("viewer");
    expect(await stranger.list()).toEqual([]);
    expect((await owner.list({ workspaceId: w.ids.ws })).invitations).toEqual([]);
    await owner.setRole({ workspaceId: w.ids.ws, userId: w.ids.stranger, role: "editor" });
    expect(await roleOf(w.ids.stranger)).toBe("editor");
    await owner.remove({ workspaceId: w.ids.ws, userId: w.ids.stranger });
    expect(await roleOf(w.ids.stranger)).toBeNull();
    const audit = await w.kernel.listAudit({ workspaceId: w.ids.ws });
    expect(audit.reverse().map((r) => [r.identity.toolName, r.identity.actorId, r.detail])).toEqual([
      [
        "admin.member.invite",
        w.ids.owner,
        { invitationId: invitation!.id, email: "stranger@example.com", role: "viewer" },
      ],
      [
        "admin.member.invitation",
        w.ids.stranger,
        {
          invitationId: invitation!.id,
          outcome: "accepted",
          userId: w.ids.stranger,
          role: "viewer",
          previousRole: null,
          invitedBy: w.ids.owner,
        },
      ],
      ["admin.member.role", w.ids.owner, { userId: w.ids.stranger, role: "editor", previousRole: "viewer" }],
      ["admin.member.remove", w.ids.owner, { userId: w.ids.stranger }],
    ]);
  });

  it("the answer to an invitation is the same whether or not anyone has the email: no id, no name, no enumeration", async () => {
    const owner = panelAs(w, w.tokens.owner).members;
    const known = await owner.invite({ workspaceId: w.ids.ws, email: "stranger@example.com", role: "editor" });
    const unknown = await owner.invite({ workspaceId: w.ids.ws, email: "nobody@example.com", role: "editor" });
    expect(JSON.stringify({ ...known, email: "" })).toBe(JSON.stringify({ ...unknown, email: "" }));
    expect(JSON.stringify(known)).not.toContain(w.ids.stranger);
    expect(JSON.stringify(await owner.list({ workspaceId: w.ids.ws }))).not.toContain(w.ids.stranger);
    expect(await roleOf(w.ids.stranger)).toBeNull();
  });

  it("declining makes no member; another person cannot see or decide someone's invitation", async () => {
    await panelAs(w, w.tokens.owner).members.invite({
      workspaceId: w.ids.ws,
      email: "stranger@example.com",
      role: "owner",
    });
    const [invitation] = await panelAs(w, w.tokens.stranger).invitations.list();
    // The editor (another user, with no such email) sees nothing and is told "not found", as for no invitation.
    expect(await panelAs(w, w.tokens.editor).invitations.list()).toEqual([]);
    const before = await w.kernel.admin.tableSnapshot();
    for (const invitationId of [invitation!.id, "inv_nonexistent"]) {
      const error = await refused(panelAs(w, w.tokens.editor).invitations.decide({ invitationId, accept: true }));
      expect(error).toEqual({ code: "NOT_FOUND", message: "invitation not found" });
    }
    expect(await w.kernel.admin.tableSnapshot()).toEqual(before);
    await panelAs(w, w.tokens.stranger).invitations.decide({ invitationId: invitation!.id, accept: false });
    expect(await roleOf(w.ids.stranger)).toBeNull();
    expect(await panelAs(w, w.tokens.stranger).invitations.list()).toEqual([]);
    // An agent token decides nothing at the panel.
    expect((await refused(panelAs(w, w.tokens.ownerAgent).invitations.list())).code).toBe("FORBIDDEN");
  });

  it("keeps the last owner, changes no non-member, invites no look-alike email: refused, nothing written", async () => {
    const owner = panelAs(w, w.tokens.owner).members;
    const before = await w.kernel.admin.tableSnapshot();
    const cases: Array<[Promise<unknown>, string, RegExp]> = [
      // In words, with names (never "owner_x is the last owner of ws_x", the kernel's message for operators).
      [
        owner.setRole({ workspaceId: w.ids.ws, userId: w.ids.owner, role: "editor" }),
        "CONFLICT",
        /^You are the only owner of Team, and a workspace needs an owner: make another member an owner first\.$/,
      ],
      [
        owner.remove({ workspaceId: w.ids.ws, userId: w.ids.owner }),
        "CONFLICT",
        /^You are the only owner of Team, and a workspace needs an owner/,
      ],
      [
        owner.setRole({ workspaceId: w.ids.ws, userId: w.ids.stranger, role: "viewer" }),
        "CONFLICT",
        /^stranger is no longer a member of Team: the list is shown again as it is now\.$/,
      ],
      [
        owner.remove({ workspaceId: w.ids.ws, userId: w.ids.stranger }),
        "CONFLICT",
        /^stranger is no longer a member of Team/,
      ],
      [
        owner.invite({ workspaceId: w.ids.ws, email: "\u212Aate@example.com", role: "viewer" }),
        "UNPROCESSABLE_CONTENT",
        /email/i,
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
