import type { Block, DryRunResult } from "@mnote/contract";
import type { SqlKernel } from "@mnote/kernel";
import { describe, expect, it } from "vitest";
import { createToolsContext } from "./context";
import { createCaller } from "./root";
import { expectFailure, expectOk, snapshot } from "./test-contract";
import { testKernels } from "./test-kernels";
import { createWorld, withBody } from "./test-support";

const paragraphs = (count: number, prefix = "p"): Block[] =>
  Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${i}`,
    type: "paragraph",
    text: `Paragraph ${i} of the long page.`,
  }));

/** The real kernel, with a record of which reads a call made. */
function watched(kernel: SqlKernel) {
  const reads: Array<{ method: string; ids?: readonly string[] }> = [];
  const proxy = new Proxy(kernel, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (property === "getBlocks" || property === "getPageStateBefore") reads.push({ method: property });
        if (property === "findBlocks" || property === "findBlockIds")
          reads.push({ method: property, ids: args[1] as string[] });
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { kernel: proxy, reads };
}

describe.each(testKernels())("mnote.page.edit ($name)", ({ open }) => {
  it(
    "changes only the blocks it names, answers the new revision and the inserted ids",
    { timeout: 60_000 },
    async () => {
      const w = await createWorld(open);
      const revision = await withBody(w, paragraphs(6));
      const out = await w.call(
        "mnote.page.edit",
        w.envelope("mnote.page.edit", {
          baseRevision: revision,
          operations: [
            { op: "replace", blockId: "p1", text: "Changed." },
            {
              op: "insert",
              after: "p3",
              blocks: [
                { type: "heading", level: 2, text: "New section" },
                { type: "paragraph", text: "Body" },
              ],
            },
            { op: "delete", blockIds: ["p4"] },
            { op: "move", blockId: "p0", at: "end" },
          ],
        }),
      );
      const result = expectOk<{ revision: number; insertedBlockIds: string[]; commandName: string }>(out, "write");
      expect(result).toMatchObject({ commandName: "page.body.edit", revision: revision + 1 });
      expect(result.insertedBlockIds).toHaveLength(2);
      const [h, b] = result.insertedBlockIds;
      expect((await w.kernel.getBlocks(w.ids.page)).map((block) => [block.id, block.text])).toEqual([
        ["p1", "Changed."],
        ["p2", "Paragraph 2 of the long page."],
        ["p3", "Paragraph 3 of the long page."],
        [h, "New section"],
        [b, "Body"],
        ["p5", "Paragraph 5 of the long page."],
        ["p0", "Paragraph 0 of the long page."],
      ]);
      const command = await w.kernel.getCommand(out.audit.commandId!);
      expect(command).toMatchObject({ name: "page.body.edit", identity: { toolName: "mnote.page.edit" } });
      const [record] = await w.kernel.listAudit({ documentId: w.ids.page, limit: 1 });
      expect(record).toMatchObject({
        effect: "write",
        commandId: out.audit.commandId,
        detail: {
          diff: [
            { op: "insert", blocks: 2 },
            { op: "delete", blocks: 1 },
            { op: "update", blocks: 1 },
            { op: "move", blocks: 1 },
          ],
        },
      });
      await w.kernel.close();
    },
  );

  it(
    "refuses a stale base revision and an unknown block, naming the operation, writing nothing",
    { timeout: 60_000 },
    async () => {
      const w = await createWorld(open);
      const before = await snapshot(w);
      const stale = await w.call(
        "mnote.page.edit",
        w.envelope("mnote.page.edit", { baseRevision: 0, operations: [{ op: "replace", blockId: "p1", text: "x" }] }),
      );
      expectFailure(stale, "mnote_tool_conflict");
      for (const dryRun of [true, false]) {
        const unknown = await w.call(
          "mnote.page.edit",
          w.envelope(
            "mnote.page.edit",
            {
              operations: [
                { op: "replace", blockId: "p1", text: "x" },
                { op: "move", blockId: "gone", after: "h1" },
              ],
            },
            { dryRun },
          ),
        );
        expectFailure(unknown, "mnote_tool_invalid_input", "args.operations[1]: block gone is not on the page");
      }
      const after = await snapshot(w);
      expect({ ...after, audit_log: [] }).toEqual({ ...before, audit_log: [] });
      await w.kernel.close();
    },
  );

  it("dry-runs and writes the same inserted ids for one key, and a retry replays", { timeout: 60_000 }, async () => {
    const w = await createWorld(open);
    const args = { operations: [{ op: "insert", at: "start", blocks: [{ type: "quote", text: "First" }] }] };
    const dry = await w.call(
      "mnote.page.edit",
      w.envelope("mnote.page.edit", args, { dryRun: true, idempotencyKey: "k1" }),
    );
    const preview = expectOk<DryRunResult>(dry, "dry_run");
    const real = await w.call("mnote.page.edit", w.envelope("mnote.page.edit", args, { idempotencyKey: "k1" }));
    const result = expectOk<{ insertedBlockIds: string[] }>(real, "write");
    expect(preview.changes).toEqual([
      { kind: "insert", index: 0, block: { id: result.insertedBlockIds[0], type: "quote", text: "First" } },
    ]);
    const retry = await w.call("mnote.page.edit", w.envelope("mnote.page.edit", args, { idempotencyKey: "k1" }));
    expect(retry.audit.commandId).toBe(real.audit.commandId);
    expect((await w.kernel.getBlocks(w.ids.page)).length).toBe(3);
    await w.kernel.close();
  });

  it("a dry run on a 10,000-block page reads only the blocks it names", { timeout: 120_000 }, async () => {
    const w = await createWorld(open);
    const revision = await withBody(w, paragraphs(10_000));
    const { kernel, reads } = watched(w.kernel);
    const ctx = createToolsContext({ kernel, authorization: `Bearer ${w.tokens.ownerAgent}` });
    const dry = await createCaller(ctx).mnote.page.edit(
      w.envelope(
        "mnote.page.edit",
        { baseRevision: revision, operations: [{ op: "replace", blockId: "p5000", text: "One paragraph, changed." }] },
        { dryRun: true },
      ) as never,
    );
    const preview = expectOk<DryRunResult>(dry, "dry_run");
    expect(preview.changes).toEqual([
      {
        kind: "update",
        index: 5000,
        before: paragraphs(10_000)[5000],
        after: { id: "p5000", type: "paragraph", text: "One paragraph, changed." },
      },
    ]);
    expect(reads).toEqual([{ method: "findBlocks", ids: ["p5000"] }]);
    await w.kernel.close();
  });
});

describe.each(testKernels())("windowed mnote.page.get ($name)", ({ open }) => {
  it(
    "answers any page within the budget, and the cursors walk every block once, in order",
    { timeout: 120_000 },
    async () => {
      const w = await createWorld(open);
      const blocks = paragraphs(1_000);
      const revision = await withBody(w, blocks);
      const seen: string[] = [];
      let cursor: string | undefined;
      let answers = 0;
      do {
        const out = await w.call("mnote.page.get", w.envelope("mnote.page.get", cursor ? { cursor } : {}));
        const result = expectOk<{
          blocks: Block[];
          revision: number;
          window: { nextCursor: string | null; start: number; count: number; totalBlocks: number };
        }>(out, "read");
        expect(JSON.stringify(out).length).toBeLessThanOrEqual(33_000);
        expect(result.revision).toBe(revision);
        expect(result.window).toMatchObject({ start: seen.length, count: result.blocks.length, totalBlocks: 1_000 });
        seen.push(...result.blocks.map((block) => block.id));
        cursor = result.window.nextCursor ?? undefined;
        answers++;
      } while (cursor);
      expect(seen).toEqual(blocks.map((block) => block.id));
      expect(answers).toBeGreaterThan(1);
      await w.kernel.close();
    },
  );

  it(
    "reads a window by block id and count, an outline and a search, each with the revision",
    { timeout: 60_000 },
    async () => {
      const w = await createWorld(open);
      const body: Block[] = [
        { id: "t", type: "heading", level: 1, text: "Title" },
        ...paragraphs(3, "a"),
        { id: "s", type: "heading", level: 2, text: "Section" },
        { id: "needle", type: "paragraph", text: `${"x".repeat(100)} the Needle is here ${"y".repeat(200)}` },
      ];
      const revision = await withBody(w, body);
      const read = async (args: Record<string, unknown>) =>
        expectOk<Record<string, unknown>>(await w.call("mnote.page.get", w.envelope("mnote.page.get", args)), "read");
      expect(await read({ startBlockId: "a1", limit: 2, includeBody: false, includeOptions: false })).toMatchObject({
        revision,
        blocks: [body[2], body[3]],
        window: { start: 2, count: 2, totalBlocks: 6, nextCursor: expect.any(String) },
      });
      expect(await read({ outline: true })).toMatchObject({
        revision,
        outline: [
          { id: "t", index: 0, level: 1, text: "Title", blocksUnder: 3 },
          { id: "s", index: 4, level: 2, text: "Section", blocksUnder: 1 },
        ],
      });
      const found = await read({ search: "needle" });
      expect(found).toMatchObject({
        revision,
        matches: [{ id: "needle", index: 5, type: "paragraph" }],
        window: { nextCursor: null },
      });
      const snippet = (found.matches as Array<{ snippet: string }>)[0]!.snippet;
      expect(snippet).toContain("the Needle is here");
      expect(snippet.length).toBeLessThan(200);
      const outlineCursor = ((await read({ outline: true, limit: 1 })).window as { nextCursor: string }).nextCursor;
      expect(await read({ outline: true, cursor: outlineCursor })).toMatchObject({ outline: [{ id: "s" }] });
      expectFailure(
        await w.call("mnote.page.get", w.envelope("mnote.page.get", { cursor: outlineCursor })),
        "mnote_tool_invalid_input",
        /args.cursor/,
      );
      await w.kernel.close();
    },
  );
});

describe.each(testKernels())("page.save replace guard ($name)", ({ open }) => {
  it(
    "refuses a replace that deletes most of the page unless allowDeletes, and the dry run warns",
    { timeout: 60_000 },
    async () => {
      const w = await createWorld(open);
      await withBody(w, paragraphs(10));
      const args = {
        content: [
          { id: "p0", type: "paragraph", text: "only this" },
          { type: "paragraph", text: "and a new one" },
        ],
      };
      const dry = expectOk<DryRunResult>(
        await w.call("mnote.page.save", w.envelope("mnote.page.save", args, { dryRun: true })),
        "dry_run",
      );
      expect(dry.warnings).toEqual([
        {
          code: "deletes_many_blocks",
          field: "content",
          message: expect.stringContaining("would delete 9 of the page's 10 blocks"),
        },
      ]);
      const before = await snapshot(w);
      expectFailure(
        await w.call("mnote.page.save", w.envelope("mnote.page.save", args)),
        "mnote_tool_invalid_input",
        /allowDeletes: true/,
      );
      expect({ ...(await snapshot(w)), audit_log: [] }).toEqual({ ...before, audit_log: [] });
      expectOk(
        await w.call("mnote.page.save", w.envelope("mnote.page.save", { ...args, allowDeletes: true })),
        "write",
      );
      expect((await w.kernel.getBlocks(w.ids.page)).map((block) => block.text)).toEqual(["only this", "and a new one"]);
      // A short page rewritten loses at most a few blocks: no refusal.
      expectOk(
        await w.call("mnote.page.save", w.envelope("mnote.page.save", { content: [{ type: "quote", text: "new" }] })),
        "write",
      );
      await w.kernel.close();
    },
  );
});

describe("panel: page.edit proposals", () => {
  it("shows an agent's edit, applies part of it per operation, and reverts it", { timeout: 60_000 }, async () => {
    const w = await createWorld();
    await w.kernel.admin.setWorkspacePolicy(w.ids.ws, { approvalRequired: true }, { by: "test-setup" });
    const panel = createCaller(
      createToolsContext({ kernel: w.kernel, authorization: `Bearer ${w.tokens.owner}`, door: "panel" }),
    ).panel;
    const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
    const args = {
      operations: [
        { op: "replace", blockId: "p1", text: "Agent's paragraph" },
        {
          op: "insert",
          at: "end",
          blocks: [
            { type: "paragraph", text: "kept" },
            { type: "paragraph", text: "dropped" },
          ],
        },
      ],
    };
    const held = await w.call("mnote.page.edit", w.envelope("mnote.page.edit", args), w.tokens.ownerAgent);
    expectFailure(held, "mnote_tool_approval_required");
    const [proposal] = await panel.proposals.list(ref);
    expect(proposal).toMatchObject({ toolName: "mnote.page.edit", held: true, status: "pending" });
    const { preview } = await panel.proposals.get({ ...ref, proposalId: proposal!.id });
    expect(preview.changes.map((change) => change.kind)).toEqual(["update", "insert", "insert"]);
    const applied = await panel.proposals.applyPart({ ...ref, proposalId: proposal!.id, keep: [0, 1] });
    expect(applied).toMatchObject({ ok: true, result: { commandName: "page.body.edit", revision: 2 } });
    expect((await w.kernel.getBlocks(w.ids.page)).map((block) => block.text)).toEqual([
      "Plan",
      "Agent's paragraph",
      "kept",
    ]);
    expect((await panel.proposals.get({ ...ref, proposalId: proposal!.id })).leftOut).toEqual([2]);
    const revert = await panel.page.revert({ ...ref, commandId: applied.audit.commandId! });
    expect(revert.envelope).toMatchObject({ ok: true, audit: { effect: "dry_run" } });
    expect(await panel.proposals.approve({ ...ref, proposalId: revert.proposalId! })).toMatchObject({ ok: true });
    expect((await w.kernel.getBlocks(w.ids.page)).map((block) => block.text)).toEqual(["Plan", "First paragraph"]);
    await w.kernel.close();
  });
});
