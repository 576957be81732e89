import type { Block, ToolName } from "@mnote/contract";
import { forgetInlineMarkdown } from "@mnote/markdown";
import { fmtBytes, median, now, roundOrder, table } from "./stats";
import { assertOk, benchWorld, type BenchWorld } from "./world";

export interface MarkdownOptions {
  sizes: number[];
  /** Rounds of each timing, sides interleaved and rotated. */
  rounds: number;
  callsPerRound: number;
}

/**
 * A formatted page of `n` blocks (decision 0026): a heading every 20 blocks, paragraphs with a bold word and a
 * link, nested list items, a todo and a code block now and then, so the Markdown form has marks to write.
 */
export function formattedPage(n: number): Block[] {
  return Array.from({ length: n }, (_, i): Block => {
    if (i % 20 === 0) return { id: `h${i}`, type: "heading", level: 2, text: `Section ${i / 20 + 1}` };
    const text = `Paragraph ${i} of the benchmark page: some ordinary words so a block is the size of a real one.`;
    switch (i % 10) {
      case 3:
        return { id: `b${i}`, type: "bulleted", text: `Point ${i}: ship it on Friday` };
      case 4:
        return { id: `b${i}`, type: "bulleted", text: `Sub-point ${i} with \`code\``, indent: 1 };
      case 5:
        return { id: `b${i}`, type: "todo", checked: i % 20 === 5, text: `Task ${i}`, indent: 2 };
      case 9:
        return { id: `b${i}`, type: "code", language: "ts", text: `const x${i} = ${i};` };
      default:
        return {
          id: `b${i}`,
          type: "paragraph",
          text,
          marks: [
            { type: "bold", start: 0, end: 9 },
            { type: "link", start: 27, end: 31, href: "https://example.com/bench" },
          ],
        };
    }
  });
}

/** The paragraph the model is asked to change: in the middle of the page, found by a phrase it contains. */
function targetIndex(n: number) {
  let i = Math.floor(n / 2);
  while (i % 20 === 0 || [3, 4, 5, 9].includes(i % 10)) i++;
  return i;
}

/** Bytes a model sends and receives: flat model arguments and the output envelope, as JSON. */
async function traffic(w: BenchWorld, page: string, calls: Array<[ToolName, Record<string, unknown>]>) {
  let total = 0;
  let last: Record<string, unknown> = {};
  for (const [tool, args] of calls) {
    const write = tool !== "mnote.page.get";
    total += Buffer.byteLength(
      JSON.stringify({ workspaceId: w.ws, documentId: page, ...args, ...(write ? { dryRun: false } : {}) }),
    );
    const out = await w.call(tool, w.envelope(tool, page, args));
    assertOk(out, tool);
    total += Buffer.byteLength(JSON.stringify(out));
    last = out.result as Record<string, unknown>;
  }
  return { total, last };
}

/** One paragraph changed: search, a 3-block window, then page.edit — in the block form or in Markdown. */
async function oneParagraph(w: BenchWorld, page: string, n: number, form: "blocks" | "markdown") {
  const target = targetIndex(n);
  const read = { includeBody: false, includeOptions: false };
  const found = await traffic(w, page, [["mnote.page.get", { search: `Paragraph ${target} of`, limit: 5, ...read }]]);
  const match = (found.last.matches as Array<{ id: string }>)[0]!;
  const window = await traffic(w, page, [
    ["mnote.page.get", { startBlockId: match.id, limit: 3, ...read, ...(form === "markdown" ? { format: form } : {}) }],
  ]);
  let operation: Record<string, unknown>;
  if (form === "blocks") {
    const block = (window.last.blocks as Block[])[0]!;
    operation = { op: "replace", blockId: block.id, text: `${block.text} (edited)` };
  } else {
    // The model rewrites the first line of the Markdown it read, its formatting kept.
    const first = (window.last.markdown as string).split("\n")[0]!.replace(/ <!-- mnote:id=\S+ -->$/, "");
    operation = { op: "replace", blockId: match.id, markdown: `${first} (edited)` };
  }
  const edit = await traffic(w, page, [
    ["mnote.page.edit", { operations: [operation], baseRevision: window.last.revision }],
  ]);
  return found.total + window.total + edit.total;
}

