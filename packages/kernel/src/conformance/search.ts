import type { Block } from "@mnote/contract";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KernelOptions, SqlKernel } from "../sql-kernel";
import type { KernelCommand } from "../types";
import { searchWords } from "../search-words";
import type { SearchPosition } from "../search";
import { testIdentity } from "./support";

/**
 * The workspace search's index and reads (issue 34, decision 0045) on every database: the same suite runs on SQLite,
 * PGlite and PostgreSQL, so the engines' full-text searches give the same hits in the same order.
 */
export function searchSuite(name: string, openKernel: (options?: KernelOptions) => Promise<SqlKernel>) {
  describe(`workspace search: ${name}`, () => {
    let kernel: SqlKernel;
    let ws: string;
    let otherWs: string;
    let owner: string;
    let reader: string;
    let plan: string;
    let notes: string;
    let secret: string;
    let counter = 0;

    const paragraph = (id: string, text: string): Block => ({ id, type: "paragraph", text });
    const run = (documentId: string, command: KernelCommand, toolName = "mnote.page.save") => {
      const identity = testIdentity({
        toolName,
        workspaceId: ws,
        documentId,
        actorId: owner,
        holder: "person",
        toolCallId: `call_${++counter}`,
      });
      return kernel.execute({
        identity,
        command,
        idempotency: { key: `key_${counter}`, fingerprint: `fp_${counter}`, expiresAt: "2999-01-01T00:00:00.000Z" },
      });
    };
    const search = async (
      text: string,
      readers = [owner],
      options: { documentIds?: string[]; after?: SearchPosition; limit?: number; workspaceId?: string } = {},
    ) =>
      (
        await kernel.searchWorkspace({
          workspaceId: options.workspaceId ?? ws,
          readers,
          words: searchWords(text),
          documentIds: options.documentIds ?? null,
          after: options.after ?? null,
          limit: options.limit ?? 20,
        })
      ).map((hit) => `${hit.documentId}:${hit.blockId ?? "title"}`);

    beforeEach(async () => {
      kernel = await openKernel();
      const suffix = Math.random().toString(36).slice(2, 8);
      owner = (await kernel.admin.createUser({ id: `owner_${suffix}`, name: "Owner" })).id;
      reader = (await kernel.admin.createUser({ id: `reader_${suffix}`, name: "Reader" })).id;
      ws = (await kernel.admin.createWorkspace({ id: `ws_${suffix}`, name: "WS", ownerId: owner })).id;
      otherWs = (await kernel.admin.createWorkspace({ id: `wz_${suffix}`, name: "Other", ownerId: owner })).id;
      await kernel.admin.addMember({ workspaceId: ws, userId: reader, role: "viewer" });
      const page = async (id: string, title: string, blocks: Block[], isPrivate = false, workspaceId = ws) =>
        (await kernel.admin.createPage({ id, workspaceId, title, blocks, isPrivate, createdBy: owner })).id;
      plan = await page("a_plan", "项目计划", [
        paragraph("p1", "Launch date is Friday"),
        paragraph("p2", "本周的计划：发布"),
      ]);
      notes = await page("b_notes", "Meeting notes", [paragraph("n1", "We decided the launch date")]);
      secret = await page("c_secret", "Secret launch", [paragraph("s1", "launch budget")], true);
      await page("d_elsewhere", "Launch elsewhere", [paragraph("e1", "launch")], false, otherWs);
      await kernel.admin.grantPage({ documentId: secret, userId: owner, access: "write" });
    });
    afterEach(async () => {
      await kernel.close();
    });

    it("finds titles first, then blocks in the order they were written, in this workspace only", async () => {
      expect(await search("launch")).toEqual([`${secret}:title`, `${plan}:p1`, `${notes}:n1`, `${secret}:s1`]);
      expect(await search("LAUNCH date")).toEqual([`${plan}:p1`, `${notes}:n1`]);
      expect(await search("nothing-like-it")).toEqual([]);
    });

    it("a Chinese word finds the longer words it is part of: 计划 finds 项目计划 and 本周的计划", async () => {
      expect(await search("计划")).toEqual([`${plan}:title`, `${plan}:p2`]);
      expect(await search("项目计划")).toEqual([`${plan}:title`]);
      expect(await search("发布")).toEqual([`${plan}:p2`]);
    });

    it("searches only pages every reader may read: a private page without a grant is no hit", async () => {
      expect(await search("launch", [reader])).toEqual([`${plan}:p1`, `${notes}:n1`]);
      expect(await search("launch", [owner, reader])).toEqual([`${plan}:p1`, `${notes}:n1`]);
      await kernel.admin.grantPage({ documentId: secret, userId: reader, access: "read" });
      expect(await search("launch", [owner, reader])).toContain(`${secret}:s1`);
      expect(await search("launch", [reader], { documentIds: [notes, secret] })).toEqual([
        `${secret}:title`,
        `${notes}:n1`,
        `${secret}:s1`,
      ]);
    });

    it("windows end where the last hit was, title or block", async () => {
      const all = await search("launch");
      const first = await kernel.searchWorkspace({
        workspaceId: ws,
        readers: [owner],
        words: ["launch"],
        documentIds: null,
        after: null,
        limit: 2,
      });
      expect(first.map((hit) => `${hit.documentId}:${hit.blockId ?? "title"}`)).toEqual(all.slice(0, 2));
      const last = first.at(-1)!;
      const rest = await search("launch", [owner], {
        after: { phase: "block", documentId: last.documentId, blockId: last.blockId! },
      });
      expect(rest).toEqual(all.slice(2));
      // A cursor naming a block the readers may not read is refused exactly like one naming no block at all.
      const refused = (after: SearchPosition) => search("launch", [reader], { after });
      await expect(refused({ phase: "block", documentId: secret, blockId: "s1" })).rejects.toThrow(/cursor/);
      await expect(refused({ phase: "block", documentId: secret, blockId: "nope" })).rejects.toThrow(/cursor/);
      expect(await search("launch", [owner], { after: { phase: "title", documentId: secret } })).toEqual(all.slice(1));
    });

    it("keeps the index current with every write: edit, save, title, revert", async () => {
      await run(
        plan,
        { name: "page.body.edit", operations: [{ op: "replace", blockId: "p1", text: "Launch moved to 星期一" }] },
        "mnote.page.edit",
      );
      expect(await search("friday")).toEqual([]);
      expect(await search("星期一")).toEqual([`${plan}:p1`]);
      await run(notes, { name: "page.body.save", mode: "replace", blocks: [paragraph("n2", "Budget review")] });
      expect(await search("decided")).toEqual([]);
      // n2 was written after s1: block hits come in written order.
      expect(await search("budget")).toEqual([`${secret}:s1`, `${notes}:n2`]);
      const retitled = await run(
        notes,
        { name: "page.head.updateTitle", title: "Quarterly 计划" },
        "mnote.page.update_title",
      );
      expect(await search("计划")).toEqual([`${plan}:title`, `${notes}:title`, `${plan}:p2`]);
      expect(retitled.kind).toBe("applied");
      if (retitled.kind !== "applied") return;
      await run(notes, { name: "page.revert", targetCommandId: retitled.commandId }, "panel.page.revert");
      expect(await search("计划")).toEqual([`${plan}:title`, `${plan}:p2`]);
      expect(await search("meeting")).toEqual([`${notes}:title`]);
    });

    it("a word on every page: each window holds `limit` hits, and its cursor goes on without repeats or gaps", async () => {
      const pages = 12;
      for (let i = 0; i < pages; i++)
        await kernel.admin.createPage({
          id: `w_${i}`,
          workspaceId: ws,
          title: `Week ${i}`,
          blocks: [
            paragraph(`w${i}a`, "status everywhere"),
            paragraph(`w${i}b`, "other"),
            paragraph(`w${i}c`, "status"),
          ],
          isPrivate: i % 4 === 3,
          createdBy: owner,
        });
      const expected = Array.from({ length: pages }, (_, i) => i)
        .filter((i) => i % 4 !== 3)
        .flatMap((i) => [`w_${i}:w${i}a`, `w_${i}:w${i}c`]);
      const seen: string[] = [];
      let after: SearchPosition | undefined;
      for (let round = 0; round < 20; round++) {
        const window = await kernel.searchWorkspace({
          workspaceId: ws,
          readers: [reader],
          words: ["status"],
          documentIds: null,
          after: after ?? null,
          limit: 5,
        });
        if (window.length === 0) break;
        expect(window.length).toBe(Math.min(5, expected.length - seen.length));
        seen.push(...window.map((hit) => `${hit.documentId}:${hit.blockId}`));
        const last = window.at(-1)!;
        after = { phase: "block", documentId: last.documentId, blockId: last.blockId! };
      }
      expect(seen).toEqual(expected);
    });
  });
}
