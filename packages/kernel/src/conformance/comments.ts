import type { Block } from "@mnote/contract";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../clock";
import type { KernelOptions, SqlKernel } from "../sql-kernel";
import type { CallIdentity, CommentThreadQuery, ExecuteOutcome, KernelCommand } from "../types";
import { testIdentity } from "./support";

/**
 * Comment threads (decision 0040) on every database: the same suite runs on SQLite, PGlite and PostgreSQL.
 */
export function commentsSuite(name: string, openKernel: (options?: KernelOptions) => Promise<SqlKernel>) {
  describe(`comment threads: ${name}`, () => {
    let kernel: SqlKernel;
    let clock: ManualClock;
    let ws: string;
    let doc: string;
    let otherDoc: string;
    let owner: string;
    let counter = 0;

    const paragraph = (id: string, text: string): Block => ({ id, type: "paragraph", text });
    const body = (text: string): Block[] => [paragraph("c1", text)];

    const identity = (holder: "person" | "agent", documentId = doc): CallIdentity =>
      testIdentity({
        toolName: "mnote.comment.create",
        workspaceId: ws,
        documentId,
        actorId: owner,
        holder,
        toolCallId: `call_${++counter}`,
      });

    const run = (command: KernelCommand, holder: "person" | "agent" = "agent", documentId = doc) =>
      kernel.execute({
        identity: identity(holder, documentId),
        command,
        idempotency: { key: `key_${++counter}`, fingerprint: `fp_${counter}`, expiresAt: "2999-01-01T00:00:00.000Z" },
      });

    const applied = (outcome: ExecuteOutcome) => {
      if (outcome.kind !== "applied") throw new Error(`expected applied, got ${JSON.stringify(outcome)}`);
      return outcome;
    };

    const list = (query: Partial<CommentThreadQuery> = {}) =>
      kernel.listCommentThreads({ documentId: doc, includeResolved: false, limit: 50, ...query });

    beforeEach(async () => {
      clock = new ManualClock(new Date("2026-12-03T10:00:00.000Z"));
      kernel = await openKernel({ clock });
      const suffix = Math.random().toString(36).slice(2, 8);
      owner = (await kernel.admin.createUser({ id: `owner_${suffix}`, name: "Owner" })).id;
      ws = (await kernel.admin.createWorkspace({ id: `ws_${suffix}`, name: "WS", ownerId: owner })).id;
      const create = (id: string) =>
        kernel.admin.createPage({
          id,
          workspaceId: ws,
          title: "Plan",
          blocks: [paragraph("b_intro", "We ship on Friday."), paragraph("b_risk", "Risks: none")],
          createdBy: owner,
        });
      doc = (await create(`doc_${suffix}`)).id;
      otherDoc = (await create(`doc2_${suffix}`)).id;
    });
    afterEach(async () => {
      await kernel.close();
    });

    it("a thread on a block and a reply: ordered, attributed, traceable to their commands, the page unchanged", async () => {
      const started = applied(
        await run({
          name: "comment.create",
          anchor: { blockId: "b_intro", quote: "Friday" },
          body: body("Which Friday?"),
        }),
      );
      const { threadId } = started.result as { threadId: string; commentId: string };
      expect(started.revisionAfter).toBe(started.revisionBefore);
      clock.advance(1_000);
      const reply = applied(
        await run({ name: "comment.create", anchor: { threadId }, body: body("The 12th.") }, "person"),
      );
      expect(reply.result).toMatchObject({ threadId });

      const [thread, ...others] = await list();
      expect(others).toEqual([]);
      expect(thread).toMatchObject({
        id: threadId,
        blockId: "b_intro",
        quote: "Friday",
        detached: false,
        resolvedAt: null,
        createdAt: "2026-12-03T10:00:00.000Z",
        updatedAt: "2026-12-03T10:00:01.000Z",
      });
      expect(thread!.comments.map((c) => [c.author.holder, c.body[0]!.text])).toEqual([
        ["agent", "Which Friday?"],
        ["person", "The 12th."],
      ]);
      expect(thread!.comments[0]!.commandId).toBe(started.commandId);
      expect((await kernel.getCommand(reply.commandId))?.name).toBe("comment.create");
      expect((await kernel.getPage(doc))?.revision).toBe(1);
    });

    it("refuses an anchor the page does not hold and a thread of another page, writing nothing", async () => {
      expect(
        await run({ name: "comment.create", anchor: { blockId: "b_gone", quote: null }, body: body("?") }),
      ).toEqual({ kind: "rejected", message: "args.blockId: no block b_gone on this page" });
      expect(
        await run({ name: "comment.create", anchor: { blockId: "b_intro", quote: "Monday" }, body: body("?") }),
      ).toEqual({ kind: "rejected", message: "args.quote: block b_intro does not contain the quoted text" });
      const elsewhere = applied(
        await run(
          { name: "comment.create", anchor: { blockId: "b_intro", quote: null }, body: body("there") },
          "agent",
          otherDoc,
        ),
      );
      const { threadId } = elsewhere.result as { threadId: string };
      expect(await run({ name: "comment.create", anchor: { threadId }, body: body("here?") })).toEqual({
        kind: "rejected",
        message: `args.threadId: no thread ${threadId} on this page`,
      });
      expect(await run({ name: "comment.thread.setResolved", threadId, resolved: true }, "person")).toMatchObject({
        kind: "rejected",
      });
      expect(await list({ includeResolved: true })).toEqual([]);
      expect(await kernel.getCommentThreadFacts(threadId)).toEqual({ documentId: otherDoc, commentCount: 1 });
    });

    it("a thread whose block is deleted stays readable, detached; the block back attaches it again", async () => {
      applied(await run({ name: "comment.create", anchor: { blockId: "b_risk", quote: null }, body: body("Really?") }));
      const deleted = applied(
        await run({ name: "page.body.edit", operations: [{ op: "delete", blockIds: ["b_risk"] }] }, "person"),
      );
      const [thread] = await list();
      expect(thread).toMatchObject({ blockId: "b_risk", detached: true });
      expect(thread!.comments).toHaveLength(1);
      applied(await run({ name: "page.revert", targetCommandId: deleted.commandId }, "person"));
      expect((await list())[0]).toMatchObject({ blockId: "b_risk", detached: false });
    });

    it("resolve hides a thread unless asked, a reply reopens it, since and the position window the list", async () => {
      const threads: string[] = [];
      for (const text of ["one", "two", "three"]) {
        const outcome = applied(
          await run({ name: "comment.create", anchor: { blockId: "b_intro", quote: null }, body: body(text) }),
        );
        threads.push((outcome.result as { threadId: string }).threadId);
        clock.advance(1_000);
      }
      applied(await run({ name: "comment.thread.setResolved", threadId: threads[0]!, resolved: true }, "person"));
      // Resolving it again changes nothing and is no error.
      applied(await run({ name: "comment.thread.setResolved", threadId: threads[0]!, resolved: true }, "person"));
      expect((await list()).map((t) => t.id)).toEqual(threads.slice(1));
      const all = await list({ includeResolved: true });
      expect(all.map((t) => t.id)).toEqual(threads);
      expect(all[0]).toMatchObject({ resolvedAt: "2026-12-03T10:00:03.000Z", resolvedBy: { holder: "person" } });

      const firstTwo = await list({ includeResolved: true, limit: 2 });
      expect(firstTwo.map((t) => t.id)).toEqual(threads.slice(0, 2));
      const rest = await list({
        includeResolved: true,
        after: { createdAt: firstTwo[1]!.createdAt, id: firstTwo[1]!.id },
      });
      expect(rest.map((t) => t.id)).toEqual([threads[2]]);

      clock.advance(1_000);
      const mark = clock.now().toISOString();
      expect(await list({ since: mark, includeResolved: true })).toEqual([]);
      clock.advance(1_000);
      applied(await run({ name: "comment.create", anchor: { threadId: threads[0]! }, body: body("not yet") }));
      const changed = await list({ since: mark });
      // The page's latest activity is the reply's time, and since counts a thread changed at that very time in.
      const latest = await kernel.getLatestCommentActivity(doc);
      expect(latest).toBe(clock.now().toISOString());
      expect((await list({ since: latest! })).map((t) => t.id)).toEqual([threads[0]]);
      expect(await kernel.getLatestCommentActivity(otherDoc)).toBeNull();
      expect(changed.map((t) => [t.id, t.resolvedAt, t.comments.length])).toEqual([[threads[0], null, 2]]);
    });
  });
}
