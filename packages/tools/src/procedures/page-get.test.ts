import { type Block, LIMITS } from "@mnote/contract";
import { openSqliteDriver, SqlKernel } from "@mnote/kernel";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expectOk } from "../test-contract";
import { countingRows, createWorld } from "../test-support";

interface Window {
  blocks: Block[];
  bodySummary?: string;
  window: { start: number; count: number; totalBlocks: number; nextCursor: string | null };
}

const sqlite = () => SqlKernel.open(openSqliteDriver(":memory:"));
const blocksOf = (lengths: number[]): Block[] =>
  lengths.map((length, i) => ({ id: `g${i}`, type: "paragraph", text: `${i} ${"w".repeat(length)}` }));

describe("mnote.page.get blocks windows", () => {
  it(
    "a window is the longest run of blocks from its start within the budget and the limit, whatever the block sizes",
    { timeout: 180_000 },
    async () => {
      const w = await createWorld(sqlite);
      let n = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.oneof(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1_000, max: 19_000 })), {
            minLength: 1,
            maxLength: 400,
          }),
          fc.option(fc.integer({ min: 1, max: LIMITS.readWindowBlocks }), { nil: undefined }),
          fc.nat(),
          fc.boolean(),
          async (lengths, limit, startAt, includeBody) => {
            const blocks = blocksOf(lengths);
            const documentId = `win_${n++}`;
            await w.kernel.admin.createPage({
              id: documentId,
              workspaceId: w.ids.ws,
              title: "Window",
              blocks,
              createdBy: w.ids.owner,
            });
            const start = startAt % blocks.length;
            const args = { startBlockId: blocks[start]!.id, includeBody, ...(limit ? { limit } : {}) };
            const out = await w.call("mnote.page.get", w.envelope("mnote.page.get", args, { documentId }));
            const result = expectOk<Window>(out, "read");
            const { count } = result.window;
            expect(result.window).toMatchObject({ start, totalBlocks: blocks.length });
            expect(result.blocks).toEqual(blocks.slice(start, start + count));
            expect(count).toBeGreaterThanOrEqual(1);
            expect(count).toBeLessThanOrEqual(limit ?? LIMITS.readWindowBlocks);
            // Within the budget unless it is the one block a window always carries.
            const answered = JSON.stringify(out.result).length;
            if (count > 1) expect(answered).toBeLessThanOrEqual(LIMITS.readBudget + 200);
            // Nothing left out that fits: the next block would break the budget or the limit, or there is none.
            const next = blocks[start + count];
            expect(result.window.nextCursor === null).toBe(next === undefined);
            if (next && count < (limit ?? LIMITS.readWindowBlocks))
              expect(answered + JSON.stringify(next).length + 1).toBeGreaterThan(LIMITS.readBudget - 200);
          },
        ),
        { numRuns: 40 },
      );
      await w.kernel.close();
    },
  );

  it("reads about as many rows as the window answers, not the 500-block limit", { timeout: 60_000 }, async () => {
    const counted = countingRows(await sqlite());
    const w = await createWorld(() => Promise.resolve(counted.kernel));
    const blocks = blocksOf(Array.from({ length: 1_000 }, () => 100));
    await w.kernel.admin.createPage({
      id: "long",
      workspaceId: w.ids.ws,
      title: "Long",
      blocks,
      createdBy: w.ids.owner,
    });
    // bodySummary (on by default) reads the page's first 64 rows: shared with a window from the top, else its own read.
    const cases = [
      { args: {}, summaryRows: 0 },
      { args: { includeBody: false }, summaryRows: 0 },
      { args: { startBlockId: "g500", includeBody: false }, summaryRows: 0 },
      { args: { startBlockId: "g500" }, summaryRows: 64 },
    ];
    for (const { args, summaryRows } of cases) {
      counted.counter.rows = 0;
      const result = expectOk<Window>(
        await w.call("mnote.page.get", w.envelope("mnote.page.get", args, { documentId: "long" })),
        "read",
      );
      expect(result.window.count).toBeGreaterThan(100);
      expect(result.window.count).toBeLessThan(LIMITS.readWindowBlocks);
      // At most one short read past what the budget takes (the old read took limit + 1 rows: 501).
      expect(counted.counter.rows - summaryRows).toBeLessThanOrEqual(Math.ceil(result.window.count * 1.15) + 16);
    }
    await w.kernel.close();
  });
});
