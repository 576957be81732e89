import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Block } from "@mnote/contract";
import { type LocatedBlock, openSqliteDriver, type PageRecord, SqlKernel } from "@mnote/kernel";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { callTool } from "./call-tool";
import { createToolsContext } from "./context";
import { blocksJson, DEFAULT_READ_CACHE_BYTES, ReadCache, readCacheOf, windowOf } from "./read-cache";
import { expectOk } from "./test-contract";
import { testKernels } from "./test-kernels";
import { countingRows, createWorld, withBody } from "./test-support";

const page = (revision: number, createdAt = "2026-12-02T00:00:00.000Z"): PageRecord => ({
  id: "doc",
  workspaceId: "ws",
  title: "t",
  isPrivate: false,
  options: {} as PageRecord["options"],
  revision,
  blockCount: 1,
  createdAt,
});
const windowOfTexts = (...texts: string[]) => {
  const blocks: Block[] = texts.map((text, i) => ({ id: `b${i}`, type: "paragraph", text }));
  const rows: LocatedBlock[] = blocks.map((block, index) => ({ block, index }));
  return windowOf(
    rows,
    blocks,
    blocks.map((block) => JSON.stringify(block)),
  );
};

describe("ReadCache", () => {
  it("keys one state of one page: its id, its creation and its revision", () => {
    expect(ReadCache.key(page(1), "x")).not.toBe(ReadCache.key(page(2), "x"));
    // A page made again under the same id (a seed after the database was emptied) starts again at revision 1.
    expect(ReadCache.key(page(1), "x")).not.toBe(ReadCache.key(page(1, "2026-12-03T00:00:00.000Z"), "x"));
    expect(ReadCache.key(page(1), "x")).toBe(ReadCache.key(page(1), "x"));
  });

  it("keeps at most about maxBytes of memory (8 bytes per JSON character), the least recently used out first; what it keeps is frozen", () => {
    const cache = new ReadCache(150 * 8);
    const a = windowOfTexts("a".repeat(20));
    const b = windowOfTexts("b".repeat(20));
    const c = windowOfTexts("c".repeat(20));
    cache.set("a", a);
    cache.set("b", b);
    expect(cache.get("a")).toBe(a); // a is now the most recently used
    cache.set("c", c);
    expect(cache.size.bytes).toBeLessThanOrEqual(150 * 8);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBe(a);
    expect(cache.get("c")).toBe(c);
    expect(Object.isFrozen(a.blocks[0])).toBe(true);
    expect(() => (a.blocks as Block[]).push(a.blocks[0]!)).toThrow(TypeError);
    // Larger than the whole cache: not kept, nothing else lost.
    cache.set("huge", windowOfTexts("x".repeat(200)));
    expect(cache.get("huge")).toBeUndefined();
    expect(cache.get("c")).toBe(c);
    // The JSON of a window's own blocks array, and of nothing else.
    expect(blocksJson(a.blocks)).toBe(a.json);
    expect(blocksJson([...a.blocks])).toBeUndefined();
  });
});

