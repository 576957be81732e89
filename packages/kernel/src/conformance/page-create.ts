import type { Block } from "@mnote/contract";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CREATED_PAGE_CHANGED } from "../command-appliers";
import type { KernelOptions, SqlKernel } from "../sql-kernel";
import type { CallIdentity, ExecuteOutcome, KernelCommand } from "../types";
import { testIdentity } from "./support";

/**
 * `page.create` and its revert (issue 34, decision 0046) on every database: the same suite runs on SQLite, PGlite
 * and PostgreSQL.
 */
export function pageCreateSuite(name: string, openKernel: (options?: KernelOptions) => Promise<SqlKernel>) {
  describe(`page.create: ${name}`, () => {
    let kernel: SqlKernel;
    let ws: string;
    let owner: string;
    let counter = 0;

    const blocks = (...texts: string[]): Block[] => texts.map((text, i) => ({ id: `b${i}`, type: "paragraph", text }));

    const identity = (documentId: string, toolName = "mnote.page.create"): CallIdentity =>
      testIdentity({
        toolName,
        workspaceId: ws,
        documentId,
        actorId: owner,
        holder: "agent",
        toolCallId: `call_${++counter}`,
      });

    const create = (
      documentId: string,
      key: string,
      extra: Partial<Extract<KernelCommand, { name: "page.create" }>> = {},
    ) =>
      kernel.execute({
        identity: identity(documentId),
        command: {
          name: "page.create",
          title: "Runbook",
          isPrivate: false,
          ownerId: owner,
          blocks: blocks("one", "two"),
          ...extra,
        },
        idempotency: { key, fingerprint: `fp_${JSON.stringify(extra)}`, expiresAt: "2999-01-01T00:00:00.000Z" },
      });

    const run = (documentId: string, command: KernelCommand, toolName = "panel.page.revert") =>
      kernel.execute({
        identity: identity(documentId, toolName),
        command,
        idempotency: { key: `key_${++counter}`, fingerprint: `fp_${counter}`, expiresAt: "2999-01-01T00:00:00.000Z" },
      });

    const applied = (outcome: ExecuteOutcome) => {
      if (outcome.kind !== "applied") throw new Error(`expected applied, got ${JSON.stringify(outcome)}`);
      return outcome;
    };

    beforeEach(async () => {
      kernel = await openKernel();
      const suffix = Math.random().toString(36).slice(2, 8);
      owner = (await kernel.admin.createUser({ id: `owner_${suffix}`, name: "Owner" })).id;
      ws = (await kernel.admin.createWorkspace({ id: `ws_${suffix}`, name: "WS", ownerId: owner })).id;
    });
    afterEach(async () => {
      await kernel.close();
    });

    it("creates the page with its body at revision 1, its command traceable to the page", async () => {
      const outcome = applied(await create("doc_new1", "k1"));
      expect(outcome).toMatchObject({ commandName: "page.create", revisionBefore: 0, revisionAfter: 1 });
      expect(outcome.result).toMatchObject({ documentId: "doc_new1", revision: 1 });
      expect(await kernel.getPage("doc_new1")).toMatchObject({
        workspaceId: ws,
        title: "Runbook",
        revision: 1,
        isPrivate: false,
        blockCount: 2,
      });
      expect((await kernel.getBlocks("doc_new1")).map((b) => b.text)).toEqual(["one", "two"]);
      expect((await kernel.getCommand(outcome.commandId))?.identity.documentId).toBe("doc_new1");
      expect((await kernel.admin.listPages(ws)).map((p) => p.id)).toEqual(["doc_new1"]);
    });

    it("a retry replays; another payload under the key is a conflict and writes nothing", async () => {
      const first = applied(await create("doc_new2", "k2"));
      const again = await create("doc_new2", "k2");
      expect(again).toEqual({ kind: "replayed", commandId: first.commandId, result: first.result });
      expect(await create("doc_new2", "k2", { title: "Other" })).toEqual({ kind: "idempotency_conflict" });
      expect(await kernel.getPage("doc_new2")).toMatchObject({ title: "Runbook", revision: 1 });
    });

    it("a private page is granted to its owner only", async () => {
      const reader = (await kernel.admin.createUser({ name: "Reader" })).id;
      await kernel.admin.addMember({ workspaceId: ws, userId: reader, role: "editor" });
      applied(await create("doc_private", "k3", { isPrivate: true }));
      expect(await kernel.getAccessFacts({ workspaceId: ws, documentId: "doc_private", userId: owner })).toMatchObject({
        page: { isPrivate: true },
        grant: "write",
      });
      expect(await kernel.getAccessFacts({ workspaceId: ws, documentId: "doc_private", userId: reader })).toMatchObject(
        {
          page: { isPrivate: true },
          grant: null,
        },
      );
    });

    it("a create whose blocks repeat an id is rejected and leaves no page", async () => {
      const twice: Block[] = [
        { id: "same", type: "paragraph", text: "a" },
        { id: "same", type: "paragraph", text: "b" },
      ];
      expect(await create("doc_bad", "k4", { blocks: twice })).toMatchObject({ kind: "rejected" });
      expect(await kernel.getPage("doc_bad")).toBeNull();
    });

    it("its revert removes the page: every read then finds it missing", async () => {
      const created = applied(await create("doc_gone", "k5"));
      const searchRunbook = () =>
        kernel.searchWorkspace({
          workspaceId: ws,
          readers: [owner],
          words: ["runbook"],
          documentIds: null,
          after: null,
          limit: 5,
        });
      expect((await searchRunbook()).map((hit) => hit.documentId)).toEqual(["doc_gone"]);
      const revert = applied(
        await run("doc_gone", { name: "page.revert", targetCommandId: created.commandId, removePage: true }),
      );
      expect(revert.result).toMatchObject({ targetCommandId: created.commandId, removed: true });
      expect(await kernel.getPage("doc_gone")).toBeNull();
      expect(await kernel.getBlocks("doc_gone")).toEqual([]);
      expect((await kernel.getAccessFacts({ workspaceId: ws, documentId: "doc_gone", userId: owner })).page).toBeNull();
      expect(await kernel.admin.listPages(ws)).toEqual([]);
      expect(await kernel.listPageOverviews({ workspaceId: ws, userId: owner })).toEqual([]);
      // Its title stays in the row (and the index), but a removed page is no hit.
      expect(await searchRunbook()).toEqual([]);
      // Nothing writes to a removed page any more, and the creation's key still replays what it answered.
      expect(
        await run("doc_gone", { name: "page.head.updateTitle", title: "Back" }, "mnote.page.update_title"),
      ).toEqual({
        kind: "page_missing",
      });
      expect(await create("doc_gone", "k5")).toEqual({
        kind: "replayed",
        commandId: created.commandId,
        result: created.result,
      });
    });

    it("its revert is refused once anything else was written to the page", async () => {
      const created = applied(await create("doc_kept", "k6"));
      applied(await run("doc_kept", { name: "page.head.updateTitle", title: "Runbook v2" }, "mnote.page.update_title"));
      expect(
        await run("doc_kept", { name: "page.revert", targetCommandId: created.commandId, removePage: true }),
      ).toEqual({ kind: "rejected", message: CREATED_PAGE_CHANGED });
      expect(await kernel.getPage("doc_kept")).toMatchObject({ title: "Runbook v2", revision: 2 });
    });

    it("the states around the creation are nothing before, the page after", async () => {
      const created = applied(await create("doc_states", "k7"));
      const states = await kernel.getCommandStates(created.commandId);
      expect(states?.before.blocks).toEqual([]);
      expect(states?.after.blocks.map((b) => b.text)).toEqual(["one", "two"]);
    });
  });
}