/** Median per-call milliseconds of `call` for each side, interleaved and rotated, and the median per-round ratio. */
async function timed<S extends string>(
  sides: readonly S[],
  options: MarkdownOptions,
  call: (side: S) => Promise<void>,
): Promise<{ ms: Record<S, number>; ratio: number; cpuRatio: number }> {
  const per = Object.fromEntries(sides.map((s) => [s, [] as number[]])) as Record<S, number[]>;
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  for (let i = 0; i < 3; i++) for (const side of sides) await call(side); // warm-up
  for (let round = 0; round < options.rounds; round++) {
    const perSide = {} as Record<S, number>;
    const cpuSide = {} as Record<S, number>;
    for (const side of roundOrder(sides, round)) {
      const c = process.cpuUsage();
      const t = now();
      for (let i = 0; i < options.callsPerRound; i++) await call(side);
      perSide[side] = (now() - t) / options.callsPerRound;
      const cpu = process.cpuUsage(c);
      cpuSide[side] = cpu.user + cpu.system;
      per[side].push(perSide[side]);
    }
    ratios.push(perSide[sides[1]!] / perSide[sides[0]!]);
    cpuRatios.push(cpuSide[sides[1]!] / cpuSide[sides[0]!]);
  }
  return {
    ms: Object.fromEntries(sides.map((s) => [s, median(per[s])])) as Record<S, number>,
    ratio: median(ratios),
    // The process's CPU time, the same rounds: on a shared machine wall time also counts waiting for a core.
    cpuRatio: median(cpuRatios),
  };
}