describe.each(testKernels())("page.get reads through the read cache on $name", ({ open }) => {
  it("a second read of one page state reads no rows and answers the same; a write's new state is read", async () => {
    let counter = { rows: 0 };
    const w = await createWorld(async () => {
      const counted = countingRows(await open());
      counter = counted.counter;
      return counted.kernel;
    });
    const body = Array.from({ length: 300 }, (_, i): Block => ({ id: `c${i}`, type: "paragraph", text: `row ${i}` }));
    await withBody(w, body);
    const read = async (settings?: { readCacheBytes: number }) =>
      expectOk(await w.call("mnote.page.get", w.envelope("mnote.page.get"), w.tokens.owner, settings));
    counter.rows = 0;
    const first = await read();
    expect(counter.rows).toBeGreaterThan(0);
    counter.rows = 0;
    const second = await read();
    expect(counter.rows).toBe(0);
    expect(second).toEqual(first);
    // With the cache off the same state is read again, and is the same.
    expect(await read({ readCacheBytes: 0 })).toEqual(first);
    expect(counter.rows).toBeGreaterThan(0);

    // A Markdown read of the same window uses the same rows; a window further on is a state of its own.
    const cache = readCacheOf(w.kernel, DEFAULT_READ_CACHE_BYTES)!;
    const entries = cache.size.entries;
    counter.rows = 0;
    const markdown = await w.call(
      "mnote.page.get",
      w.envelope("mnote.page.get", { format: "markdown" }),
      w.tokens.owner,
    );
    expect(expectOk(markdown)).toMatchObject({ markdown: expect.stringContaining("row 0") });
    expect(counter.rows).toBe(0);
    // The window's Markdown is kept too (decision 0049), one entry beside its blocks: a second Markdown read adds
    // none and answers the same, as a read with the cache off does.
    expect(cache.size.entries).toBe(entries + 1);
    const again = await w.call("mnote.page.get", w.envelope("mnote.page.get", { format: "markdown" }), w.tokens.owner);
    expect(cache.size.entries).toBe(entries + 1);
    expect(expectOk(again)).toEqual(expectOk(markdown));
    const uncached = await w.call(
      "mnote.page.get",
      w.envelope("mnote.page.get", { format: "markdown" }),
      w.tokens.owner,
      {
        readCacheBytes: 0,
      },
    );
    expect(expectOk(uncached)).toEqual(expectOk(markdown));

    await withBody(w, [{ id: "n1", type: "paragraph", text: "new body" }]);
    const after = await read();
    expect(after).toMatchObject({ blocks: [{ id: "n1", text: "new body" }] });
    expect((after as { revision: number }).revision).toBe((first as { revision: number }).revision + 1);
    await w.kernel.close();
  });
});

describe("page.get through two processes' caches on one database (SQLite file, two kernels)", () => {
  const kernels: SqlKernel[] = [];
  afterAll(async () => {
    for (const kernel of kernels) await kernel.close();
  });

  it("every read through either cache, blocks or Markdown, is what a read with the cache off answers, whoever wrote last", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "mnote-read-cache-")), "mnote.db");
    const first = await createWorld(async () => SqlKernel.open(openSqliteDriver(file)));
    const second = await SqlKernel.open(openSqliteDriver(file));
    kernels.push(first.kernel, second);
    // The second process's view of the same world: its kernel, the first world's ids and tokens.
    const on = (kernel: SqlKernel) => ({ ...first, kernel });
    const read = (kernel: SqlKernel, args: Record<string, unknown>, settings?: { readCacheBytes: number }) =>
      callTool(
        createToolsContext({ kernel, authorization: `Bearer ${first.tokens.owner}`, door: "panel", settings }),
        "mnote.page.get",
        first.envelope("mnote.page.get", args),
      );
    let n = 0;
    const block = fc.record({ id: fc.constantFrom("x1", "x2", "x3", "x4"), text: fc.string({ maxLength: 40 }) });
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({
              kind: fc.constant("read" as const),
              on: fc.nat(1),
              limit: fc.integer({ min: 1, max: 4 }),
              format: fc.constantFrom("blocks", "markdown"),
            }),
            fc.record({
              kind: fc.constant("write" as const),
              on: fc.nat(1),
              blocks: fc.uniqueArray(block, { selector: (b) => b.id, maxLength: 4 }),
            }),
          ),
          { minLength: 1, maxLength: 12 },
        ),
        async (steps) => {
          for (const step of steps) {
            const kernel = step.on === 0 ? first.kernel : second;
            if (step.kind === "write") {
              await withBody(
                on(kernel),
                step.blocks.map((b): Block => ({ ...b, type: "paragraph" })),
              );
              n++;
              continue;
            }
            const args = { limit: step.limit, format: step.format };
            const cached = expectOk(await read(kernel, args));
            const fresh = expectOk(await read(kernel, args, { readCacheBytes: 0 }));
            expect(cached).toEqual(fresh);
          }
        },
      ),
      { numRuns: 40 },
    );
    expect(n).toBeGreaterThan(0);
  }, 120_000);
});
