import type { Block } from "@mnote/contract";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashToken } from "../ids";
import { ManualClock } from "../clock";
import type { KernelOptions, SqlKernel } from "../sql-kernel";
import type { CallIdentity, ExecuteRequest, KernelCommand } from "../types";

/**
 * The behaviour the kernel must have on every database. Each driver (SQLite,
 * PostgreSQL, PGlite) runs this same suite with its own factory.
 */
export function kernelConformanceSuite(name: string, openKernel: (options?: KernelOptions) => Promise<SqlKernel>) {
  describe(`kernel conformance: ${name}`, () => {
    let kernel: SqlKernel;
    let ws: string;
    let doc: string;
    let owner: string;
    let counter = 0;

    const blocks = (...texts: string[]): Block[] =>
      texts.map((text, i) => ({ id: `b${i}_${text.replace(/\W/g, "")}`, type: "paragraph", text }));

    const identity = (overrides: Partial<CallIdentity> = {}): CallIdentity =>
      testIdentity({
        toolName: "mnote.page.save",
        workspaceId: ws,
        documentId: doc,
        actorId: owner,
        holder: "person",
        toolCallId: `call_${++counter}`,
        ...overrides,
      });

    const request = (command: KernelCommand, extra: Partial<ExecuteRequest> = {}): ExecuteRequest => ({
      identity: identity({ toolName: extra.identity?.toolName ?? "mnote.page.save" }),
      command,
      idempotency: { key: `key_${++counter}`, fingerprint: `fp_${counter}`, expiresAt: "2999-01-01T00:00:00.000Z" },
      ...extra,
    });

    beforeEach(async () => {
      kernel = await openKernel();
      const suffix = Math.random().toString(36).slice(2, 8);
      owner = (await kernel.admin.createUser({ id: `owner_${suffix}`, name: "Owner" })).id;
      ws = (await kernel.admin.createWorkspace({ id: `ws_${suffix}`, name: "WS", ownerId: owner })).id;
      doc = (
        await kernel.admin.createPage({
          id: `doc_${suffix}`,
          workspaceId: ws,
          title: "Plan",
          blocks: blocks("one", "two"),
          createdBy: owner,
        })
      ).id;
    });
    afterEach(async () => {
      await kernel.close();
    });

    it("creates pages at revision 1 and reads blocks in order", async () => {
      const page = await kernel.getPage(doc);
      expect(page).toMatchObject({ id: doc, workspaceId: ws, title: "Plan", revision: 1, isPrivate: false });
      expect((await kernel.getBlocks(doc)).map((b) => b.text)).toEqual(["one", "two"]);
    });

    it("reports access facts: role, page and grant", async () => {
      const reader = (await kernel.admin.createUser({ name: "Reader" })).id;
      expect(await kernel.getAccessFacts({ workspaceId: ws, documentId: doc, userId: reader })).toMatchObject({
        role: null,
        grant: null,
        page: { id: doc },
      });
      await kernel.admin.addMember({ workspaceId: ws, userId: reader, role: "viewer" });
      await kernel.admin.grantPage({ documentId: doc, userId: reader, access: "write" });
      const facts = await kernel.getAccessFacts({ workspaceId: ws, documentId: doc, userId: reader });
      expect(facts.role).toBe("viewer");
      expect(facts.grant).toBe("write");
      const elsewhere = await kernel.getAccessFacts({ workspaceId: "no_such_ws", documentId: doc, userId: reader });
      expect(elsewhere).toEqual({ workspace: null, role: null, page: null, grant: null });
    });

    it("operator changes: a workspace keeps an owner, a removed user takes grants and tokens along, each change audited", async () => {
      const member = (await kernel.admin.createUser({ name: "Member" })).id;
      await kernel.admin.addMember({ workspaceId: ws, userId: member, role: "editor", by: "operator:test" });
      await kernel.admin.grantPage({ documentId: doc, userId: member, access: "write" });
      const { token } = await kernel.admin.createToken({ userId: member, holder: "agent", scopes: ["page.read"] });
      expect(await kernel.admin.listMembers(ws)).toEqual([
        { userId: member, name: "Member", role: "editor" },
        { userId: owner, name: "Owner", role: "owner" },
      ]);
      await expect(kernel.admin.addMember({ workspaceId: ws, userId: owner, role: "viewer" })).rejects.toThrow(
        /last owner/,
      );
      await expect(kernel.admin.removeMember({ workspaceId: ws, userId: owner })).rejects.toThrow(/last owner/);
      await expect(kernel.admin.removeUser(owner)).rejects.toThrow(/last owner/);
      expect((await kernel.admin.listTokens(member)).map((t) => t.revokedAt)).toEqual([null]);

      await kernel.admin.removeUser(member, { by: "operator:test" });
      expect(await kernel.admin.getUser(member)).toBeNull();
      expect(await kernel.findTokenByHash(hashToken(token))).toBeNull();
      expect(await kernel.getAccessFacts({ workspaceId: ws, documentId: doc, userId: member })).toMatchObject({
        role: null,
        grant: null,
      });
      const audit = await kernel.listAudit({ workspaceId: ws });
      expect(audit.map((r) => r.identity.toolName)).toEqual(["admin.member.add"]);
      expect(audit[0]).toMatchObject({
        effect: "write",
        outcome: "ok",
        identity: { actorId: "operator:test", tokenId: null },
      });
    });

    it("users' emails: stored lower-case, one user's each, found by email, set and cleared, audited", async () => {
      const ann = await kernel.admin.createUser({ name: "Ann", email: "  Ann@Example.COM ", by: "operator:test" });
      expect(ann.email).toBe("ann@example.com");
      expect(await kernel.admin.findUserByEmail("ANN@example.com")).toEqual(ann);
      expect(await kernel.admin.getUser(owner)).toMatchObject({ email: null });
      await expect(kernel.admin.createUser({ name: "Other Ann", email: "ann@EXAMPLE.com" })).rejects.toThrow(
        /another user .* has the email ann@example.com/,
      );
      await expect(kernel.admin.setUserEmail(owner, "Ann@example.com")).rejects.toThrow(/another user/);
      await expect(kernel.admin.setUserEmail("no_such_user", "x@example.com")).rejects.toThrow(/no user/);
      // Users without an email are many: NULL is no one's email.
      await kernel.admin.createUser({ name: "No mail" });
      expect(await kernel.admin.setUserEmail(owner, "Owner@Example.com", { by: "operator:test" })).toMatchObject({
        email: "owner@example.com",
      });
      expect((await kernel.admin.findUserByEmail("owner@example.com"))?.id).toBe(owner);
      await kernel.admin.setUserEmail(ann.id, null);
      expect(await kernel.admin.findUserByEmail("ann@example.com")).toBeNull();
      expect(await kernel.admin.findUserByEmail("")).toBeNull();
      await expect(kernel.admin.createUser({ name: "Bad", email: "not an email" })).rejects.toThrow(
        /"not an email" is not an email address/,
      );
      await expect(kernel.admin.setUserEmail(owner, "a@b@c")).rejects.toThrow(/is not an email address/);
      // Only the operator's changes (`by`) are audited; an email is in the record, never a token.
      const records = ((await kernel.admin.tableSnapshot()).audit_log as Array<{ tool_name: string; detail: string }>)
        .filter((r) => r.tool_name.startsWith("admin.user"))
        .map((r) => [r.tool_name, JSON.parse(r.detail)]);
      expect(records).toEqual(
        expect.arrayContaining([
          ["admin.user.create", { userId: ann.id, name: "Ann", email: "ann@example.com" }],
          ["admin.user.email", { userId: owner, email: "owner@example.com", previousEmail: null }],
        ]),
      );
      expect(records).toHaveLength(2);
    });

    it("a member's role changes only for a member, and never away from the last owner", async () => {
      const member = (await kernel.admin.createUser({ name: "Member" })).id;
      await expect(kernel.admin.setMemberRole({ workspaceId: ws, userId: member, role: "viewer" })).rejects.toThrow(
        /is not a member/,
      );
      await expect(kernel.admin.setMemberRole({ workspaceId: ws, userId: owner, role: "editor" })).rejects.toThrow(
        /last owner/,
      );
      await kernel.admin.addMember({ workspaceId: ws, userId: member, role: "viewer" });
      await kernel.admin.setMemberRole({ workspaceId: ws, userId: member, role: "owner", by: "operator:test" });
      await kernel.admin.setMemberRole({ workspaceId: ws, userId: owner, role: "editor" });
      expect(await kernel.admin.listMembers(ws)).toEqual([
        { userId: member, name: "Member", role: "owner" },
        { userId: owner, name: "Owner", role: "editor" },
      ]);
      const audit = await kernel.listAudit({ workspaceId: ws });
      expect(audit.map((r) => [r.identity.toolName, r.detail])).toEqual([
        ["admin.member.role", { userId: member, role: "owner", previousRole: "viewer" }],
      ]);
    });

    it("invitations: for an email, seen and decided only by its person; accept makes a member, both audited", async () => {
      const suffix = Math.random().toString(36).slice(2, 8);
      const kim = (await kernel.admin.createUser({ name: "Kim", email: `kim_${suffix}@example.com` })).id;
      const other = (await kernel.admin.createUser({ name: "Other", email: `other_${suffix}@example.com` })).id;
      const first = await kernel.admin.inviteMember({
        workspaceId: ws,
        email: ` KIM_${suffix}@Example.com`,
        role: "viewer",
        by: owner,
      });
      // Inviting again while it is pending changes its role: still one invitation.
      const again = await kernel.admin.inviteMember({
        workspaceId: ws,
        email: `kim_${suffix}@example.com`,
        role: "editor",
        by: owner,
      });
      expect(again.id).toBe(first.id);
      // An email nobody has is invited just the same.
      await kernel.admin.inviteMember({
        workspaceId: ws,
        email: `nobody_${suffix}@example.com`,
        role: "viewer",
        by: owner,
      });
      // Two invitations made in one millisecond have no order between them: compare them by email.
      const pending = (await kernel.admin.listWorkspaceInvitations(ws)).map((i) => [i.email, i.role]);
      expect(pending.sort()).toEqual([
        [`kim_${suffix}@example.com`, "editor"],
        [`nobody_${suffix}@example.com`, "viewer"],
      ]);
      expect(await kernel.admin.listMembers(ws)).toEqual([{ userId: owner, name: "Owner", role: "owner" }]);
      const [mine] = await kernel.admin.listInvitationsForUser(kim);
      expect(mine).toMatchObject({
        id: first.id,
        workspaceId: ws,
        workspaceName: "WS",
        role: "editor",
        invitedByName: "Owner",
      });
      expect(await kernel.admin.listInvitationsForUser(other)).toEqual([]);
      // Someone else's invitation is no invitation of theirs.
      await expect(
        kernel.admin.decideInvitation({ invitationId: first.id, userId: other, accept: true }),
      ).rejects.toThrow(/no pending invitation/);
      await kernel.admin.decideInvitation({ invitationId: first.id, userId: kim, accept: true });
      expect((await kernel.admin.listMembers(ws)).find((m) => m.userId === kim)?.role).toBe("editor");
      expect(await kernel.admin.listInvitationsForUser(kim)).toEqual([]);
      await expect(
        kernel.admin.decideInvitation({ invitationId: first.id, userId: kim, accept: false }),
      ).rejects.toThrow(/no pending invitation/);
      // Declined: decided, no member.
      const second = await kernel.admin.inviteMember({
        workspaceId: ws,
        email: `other_${suffix}@example.com`,
        role: "owner",
        by: owner,
      });
      await kernel.admin.decideInvitation({ invitationId: second.id, userId: other, accept: false });
      expect((await kernel.admin.listMembers(ws)).map((m) => m.userId)).not.toContain(other);
      const audit = (await kernel.listAudit({ workspaceId: ws })).reverse();
      expect(
        audit.map((r) => [r.identity.toolName, r.identity.actorId, (r.detail as { outcome?: string }).outcome ?? null]),
      ).toEqual([
        ["admin.member.invite", owner, null],
        ["admin.member.invite", owner, null],
        ["admin.member.invite", owner, null],
        ["admin.member.invitation", kim, "accepted"],
        ["admin.member.invite", owner, null],
        ["admin.member.invitation", other, "declined"],
      ]);
      await expect(
        kernel.admin.inviteMember({ workspaceId: ws, email: "\u212Aate@example.com", role: "viewer" }),
      ).rejects.toThrow(/not an email/);
    });

    it("lists a user's tokens with their last use, read from the audit", async () => {
      const { record } = await kernel.admin.createToken({ userId: owner, holder: "agent", scopes: ["page.read"] });
      expect((await kernel.admin.listTokens(owner))[0]).toMatchObject({ id: record.id, lastUsedAt: null });
      const base = identity({ toolName: "mnote.page.get", tokenId: record.id, holder: "agent" });
      await kernel.appendAudit({ identity: base, effect: "read", outcome: "ok" });
      await kernel.appendAudit({ identity: base, effect: "read", outcome: "ok" });
      const [listed] = await kernel.admin.listTokens(owner);
      const newest = (await kernel.listAudit({ workspaceId: ws }))
        .map((r) => r.at)
        .sort()
        .at(-1);
      expect(listed).toMatchObject({ id: record.id, lastUsedAt: newest });
    });

    it("access facts name no page, and so no grant, for a page asked for in another workspace", async () => {
      const reader = (await kernel.admin.createUser({ name: "Reader" })).id;
      await kernel.admin.grantPage({ documentId: doc, userId: reader, access: "read" });
      const other = (await kernel.admin.createWorkspace({ name: "Other", ownerId: reader })).id;
      expect(await kernel.getAccessFacts({ workspaceId: other, documentId: doc, userId: reader })).toMatchObject({
        workspace: { id: other },
        role: "owner",
        page: null,
        grant: null,
      });
      expect(await kernel.getAccessFacts({ workspaceId: ws, documentId: "no_such_doc", userId: owner })).toMatchObject({
        role: "owner",
        page: null,
        grant: null,
      });
    });

    it("call facts in one read agree with the token, access and idempotency reads they replace", async () => {
      const reader = (await kernel.admin.createUser({ name: "Reader" })).id;
      const other = (await kernel.admin.createWorkspace({ name: "Other", ownerId: reader })).id;
      const ownerToken = (
        await kernel.admin.createToken({ userId: owner, holder: "person", scopes: ["page.read", "page.write"] })
      ).token;
      const readerToken = (await kernel.admin.createToken({ userId: reader, holder: "agent", scopes: ["page.read"] }))
        .token;
      const revoked = await kernel.admin.createToken({ userId: owner, holder: "agent", scopes: ["page.read"] });
      await kernel.admin.revokeToken(revoked.record.id);
      // A stored result for the owner's key, and one that has expired.
      const stored = request(
        { name: "page.head.updateTitle", title: "Kept" },
        { identity: identity({ toolName: "mnote.page.update_title" }) },
      );
      const storedOutcome = await kernel.execute(stored);
      if (storedOutcome.kind !== "applied") throw new Error(`stored write: ${storedOutcome.kind}`);
      const expired = request(
        { name: "page.head.updateTitle", title: "Old" },
        { identity: identity({ toolName: "mnote.page.update_title" }) },
      );
      await kernel.execute({
        ...expired,
        idempotency: { ...expired.idempotency, expiresAt: "2000-01-01T00:00:00.000Z" },
      });
      const now = new Date().toISOString();

      const separately = async (secret: string, workspaceId: string, documentId: string, key: string | null) => {
        const token = await kernel.findTokenByHash(hashToken(secret));
        const access = token
          ? await kernel.getAccessFacts({ workspaceId, documentId, userId: token.userId })
          : { workspace: null, role: null, page: null, grant: null };
        // The one unexpired record: the owner's key, in the workspace it was stored in (whatever the page asked for).
        const idempotency =
          token?.userId === owner && workspaceId === ws && key === stored.idempotency.key
            ? {
                workspaceId,
                actorId: owner,
                toolName: "mnote.page.update_title",
                key,
                fingerprint: stored.idempotency.fingerprint,
                commandId: storedOutcome.commandId,
                result: storedOutcome.result,
                createdAt: expect.any(String),
                expiresAt: stored.idempotency.expiresAt,
              }
            : null;
        return { token, access, idempotency };
      };
      const cases: Array<[string, string, string, string | null]> = [
        [ownerToken, ws, doc, stored.idempotency.key],
        [ownerToken, ws, doc, expired.idempotency.key],
        [ownerToken, ws, doc, "never_used"],
        [ownerToken, ws, doc, null],
        [ownerToken, ws, "no_such_doc", stored.idempotency.key],
        [ownerToken, "no_such_ws", doc, stored.idempotency.key],
        [ownerToken, other, doc, null],
        [readerToken, ws, doc, stored.idempotency.key],
        [readerToken, other, doc, null],
        [revoked.token, ws, doc, null],
        ["mnt_not_a_token", ws, doc, stored.idempotency.key],
      ];
      for (const [secret, workspaceId, documentId, key] of cases) {
        const together = await kernel.getCallFacts({
          tokenHash: hashToken(secret),
          workspaceId,
          documentId,
          idempotency: key ? { toolName: "mnote.page.update_title", key, now } : null,
        });
        expect(together, `${workspaceId}/${documentId}/${key}`).toEqual(
          await separately(secret, workspaceId, documentId, key),
        );
      }
      // The owner's stored key is found; the reader (another actor) never sees it.
      const ownerFacts = await kernel.getCallFacts({
        tokenHash: hashToken(ownerToken),
        workspaceId: ws,
        documentId: doc,
        idempotency: { toolName: "mnote.page.update_title", key: stored.idempotency.key, now },
      });
      expect(ownerFacts.idempotency).toMatchObject({
        fingerprint: stored.idempotency.fingerprint,
        result: { commandName: "page.head.updateTitle" },
      });
    });

    it("finds which of the given ids are on a page, in chunks of any size", async () => {
      await kernel.execute(
        request({ name: "page.body.save", mode: "append", blocks: blocks("x", "y", "three").slice(2) }),
      );
      const ids = (await kernel.getBlocks(doc)).map((b) => b.id);
      const absent = Array.from({ length: 150 }, (_, i) => `absent_${i}`);
      expect(await kernel.findBlockIds(doc, [])).toEqual([]);
      expect(await kernel.findBlockIds(doc, [ids[0]!])).toEqual([ids[0]]);
      expect(await kernel.findBlockIds(doc, ["absent"])).toEqual([]);
      // 150 absent ids plus every id on the page, spread over three chunks.
      const mixed = [...absent.slice(0, 70), ...ids, ...absent.slice(70)];
      expect((await kernel.findBlockIds(doc, mixed)).sort()).toEqual([...ids].sort());
      expect(await kernel.findBlockIds("no_such_doc", ids)).toEqual([]);
      expect((await kernel.getPage(doc))?.blockCount).toBe(ids.length);
    });

    it("appends and replaces blocks, one revision per command", async () => {
      const append = await kernel.execute(
        request({ name: "page.body.save", mode: "append", blocks: blocks("x", "y", "three").slice(2) }),
      );
      expect(append).toMatchObject({
        kind: "applied",
        revisionBefore: 1,
        revisionAfter: 2,
        result: { commandName: "page.body.save", revision: 2 },
      });
      expect((await kernel.getBlocks(doc)).map((b) => b.text)).toEqual(["one", "two", "three"]);
      const replace = await kernel.execute(
        request({ name: "page.body.save", mode: "replace", blocks: blocks("only") }),
      );
      expect(replace).toMatchObject({ kind: "applied", revisionAfter: 3 });
      expect(await kernel.getBlocks(doc)).toEqual([{ id: "b0_only", type: "paragraph", text: "only" }]);
      expect((await kernel.getPage(doc))?.revision).toBe(3);
    });

    it("keeps per-type block fields", async () => {
      const rich: Block[] = [
        { id: "h", type: "heading", level: 2, text: "Head" },
        { id: "t", type: "todo", checked: true, text: "Done" },
        { id: "c", type: "code", language: "ts", text: "let x = 1;" },
        { id: "d", type: "divider", text: "" },
      ];
      await kernel.execute(request({ name: "page.body.save", mode: "replace", blocks: rich }));
      expect(await kernel.getBlocks(doc)).toEqual(rich);
    });

    it("keeps formatting and nesting (marks, indent), and a replace's text rule for marks (decision 0026)", async () => {
      const formatted: Block[] = [
        {
          id: "p",
          type: "paragraph",
          text: "Ship on Friday, see docs",
          marks: [
            { type: "bold", start: 8, end: 14 },
            { type: "link", start: 20, end: 24, href: "https://example.com/docs?a=1&b=2" },
          ],
        },
        { id: "l0", type: "bulleted", text: "top" },
        { id: "l1", type: "bulleted", text: "nested", indent: 1 },
        {
          id: "l2",
          type: "todo",
          checked: false,
          text: "deeper",
          indent: 2,
          marks: [{ type: "code", start: 0, end: 6 }],
        },
      ];
      await kernel.execute(request({ name: "page.body.save", mode: "replace", blocks: formatted }));
      expect(await kernel.getBlocks(doc)).toEqual(formatted);
      await kernel.execute(
        request({
          name: "page.body.edit",
          operations: [
            { op: "replace", blockId: "p", type: "quote" },
            { op: "replace", blockId: "l1", text: "new words" },
            { op: "replace", blockId: "l2", marks: [], type: "numbered" },
          ],
        }),
      );
      const after = await kernel.getBlocks(doc);
      // Same text: the marks stay (the type changed); new text without marks: plain; [] clears; indent kept.
      expect(after[0]).toEqual({ ...formatted[0], type: "quote" });
      expect(after[2]).toEqual({ id: "l1", type: "bulleted", text: "new words", indent: 1 });
      expect(after[3]).toEqual({ id: "l2", type: "numbered", text: "deeper", indent: 2 });
      const refused = await kernel.execute(
        request({
          name: "page.body.edit",
          operations: [
            { op: "replace", blockId: "p", marks: [{ type: "link", start: 0, end: 4, href: "javascript:x" }] },
          ],
        }),
      );
      expect(refused).toMatchObject({ kind: "rejected" });
      expect(JSON.stringify(refused)).toContain("marks.0.href");
      expect(await kernel.getBlocks(doc)).toEqual(after);
    });

    it("stores one command per write, traceable by id, with the idempotency record and audit", async () => {
      const outcome = await kernel.execute(request({ name: "page.head.updateTitle", title: "New" }));
      if (outcome.kind !== "applied") throw new Error(outcome.kind);
      const command = await kernel.getCommand(outcome.commandId);
      expect(command).toMatchObject({ name: "page.head.updateTitle", revisionBefore: 1, revisionAfter: 2 });
      expect(command?.identity).toMatchObject({ workspaceId: ws, documentId: doc, actorId: owner, sessionId: "s1" });
      const audit = await kernel.listAudit({ documentId: doc });
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ effect: "write", outcome: "ok", commandId: outcome.commandId });
    });

    it("replays a key with the same fingerprint and refuses it with another", async () => {
      const first = request({ name: "page.head.updateTitle", title: "A" });
      const applied = await kernel.execute(first);
      const again = await kernel.execute({ ...first, identity: identity({ toolCallId: "retry" }) });
      expect(applied.kind).toBe("applied");
      expect(again).toEqual({
        kind: "replayed",
        commandId: (applied as { commandId: string }).commandId,
        result: (applied as { result: unknown }).result,
      });
      const other = await kernel.execute({
        ...first,
        command: { name: "page.head.updateTitle", title: "B" },
        idempotency: { ...first.idempotency, fingerprint: "different" },
      });
      expect(other).toEqual({ kind: "idempotency_conflict" });
      expect((await kernel.getPage(doc))?.title).toBe("A");
      expect((await kernel.getPage(doc))?.revision).toBe(2);
    });

    it("does not replay an expired idempotency record", async () => {
      const first = request(
        { name: "page.head.updateTitle", title: "A" },
        {
          idempotency: { key: "old", fingerprint: "fp", expiresAt: "2000-01-01T00:00:00.000Z" },
        },
      );
      expect((await kernel.execute(first)).kind).toBe("applied");
      const ownerSecret = (await kernel.admin.createToken({ userId: owner, holder: "person", scopes: ["page.write"] }))
        .token;
      const facts = await kernel.getCallFacts({
        tokenHash: hashToken(ownerSecret),
        workspaceId: ws,
        documentId: doc,
        idempotency: { toolName: "mnote.page.save", key: "old", now: new Date().toISOString() },
      });
      expect(facts.token?.userId).toBe(owner);
      expect(facts.idempotency).toBeNull();
      expect((await kernel.execute(first)).kind).toBe("applied");
      expect(await kernel.purgeExpiredIdempotency(new Date().toISOString())).toBe(1);
    });

    it("counts in fixed windows: per key and window, exact under concurrency, nothing in the business tables", async () => {
      const before = await kernel.admin.tableSnapshot();
      const minute = 60_000;
      const now = Math.floor(Date.now() / minute) * minute;
      const counts = await Promise.all(
        Array.from({ length: 12 }, () => kernel.countInWindow("auth_failure:10.0.0.1", new Date(now), minute)),
      );
      expect(counts.sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect(await kernel.countInWindow("auth_failure:10.0.0.2", new Date(now), minute)).toBe(1);
      expect(await kernel.countInWindow("auth_failure:10.0.0.1", new Date(now + minute), minute)).toBe(1);
      // A window that ended long ago is removed by the next count, so it starts over.
      expect(await kernel.countInWindow("old", new Date(now - 10 * minute), minute)).toBe(1);
      expect(await kernel.countInWindow("old", new Date(now - 10 * minute), minute)).toBe(1);
      expect(await kernel.admin.tableSnapshot()).toEqual(before);
    });

    it("keeps a conversation asked from the panel as its first person's, and a run's lines in order for any instance", async () => {
      const session = { sessionId: `mnote_${doc}_${"a".repeat(32)}`, userId: owner, workspaceId: ws, documentId: doc };
      expect(await kernel.ask.getSession(session.sessionId)).toBeNull();
      expect(await kernel.ask.openSession(session)).toMatchObject(session);
      // Another person naming the same conversation does not take it over: the first record stands.
      expect(await kernel.ask.openSession({ ...session, userId: "user_other" })).toMatchObject({ userId: owner });
      const run = { runId: "run_1", sessionId: session.sessionId, userId: owner, workspaceId: ws, documentId: doc };
      await kernel.ask.recordRun({ ...run, startKey: "k1" });
      expect(await kernel.ask.findRunByKey(owner, "k1")).toMatchObject({ runId: "run_1", status: "running" });
      expect(await kernel.ask.findRunByKey("user_other", "k1")).toBeNull();
      await expect(kernel.ask.recordRun({ ...run, runId: "run_2", startKey: "k1" })).rejects.toThrow();
      expect(await kernel.ask.appendRunLines("run_1", ['{"a":1}', '{"a":2}'], false)).toBe(2);
      expect(await kernel.ask.appendRunLines("run_1", ['{"a":3}'], true)).toBe(3);
      expect(await kernel.ask.listRunLines("run_1", 1, 10)).toEqual([
        { seq: 2, line: '{"a":2}' },
        { seq: 3, line: '{"a":3}' },
      ]);
      expect(await kernel.ask.listRunLines("run_1", 0, 1)).toEqual([{ seq: 1, line: '{"a":1}' }]);
      expect((await kernel.ask.getRun("run_1"))?.status).toBe("ended");
      expect((await kernel.ask.latestRun(session.sessionId))?.runId).toBe("run_1");
      expect(await kernel.ask.latestRun("no_such_session")).toBeNull();
      expect(await kernel.ask.getRun("run_unknown")).toBeNull();
    });

    it("sweeps a run's lines once nobody can follow it, on its own, and a run's record once Hermes forgets it", async () => {
      // Its own kernel on a clock the test moves: the grace is waited out without waiting (issue 38).
      const clock = new ManualClock("2026-01-01T00:00:00.000Z");
      const timed = await openKernel({ clock });
      try {
        const run = (runId: string) => ({ runId, sessionId: "s", userId: owner, workspaceId: ws, documentId: doc });
        const lines = async (runId: string) => (await timed.ask.listRunLines(runId, 0, 100)).length;
        await timed.ask.recordRun({ ...run("ended"), startKey: "k" });
        await timed.ask.recordRun(run("live"));
        await timed.ask.recordRun(run("dead"));
        await timed.ask.appendRunLines("ended", ['{"type":"delta","text":"words"}'], true);
        await timed.ask.appendRunLines("live", ['{"type":"delta","text":"words"}'], false);
        await timed.ask.appendRunLines("dead", ['{"type":"delta","text":"words"}'], false);
        expect([await timed.ask.runState("ended"), await timed.ask.runState("live")]).toEqual(["ended", "live"]);
        // Within the grace nothing goes: a reader still on the ended run reads its end.
        clock.advance(59_000);
        expect(await timed.ask.sweepRuns({ graceMs: 60_000 })).toEqual({ lines: 0, runs: 0 });
        await timed.ask.appendRunLines("live", [], false); // the heartbeat of a run still being read
        clock.advance(2_000);
        expect(await timed.ask.sweepRuns({ graceMs: 60_000 })).toEqual({ lines: 1, runs: 0 });
        expect([await lines("ended"), await lines("live"), await lines("dead")]).toEqual([0, 1, 1]);
        // A run nobody reads any more (its reader's process died): its lines go past silence plus grace.
        clock.advance(75_000);
        await timed.ask.appendRunLines("live", [], false);
        expect(await timed.ask.sweepRuns({ graceMs: 60_000 })).toEqual({ lines: 1, runs: 0 });
        expect([await lines("live"), await lines("dead")]).toEqual([1, 0]);
        expect([await timed.ask.runState("live"), await timed.ask.runState("dead")]).toEqual(["live", "silent"]);
        // The records (ids and times, no text) go when Hermes would no longer know the run.
        expect((await timed.ask.getRun("ended"))?.status).toBe("ended");
        clock.advance(60 * 60 * 1000 + 1);
        expect(await timed.ask.sweepRuns({ graceMs: 60_000 })).toEqual({ lines: 1, runs: 3 });
        expect(await timed.ask.getRun("ended")).toBeNull();
        expect(await timed.ask.runState("ended")).toBe("gone");
        expect(await timed.ask.findRunByKey(owner, "k")).toBeNull();
      } finally {
        await timed.close();
      }
    });

    it("refuses a stale base revision and writes nothing", async () => {
      const before = await kernel.admin.tableSnapshot();
      const outcome = await kernel.execute(
        request({ name: "page.head.updateTitle", title: "Late" }, { baseRevision: 0 }),
      );
      expect(outcome).toEqual({ kind: "revision_conflict", currentRevision: 1 });
      expect(await kernel.admin.tableSnapshot()).toEqual(before);
    });

    it("answers page_missing for a page outside the workspace", async () => {
      const outcome = await kernel.execute({
        ...request({ name: "page.head.updateTitle", title: "X" }),
        identity: identity({ workspaceId: "other" }),
      });
      expect(outcome).toEqual({ kind: "page_missing" });
    });

    it("keeps one summary node and one edge per page", async () => {
      const first = await kernel.execute(request({ name: "artifact.summary.upsert", summary: "v1" }));
      const second = await kernel.execute(request({ name: "artifact.summary.upsert", summary: "v2" }));
      expect(first).toMatchObject({ kind: "applied", result: { created: true } });
      expect(second).toMatchObject({
        kind: "applied",
        result: { created: false, nodeId: (first as unknown as { result: { nodeId: string } }).result.nodeId },
      });
      const { nodes, edges } = await kernel.listArtifacts(doc);
      expect(nodes).toHaveLength(1);
      expect(nodes[0]).toMatchObject({ kind: "summary", content: "v2" });
      expect(edges).toHaveLength(1);
      expect(edges[0]).toMatchObject({ fromDocumentId: doc, toNodeId: nodes[0]!.id, kind: "reference" });
      expect((await kernel.getPage(doc))?.revision).toBe(1);
    });

    it("makes a new ai_note and edge on every new command", async () => {
      await kernel.execute(request({ name: "artifact.aiNote.create", content: "n1" }));
      await kernel.execute(request({ name: "artifact.aiNote.create", content: "n2" }));
      const { nodes, edges } = await kernel.listArtifacts(doc);
      expect(nodes.map((n) => n.content).sort()).toEqual(["n1", "n2"]);
      expect(edges).toHaveLength(2);
    });

    it("rebuilds the page before a command and reverts to it", async () => {
      const save = await kernel.execute(
        request({ name: "page.body.save", mode: "append", blocks: [{ id: "z", type: "quote", text: "added" }] }),
      );
      await kernel.execute(request({ name: "page.head.updateTitle", title: "Renamed" }));
      await kernel.execute(request({ name: "page.layout.updateOptions", options: { wideLayout: true } }));
      if (save.kind !== "applied") throw new Error(save.kind);
      const before = await kernel.getPageStateBefore(save.commandId);
      expect(before?.revision).toBe(1);
      expect(before?.state.title).toBe("Plan");
      expect(before?.state.options.wideLayout).toBe(false);
      expect(before?.state.blocks.map((b) => b.text)).toEqual(["one", "two"]);
      const revert = await kernel.execute(request({ name: "page.revert", targetCommandId: save.commandId }));
      expect(revert).toMatchObject({ kind: "applied", revisionBefore: 4, revisionAfter: 5 });
      const page = await kernel.getPage(doc);
      expect(page).toMatchObject({ title: "Plan", revision: 5, options: { wideLayout: false } });
      expect((await kernel.getBlocks(doc)).map((b) => b.text)).toEqual(["one", "two"]);
      const reject = await kernel.execute(request({ name: "page.revert", targetCommandId: "cmd_missing" }));
      expect(reject.kind).toBe("rejected");
    });

    it("reverts exactly the planned changes of one command, and rebuilds the page just before and after it", async () => {
      const one = (await kernel.getBlocks(doc))[0]!;
      const write = await kernel.execute(
        request({
          name: "page.body.edit",
          operations: [{ op: "insert", after: one.id, blocks: [{ id: "alpha", type: "paragraph", text: "Alpha" }] }],
        }),
      );
      if (write.kind !== "applied") throw new Error(write.kind);
      await kernel.execute(
        request({
          name: "page.body.edit",
          operations: [{ op: "insert", after: "alpha", blocks: [{ id: "beta", type: "paragraph", text: "Beta" }] }],
        }),
      );
      const states = await kernel.getCommandStates(write.commandId);
      expect(states!.before.blocks.map((b) => b.text)).toEqual(["one", "two"]);
      expect(states!.after.blocks.map((b) => b.text)).toEqual(["one", "Alpha", "two"]);
      const revert = await kernel.execute(
        request({
          name: "page.revert",
          targetCommandId: write.commandId,
          operations: [{ op: "delete", blockIds: ["alpha"] }],
          title: "Plan, reverted",
        }),
      );
      expect(revert).toMatchObject({ kind: "applied", result: { targetCommandId: write.commandId } });
      expect((await kernel.getBlocks(doc)).map((b) => b.text)).toEqual(["one", "Beta", "two"]);
      expect((await kernel.getPage(doc))!.title).toBe("Plan, reverted");
      expect((await kernel.getPage(doc))!.blockCount).toBe(3);
    });

    it("edits blocks by id in one command: replace, insert, delete, move, with positions kept 0..n-1", async () => {
      await kernel.execute(
        request({ name: "page.body.save", mode: "append", blocks: blocks("x", "three", "four").slice(1) }),
      );
      // The page: one, two, three, four (ids b0_one, b1_two, b1_three, b2_four).
      const ids = (await kernel.getBlocks(doc)).map((b) => b.id);
      const edit = await kernel.execute(
        request({
          name: "page.body.edit",
          operations: [
            { op: "replace", blockId: ids[0]!, text: "ONE", type: "heading", level: 2 },
            { op: "insert", after: ids[1]!, blocks: [{ id: "new1", type: "todo", text: "new", checked: true }] },
            { op: "delete", blockIds: [ids[2]!] },
            { op: "move", blockId: ids[3]!, at: "start" },
          ],
        }),
      );
      expect(edit).toMatchObject({
        kind: "applied",
        revisionBefore: 2,
        revisionAfter: 3,
        result: { insertedBlockIds: ["new1"], revision: 3 },
      });
      const after = await kernel.getBlocks(doc);
      expect(after.map((b) => b.text)).toEqual(["four", "ONE", "two", "new"]);
      expect(after[1]).toEqual({ id: ids[0], type: "heading", level: 2, text: "ONE" });
      expect((await kernel.getPage(doc))?.blockCount).toBe(4);
      const window = await kernel.getBlockWindow(doc, { from: 0, limit: 10 });
      expect(window.map((entry) => entry.index)).toEqual([0, 1, 2, 3]);
      expect((await kernel.findBlocks(doc, ["new1", "missing", ids[3]!])).sort((a, b) => a.index - b.index)).toEqual([
        { block: after[0], index: 0 },
        { block: after[3], index: 3 },
      ]);
      if (edit.kind !== "applied") throw new Error(edit.kind);
      // The command log can rebuild the page before the edit, and a revert restores it.
      expect((await kernel.getPageStateBefore(edit.commandId))?.state.blocks.map((b) => b.text)).toEqual([
        "one",
        "two",
        "three",
        "four",
      ]);
      await kernel.execute(request({ name: "page.revert", targetCommandId: edit.commandId }));
      expect((await kernel.getBlocks(doc)).map((b) => b.id)).toEqual(ids);
      expect((await kernel.getBlockWindow(doc, { from: 0, limit: 10 })).map((entry) => entry.index)).toEqual([
        0, 1, 2, 3,
      ]);
    });

    it("rejects an edit naming a block that is not on the page, naming the operation, and writes nothing", async () => {
      const before = await kernel.admin.tableSnapshot();
      const outcome = await kernel.execute(
        request({
          name: "page.body.edit",
          operations: [
            { op: "replace", blockId: "b0_one", text: "changed" },
            { op: "delete", blockIds: ["nope"] },
          ],
        }),
      );
      expect(outcome).toEqual({ kind: "rejected", message: "args.operations[1]: block nope is not on the page" });
      expect(await kernel.admin.tableSnapshot()).toEqual(before);
      const taken = await kernel.execute(
        request({
          name: "page.body.edit",
          operations: [{ op: "insert", at: "end", blocks: [{ id: "b1_two", type: "paragraph", text: "dup" }] }],
        }),
      );
      expect(taken).toEqual({
        kind: "rejected",
        message: "args.operations[0]: block id b1_two is already on the page",
      });
      expect(await kernel.admin.tableSnapshot()).toEqual(before);
    });

    it("reads windows, headings and search matches by position", async () => {
      await kernel.execute(
        request({
          name: "page.body.save",
          mode: "replace",
          blocks: [
            { id: "h1", type: "heading", level: 1, text: "Intro" },
            { id: "p1", type: "paragraph", text: "Cats and DOGS" },
            { id: "h2", type: "heading", level: 2, text: "More" },
            { id: "p2", type: "paragraph", text: "100% dogs_only" },
          ],
        }),
      );
      expect((await kernel.getBlockWindow(doc, { from: 1, limit: 2 })).map((e) => [e.block.id, e.index])).toEqual([
        ["p1", 1],
        ["h2", 2],
      ]);
      expect(
        (await kernel.getBlockWindow(doc, { from: 0, limit: 10, only: { kind: "headings" } })).map((e) => e.block.id),
      ).toEqual(["h1", "h2"]);
      const search = (text: string, from = 0) =>
        kernel
          .getBlockWindow(doc, { from, limit: 10, only: { kind: "search", text } })
          .then((found) => found.map((e) => e.block.id));
      expect(await search("dogs")).toEqual(["p1", "p2"]);
      expect(await search("dogs", 2)).toEqual(["p2"]);
      // LIKE's wildcards are matched as themselves.
      expect(await search("0% d")).toEqual(["p2"]);
      expect(await search("s_o")).toEqual(["p2"]);
      expect(await search("%")).toEqual(["p2"]);
    });

    it("rejects an append whose block id is already on the page, writing nothing", async () => {
      const before = await kernel.admin.tableSnapshot();
      const outcome = await kernel.execute(
        request({ name: "page.body.save", mode: "append", blocks: [{ id: "b0_one", type: "paragraph", text: "dup" }] }),
      );
      expect(outcome.kind).toBe("block_id_taken");
      expect(await kernel.admin.tableSnapshot()).toEqual(before);
    });

    it("runs exactly one command for concurrent calls with one key", async () => {
      const shared = request({ name: "artifact.aiNote.create", content: "once" });
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, (_, i) => kernel.execute({ ...shared, identity: identity({ toolCallId: `c${i}` }) })),
      );
      expect(outcomes.filter((o) => o.kind === "applied")).toHaveLength(1);
      expect(outcomes.filter((o) => o.kind === "replayed")).toHaveLength(7);
      expect((await kernel.listArtifacts(doc)).nodes).toHaveLength(1);
    });

    it("lets exactly one of many racers on one base revision win", async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          kernel.execute(request({ name: "page.head.updateTitle", title: `T${i}` }, { baseRevision: 1 })),
        ),
      );
      expect(outcomes.filter((o) => o.kind === "applied")).toHaveLength(1);
      expect(outcomes.filter((o) => o.kind === "revision_conflict")).toHaveLength(5);
      expect((await kernel.getPage(doc))?.revision).toBe(2);
    });

    it("appends audit records and filters them", async () => {
      const a = await kernel.appendAudit({ identity: identity({ runId: "runA" }), effect: "read", outcome: "ok" });
      const b = await kernel.appendAudit({
        identity: identity({ runId: "runB" }),
        effect: "none",
        outcome: "failed",
        errorCode: "mnote_tool_permission_denied",
      });
      expect(b).toBeGreaterThan(a);
      expect((await kernel.listAudit({ documentId: doc, runId: "runB" })).map((r) => r.id)).toEqual([b]);
      expect((await kernel.listAudit({ documentId: doc, afterId: a })).map((r) => r.id)).toEqual([b]);
      expect(await kernel.getAudit(b)).toMatchObject({
        errorCode: "mnote_tool_permission_denied",
        identity: { runId: "runB" },
      });
    });

    describe("the proposals index", () => {
      const propose = (
        key: string,
        fingerprint: string,
        extra: { outcome?: "proposal" | "held_for_approval"; toolName?: string } = {},
      ) =>
        kernel.appendAudit({
          identity: identity({ toolName: extra.toolName ?? "mnote.page.save", holder: "agent" }),
          effect: extra.outcome === "held_for_approval" ? "none" : "dry_run",
          outcome: extra.outcome ?? "proposal",
          idempotencyKey: key,
          payloadFingerprint: fingerprint,
          baseRevision: 1,
          detail: { args: { title: "X" }, preview: { baseRevision: 1, big: "x".repeat(10_000) } },
          summary: { changeCount: 1 },
        });
      /** A person rejects the newest pending proposal of this edit, if there is one. */
      const reject = async (
        key: string,
        fingerprint: string,
        toolName = "mnote.page.save",
        reason: string | null = null,
      ) => {
        const pending = (await kernel.listProposals({ workspaceId: ws, documentId: doc, decidedLimit: 0 })).find(
          (p) => p.idempotencyKey === key && p.payloadFingerprint === fingerprint && p.identity.toolName === toolName,
        );
        if (!pending) return null;
        return kernel.rejectProposal({
          proposalId: pending.auditId,
          reason,
          record: {
            identity: identity({ toolName, holder: "person" }),
            effect: "none",
            outcome: "rejected",
            idempotencyKey: key,
            payloadFingerprint: fingerprint,
            detail: { proposalId: pending.auditId, reason },
          },
        });
      };
      const statuses = async () =>
        (await kernel.listProposals({ workspaceId: ws, documentId: doc })).map((p) => [
          p.idempotencyKey,
          p.status,
          p.held,
        ]);

      it("indexes proposals and held writes, and a write of the same edit applies every pending one", async () => {
        const first = await propose("k1", "fp1");
        const again = await propose("k1", "fp1");
        const held = await propose("k2", "fp2", { outcome: "held_for_approval" });
        expect(await kernel.getProposal(first)).toMatchObject({
          auditId: first,
          status: "pending",
          held: false,
          commandId: null,
          idempotencyKey: "k1",
          payloadFingerprint: "fp1",
          baseRevision: 1,
          summary: { changeCount: 1 },
          identity: { actorId: owner, documentId: doc, holder: "agent", toolName: "mnote.page.save" },
        });
        expect(await statuses()).toEqual([
          ["k2", "pending", true],
          ["k1", "pending", false],
          ["k1", "pending", false],
        ]);
        const applied = await kernel.execute(
          request(
            { name: "page.head.updateTitle", title: "X" },
            { idempotency: { key: "k1", fingerprint: "fp1", expiresAt: "2999-01-01T00:00:00.000Z" } },
          ),
        );
        if (applied.kind !== "applied") throw new Error(applied.kind);
        for (const id of [first, again])
          expect(await kernel.getProposal(id)).toMatchObject({ status: "applied", commandId: applied.commandId });
        expect(await kernel.getProposal(held)).toMatchObject({ status: "pending" });
        // A proposal of an edit already applied is born applied.
        const late = await propose("k1", "fp1");
        expect(await kernel.getProposal(late)).toMatchObject({ status: "applied", commandId: applied.commandId });
        // Another payload under the same key, or the same key on another tool, is another edit.
        expect(await kernel.getProposal(await propose("k1", "fp_other"))).toMatchObject({ status: "pending" });
        expect(
          await kernel.getProposal(await propose("k1", "fp1", { toolName: "mnote.page.update_title" })),
        ).toMatchObject({ status: "pending" });
      });

      it("a rejected record rejects the pending proposals of its edit, not later ones", async () => {
        const first = await propose("k1", "fp1");
        const other = await propose("k2", "fp2");
        await reject("k1", "fp1");
        expect(await kernel.getProposal(first)).toMatchObject({
          status: "rejected",
          commandId: null,
          decidedAt: expect.any(String),
        });
        expect(await kernel.getProposal(other)).toMatchObject({ status: "pending" });
        await reject("k2", "fp2", "mnote.page.update_title");
        expect(await kernel.getProposal(other)).toMatchObject({ status: "pending" });
        const again = await propose("k1", "fp1");
        expect(await kernel.getProposal(again)).toMatchObject({ status: "pending" });
      });

      it("finds every pending proposal through the index however many audit records came after", async () => {
        const pending = await propose("k_pending", "fp");
        const decided = await propose("k_decided", "fp");
        await reject("k_decided", "fp");
        for (let i = 0; i < 1_100; i++)
          await kernel.appendAudit({ identity: identity(), effect: "read", outcome: "ok" });
        expect(await statuses()).toEqual([
          ["k_decided", "rejected", false],
          ["k_pending", "pending", false],
        ]);
        expect(
          (await kernel.listProposals({ workspaceId: ws, documentId: doc, decidedLimit: 0 })).map((p) => p.auditId),
        ).toEqual([pending]);
        expect(decided).toBeGreaterThan(pending);
        // The list is this page's in this workspace only.
        expect(await kernel.listProposals({ workspaceId: "other_ws", documentId: doc })).toEqual([]);
      }, 60_000);

      it("decides a proposal change by change (decision 0030): pending until every change is decided, a decided change never twice", async () => {
        const proposal = await propose("k_changes", "fp");
        const changes = (decided: { index: number; state: "applied" | "rejected"; reason?: string }[]) => ({
          decided,
          total: 3,
        });
        const first = await kernel.execute(
          request(
            { name: "page.head.updateTitle", title: "One" },
            { settles: { proposalId: proposal, changes: changes([{ index: 0, state: "applied" }]) } },
          ),
        );
        if (first.kind !== "applied") throw new Error(first.kind);
        expect(await kernel.getProposal(proposal)).toMatchObject({
          status: "pending",
          decidedAt: null,
          changeStates: { 0: { state: "applied", by: owner, commandId: first.commandId } },
        });
        // A step deciding change 0 again rolls its write back: the page keeps its revision.
        const revision = (await kernel.getPage(doc))!.revision;
        expect(
          await kernel.execute(
            request(
              { name: "page.head.updateTitle", title: "Again" },
              { settles: { proposalId: proposal, changes: changes([{ index: 0, state: "applied" }]) } },
            ),
          ),
        ).toMatchObject({ kind: "rejected" });
        expect((await kernel.getPage(doc))!.revision).toBe(revision);
        // A rejection of one change, with no write.
        const rejection = await kernel.rejectProposal({
          proposalId: proposal,
          reason: "not this",
          changes: changes([{ index: 2, state: "rejected", reason: "not this" }]),
          record: {
            identity: identity({ holder: "person" }),
            effect: "none",
            outcome: "rejected",
            idempotencyKey: "k_changes",
            payloadFingerprint: "fp",
          },
        });
        expect(rejection).toEqual(expect.any(Number));
        expect(await kernel.getProposal(proposal)).toMatchObject({ status: "pending" });
        // The last change decides the proposal: applied in part, kept 0 and 1 of 3.
        const last = await kernel.execute(
          request(
            { name: "page.head.updateTitle", title: "Two" },
            { settles: { proposalId: proposal, changes: changes([{ index: 1, state: "applied" }]) } },
          ),
        );
        if (last.kind !== "applied") throw new Error(last.kind);
        expect(await kernel.getProposal(proposal)).toMatchObject({
          status: "applied",
          commandId: last.commandId,
          appliedPart: { kept: [0, 1], total: 3 },
          decidedAt: expect.any(String),
          changeStates: { 2: { state: "rejected", reason: "not this", commandId: null } },
        });
      });

      it("finds a held proposal under a key with another payload: the key names one intended call", async () => {
        await propose("k_held", "fp_one", { outcome: "held_for_approval" });
        const query = { documentId: doc, toolName: "mnote.page.save", key: "k_held", actorId: owner };
        expect(await kernel.getEditDecision({ ...query, fingerprint: "fp_one" })).toMatchObject({
          otherPayload: false,
          proposal: { status: "pending" },
        });
        expect(await kernel.getEditDecision({ ...query, fingerprint: "fp_two" })).toMatchObject({ otherPayload: true });
        // A dry run (not held) under a key names no call: nothing is found for another payload.
        await propose("k_dry", "fp_one");
        expect(await kernel.getEditDecision({ ...query, key: "k_dry", fingerprint: "fp_two" })).toBeNull();
      });

      it("applies part of a pending proposal with its write in one transaction, and refuses once it is decided", async () => {
        const repeat = await propose("k_part", "fp");
        const proposal = await propose("k_part", "fp");
        const part = { proposalId: proposal, part: { kept: [0, 2], total: 3 } };
        const write = await kernel.execute(
          request({ name: "page.head.updateTitle", title: "Part" }, { settles: part }),
        );
        if (write.kind !== "applied") throw new Error(write.kind);
        expect(await kernel.getProposal(proposal)).toMatchObject({
          status: "applied",
          commandId: write.commandId,
          decidedAt: expect.any(String),
          appliedPart: { kept: [0, 2], total: 3 },
        });
        // A repeat of the same edit is decided with it, as a full write of the edit would decide it.
        expect(await kernel.getProposal(repeat)).toMatchObject({
          status: "applied",
          appliedPart: { kept: [0, 2], total: 3 },
        });
        // The same proposal again (or a rejected one): the write rolls back, the page keeps its revision.
        const before = await kernel.admin.tableSnapshot();
        expect(
          await kernel.execute(request({ name: "page.head.updateTitle", title: "Twice" }, { settles: part })),
        ).toMatchObject({
          kind: "rejected",
        });
        const rejected = await propose("k_gone", "fp");
        await reject("k_gone", "fp");
        expect(
          await kernel.execute(
            request({ name: "page.head.updateTitle", title: "Late" }, { settles: { ...part, proposalId: rejected } }),
          ),
        ).toMatchObject({
          kind: "rejected",
        });
        const after = await kernel.admin.tableSnapshot();
        expect({ ...after, audit_log: [], proposals: [] }).toEqual({ ...before, audit_log: [], proposals: [] });
        expect((await kernel.getPage(doc))?.title).toBe("Part");
      });

      it("a rejection records who and why, once: a second rejection or a late approval finds it decided", async () => {
        const proposal = await propose("k_why", "fp", { outcome: "held_for_approval" });
        const repeat = await propose("k_why", "fp", { outcome: "held_for_approval" });
        const auditId = await reject("k_why", "fp", "mnote.page.save", "too long; keep the intro");
        expect(auditId).toEqual(expect.any(Number));
        for (const id of [proposal, repeat])
          expect(await kernel.getProposal(id)).toMatchObject({
            status: "rejected",
            decidedBy: owner,
            reason: "too long; keep the intro",
            edited: false,
          });
        const before = await kernel.admin.tableSnapshot();
        const again = await kernel.rejectProposal({
          proposalId: proposal,
          reason: "again",
          record: { identity: identity({ holder: "person" }), effect: "none", outcome: "rejected" },
        });
        expect(again).toBeNull();
        expect(
          await kernel.execute(
            request({ name: "page.head.updateTitle", title: "Late" }, { settles: { proposalId: proposal } }),
          ),
        ).toMatchObject({ kind: "rejected" });
        expect(await kernel.admin.tableSnapshot()).toEqual(before);
      });

      it("answers a retry of a held edit with its decision: pending, rejected, or applied with the stored result", async () => {
        const edit = {
          documentId: doc,
          toolName: "mnote.page.save",
          key: "k_retry",
          fingerprint: "fp",
          actorId: owner,
        };
        expect(await kernel.getEditDecision(edit)).toBeNull();
        // A pending dry run is no answer: the real call is held as usual.
        await propose("k_retry", "fp");
        expect(await kernel.getEditDecision(edit)).toBeNull();
        const held = await propose("k_retry", "fp", { outcome: "held_for_approval" });
        expect(await kernel.getEditDecision(edit)).toMatchObject({
          proposal: { auditId: held, status: "pending" },
          result: null,
        });
        expect(await kernel.getEditDecision({ ...edit, actorId: "someone_else" })).toBeNull();
        const write = await kernel.execute(
          request(
            { name: "page.head.updateTitle", title: "Edited" },
            {
              idempotency: { key: "k_retry~edited", fingerprint: "fp2", expiresAt: "2999-01-01T00:00:00.000Z" },
              settles: { proposalId: held, edited: true },
            },
          ),
        );
        if (write.kind !== "applied") throw new Error(write.kind);
        expect(await kernel.getEditDecision(edit)).toMatchObject({
          proposal: { auditId: held, status: "applied", edited: true, decidedBy: owner, commandId: write.commandId },
          result: write.result,
        });
        const other = { ...edit, key: "k_no" };
        await propose("k_no", "fp", { outcome: "held_for_approval" });
        await reject("k_no", "fp", "mnote.page.save", null);
        expect(await kernel.getEditDecision(other)).toMatchObject({
          proposal: { status: "rejected", reason: null, decidedBy: owner },
        });
      });

      it("lists a workspace's pages with the user's access and pending edits in one read", async () => {
        const other = (await kernel.admin.createUser({ name: "Other" })).id;
        const secret = (
          await kernel.admin.createPage({ workspaceId: ws, title: "A secret", isPrivate: true, createdBy: owner })
        ).id;
        await kernel.admin.grantPage({ documentId: secret, userId: other, access: "read" });
        await propose("k1", "fp1");
        await propose("k1", "fp1"); // a repeat of one edit counts once
        await propose("k2", "fp2", { outcome: "held_for_approval" });
        await propose("k3", "fp3");
        await reject("k3", "fp3");
        const mine = await kernel.listPageOverviews({ workspaceId: ws, userId: owner });
        expect(mine.map((o) => [o.facts.page?.id, o.facts.role, o.facts.grant, o.pendingProposals])).toEqual([
          [secret, "owner", null, 0],
          [doc, "owner", null, 2],
        ]);
        expect(mine[1]!.facts).toEqual(
          await kernel.getAccessFacts({ workspaceId: ws, documentId: doc, userId: owner }),
        );
        // Not a member: the facts say so (no role), the grant is still read.
        const theirs = await kernel.listPageOverviews({ workspaceId: ws, userId: other });
        expect(theirs.map((o) => [o.facts.page?.id, o.facts.role, o.facts.grant])).toEqual([
          [secret, null, "read"],
          [doc, null, null],
        ]);
        expect(await kernel.listPageOverviews({ workspaceId: "no_such_ws", userId: owner })).toEqual([]);
      });

      it("answers display names of users and tokens, leaving out ids that name nothing", async () => {
        const { record } = await kernel.admin.createToken({
          userId: owner,
          holder: "agent",
          scopes: ["page.read"],
          label: "Hermes",
        });
        const many = Array.from({ length: 150 }, (_, i) => `nobody_${i}`);
        expect(
          await kernel.getDisplayNames({ userIds: [owner, owner, "", ...many], tokenIds: [record.id, "tok_none"] }),
        ).toEqual({
          users: { [owner]: "Owner" },
          tokens: { [record.id]: { holder: "agent", label: "Hermes", userId: owner } },
        });
      });

      it("a proposal without a page, key or detail is an audit record only", async () => {
        await kernel.appendAudit({
          identity: identity({ documentId: "" }),
          effect: "dry_run",
          outcome: "proposal",
          idempotencyKey: "k",
          payloadFingerprint: "fp",
          detail: { x: 1 },
        });
        await kernel.appendAudit({
          identity: identity(),
          effect: "dry_run",
          outcome: "proposal",
          idempotencyKey: "k",
          payloadFingerprint: "fp",
        });
        expect(await kernel.listProposals({ workspaceId: ws, documentId: doc })).toEqual([]);
        expect((await kernel.admin.tableSnapshot()).proposals).toEqual([]);
      });
    });

    it("stores tokens hashed, finds and revokes them", async () => {
      const { token, record } = await kernel.admin.createToken({
        userId: owner,
        holder: "agent",
        scopes: ["page.read"],
        ttlSeconds: 60,
      });
      const snapshot = JSON.stringify(await kernel.admin.tableSnapshot());
      expect(snapshot).not.toContain(token);
      const found = await kernel.findTokenByHash(hashToken(token));
      expect(found).toMatchObject({
        id: record.id,
        userId: owner,
        holder: "agent",
        scopes: ["page.read"],
        revokedAt: null,
      });
      await kernel.admin.revokeToken(record.id);
      expect((await kernel.findTokenByHash(hashToken(token)))?.revokedAt).not.toBeNull();
    });
  });
}

export {
  TEST_POSTGRES_URL,
  freshSchemaName,
  ensurePgliteTemplateSync,
  inCi,
  openTestPgliteDriver,
  openTestPgliteKernel,
  openTestPostgresDriver,
  openTestPostgresKernel,
  postgresAvailability,
  sharedPglite,
  type PostgresAvailability,
} from "../test-databases";
import { testIdentity } from "./support";