export async function runMarkdown(options: MarkdownOptions) {
  const w = await benchWorld("markdown");
  const read = { includeBody: false, includeOptions: false };

  // page.get of a 1,000-block page: the first window, and the whole page by cursor, blocks vs Markdown.
  const page1000 = await w.newPage(formattedPage(1_000));
  const window = await timed(["blocks", "markdown"] as const, options, async (format) => {
    assertOk(await w.call("mnote.page.get", w.envelope("mnote.page.get", page1000, { ...read, format })), format);
  });
  // The read cache off (MNOTE_READ_CACHE_MB=0): every read is a first read of its page state, rows read and measured
  // again on both sides; the kept inline Markdown (by block id, checked against its content; decision 0026) stays.
  const uncached = await benchWorld("markdown-uncached", { readCacheBytes: 0 });
  const uncachedPage = await uncached.newPage(formattedPage(1_000));
  const cacheOff = await timed(["blocks", "markdown"] as const, options, async (format) => {
    assertOk(
      await uncached.call("mnote.page.get", uncached.envelope("mnote.page.get", uncachedPage, { ...read, format })),
      format,
    );
  });
  // A first read of blocks new to the process: the read cache off and the kept inline Markdown emptied too.
  const cold = await timed(["blocks", "markdown"] as const, options, async (format) => {
    if (format === "markdown") forgetInlineMarkdown();
    assertOk(
      await uncached.call("mnote.page.get", uncached.envelope("mnote.page.get", uncachedPage, { ...read, format })),
      format,
    );
  });
  await uncached.kernel.close();
  const whole = await timed(["blocks", "markdown"] as const, { ...options, callsPerRound: 3 }, async (format) => {
    let cursor: string | undefined;
    do {
      const out = await w.call(
        "mnote.page.get",
        w.envelope("mnote.page.get", page1000, { ...read, format, ...(cursor ? { cursor } : {}) }),
      );
      assertOk(out, format);
      cursor = (out.result as { window: { nextCursor: string | null } }).window.nextCursor ?? undefined;
    } while (cursor);
  });
  const firstWindow = async (format: "blocks" | "markdown") => {
    const out = await w.call("mnote.page.get", w.envelope("mnote.page.get", page1000, { ...read, format }));
    const result = out.result as { window: { count: number } };
    return { count: result.window.count, bytes: Buffer.byteLength(JSON.stringify(out)) };
  };
  const windows = { blocks: await firstWindow("blocks"), markdown: await firstWindow("markdown") };

  // Bytes of a one-paragraph edit, block form vs Markdown, at each size.
  const bytes: Record<number, { blocks: number; markdown: number }> = {};
  for (const n of options.sizes) {
    const blocksPage = await w.newPage(formattedPage(n));
    const markdownPage = await w.newPage(formattedPage(n));
    bytes[n] = {
      blocks: await oneParagraph(w, blocksPage, n, "blocks"),
      markdown: await oneParagraph(w, markdownPage, n, "markdown"),
    };
  }

  // A one-operation Markdown dry run on 1,000 and 10,000 blocks.
  const small = await w.newPage(formattedPage(1_000));
  const large = await w.newPage(formattedPage(10_000));
  const dry = await timed(["small", "large"] as const, options, async (side) => {
    const n = side === "small" ? 1_000 : 10_000;
    const out = await w.call(
      "mnote.page.edit",
      w.envelope(
        "mnote.page.edit",
        side === "small" ? small : large,
        { operations: [{ op: "replace", blockId: `b${targetIndex(n)}`, markdown: "**Proposed** text" }] },
        { dryRun: true },
      ),
    );
    assertOk(out, "markdown dry run");
  });
  await w.kernel.close();

  const byteRatios = options.sizes.map((n) => bytes[n]!.markdown / bytes[n]!.blocks);
  const pass = {
    window: window.ratio <= 1.5 && cacheOff.ratio <= 1.5,
    bytes: byteRatios.every((r) => r <= 1.2) && options.sizes.every((n) => bytes[n]!.markdown <= 3 * 1024),
    dryRun: dry.ratio <= 12,
  };
  const markdown = [
    table(
      ["`page.get` of a 1,000-block page", "blocks", "markdown", "markdown ÷ blocks", "Goal", ""],
      [
        [
          "first window (time per call)",
          `${window.ms.blocks.toFixed(2)} ms`,
          `${window.ms.markdown.toFixed(2)} ms`,
          `${window.ratio.toFixed(2)}× (CPU ${window.cpuRatio.toFixed(2)}×)`,
          "≤ 1.5×",
          window.ratio <= 1.5 ? "PASS" : "FAIL",
        ],
        [
          "first window, read cache off (every read a first read of its page state)",
          `${cacheOff.ms.blocks.toFixed(2)} ms`,
          `${cacheOff.ms.markdown.toFixed(2)} ms`,
          `${cacheOff.ratio.toFixed(2)}× (CPU ${cacheOff.cpuRatio.toFixed(2)}×)`,
          "≤ 1.5×",
          cacheOff.ratio <= 1.5 ? "PASS" : "FAIL",
        ],
        [
          "first window, read cache off and inline Markdown worked out anew",
          `${cold.ms.blocks.toFixed(2)} ms`,
          `${cold.ms.markdown.toFixed(2)} ms`,
          `${cold.ratio.toFixed(2)}× (CPU ${cold.cpuRatio.toFixed(2)}×)`,
          "",
          "",
        ],
        [
          "first window (blocks in it / answer bytes)",
          `${windows.blocks.count} / ${fmtBytes(windows.blocks.bytes)}`,
          `${windows.markdown.count} / ${fmtBytes(windows.markdown.bytes)}`,
          "",
          "same window",
          windows.blocks.count === windows.markdown.count ? "PASS" : "FAIL",
        ],
        [
          "whole page by cursor (time)",
          `${whole.ms.blocks.toFixed(1)} ms`,
          `${whole.ms.markdown.toFixed(1)} ms`,
          `${whole.ratio.toFixed(2)}×`,
          "",
          "",
        ],
      ],
    ),
    "",
    table(
      ["Blocks", "one-paragraph edit, block form", "Markdown form", "Markdown ÷ blocks", "Goal", ""],
      options.sizes.map((n, i) => [
        n.toLocaleString("en-US"),
        fmtBytes(bytes[n]!.blocks),
        fmtBytes(bytes[n]!.markdown),
        `${byteRatios[i]!.toFixed(2)}×`,
        "≤ 1.2×, ≤ 3 KiB",
        byteRatios[i]! <= 1.2 && bytes[n]!.markdown <= 3 * 1024 ? "PASS" : "FAIL",
      ]),
    ),
    "",
    table(
      ["Measure", "Result", "Goal", ""],
      [
        [
          "One-operation Markdown dry run, 10,000 ÷ 1,000 blocks",
          `${dry.ratio.toFixed(2)}× (${dry.ms.large.toFixed(2)} ms vs ${dry.ms.small.toFixed(2)} ms)`,
          "≤ 12×",
          pass.dryRun ? "PASS" : "FAIL",
        ],
      ],
    ),
  ].join("\n");
  return { markdown, pass, window, cacheOff, cold, whole, bytes, byteRatios, dry };
}
