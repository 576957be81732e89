import { type Block, BlockSchema, canonicalBlock } from "@mnote/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blocksToMarkdown, markdownToBlocks } from "./index";
import { inlineToMarkdown, markdownToInline } from "./inline";
import { blocksToMarkdownMeasured, forgetInlineMarkdown, treeMarkdown } from "./to-markdown";
import { line, lines, marksFor } from "./fixtures/arbitraries";

const id = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);
const marked = (type: "paragraph" | "quote" | "callout", text = lines) =>
  text.chain((t) => marksFor(t).map((marks) => ({ type, text: t, marks })));
const listItem = fc
  .tuple(fc.constantFrom("bulleted", "numbered", "todo"), fc.oneof(line, line, lines), fc.boolean())
  .chain(([type, text, checked]) =>
    marksFor(text).map((marks) => ({ type, text, marks, ...(type === "todo" ? { checked } : {}) })),
  );
const blockBody = fc.oneof(
  marked("paragraph"),
  marked("quote"),
  marked("callout"),
  fc
    .tuple(line, fc.constantFrom(1, 2, 3))
    .chain(([text, level]) => marksFor(text).map((marks) => ({ type: "heading", level, text, marks }))),
  listItem,
  listItem,
  fc.record({
    type: fc.constant("code"),
    language: fc.constantFrom("", "ts", "py", "c++", "x y"),
    text: fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom("a\n```\nb", "````", "`x`\n\ny", "\n", "")),
  }),
  fc.constant({ type: "divider", text: "" }),
  fc.constant({ type: "paragraph", text: "" }),
);

/** Pages: unique ids; list items nested at most one level deeper than the item before. */
const page = fc.array(fc.tuple(id, blockBody, fc.nat(3)), { maxLength: 25 }).map((entries) => {
  const seen = new Set<string>();
  let previous = -1;
  const out: Block[] = [];
  for (const [blockId, body, wanted] of entries) {
    if (seen.has(blockId)) continue;
    seen.add(blockId);
    const isList = ["bulleted", "numbered", "todo"].includes(body.type);
    const indent = isList ? Math.min(wanted, previous + 1) : 0;
    previous = isList ? indent : -1;
    out.push(BlockSchema.parse(canonicalBlock({ ...body, id: blockId, ...(indent ? { indent } : {}) })));
  }
  return out;
});

const canonical = (blocks: object[]) => blocks.map((block) => canonicalBlock(block));

/**
 * Counterexamples the first property found (about one run in 40): an underscore between two letters or digits that
 * the library leaves bare, beside a letter it then writes as a character reference (inline.ts `checkedInline`).
 */
const UNDERSCORE_BESIDE_REFERENCE = [
  {
    id: "a",
    type: "todo",
    checked: true,
    text: "(`2|<1 _(_\\s.-- :[H ~*.>>(& :x-|1_3 ]|_*(.\\",
    marks: [
      { type: "bold", start: 0, end: 1 },
      { type: "italic", start: 0, end: 36 },
      { type: "strike", start: 35, end: 36 },
    ],
  },
  {
    id: "b",
    type: "bulleted",
    text: "*#[7]: !Rh#() &()> (_<- -)-)_ 4_y(&&[#\n.-4(~b0: .`&s[< [H e~](]j( S*",
    marks: [
      { type: "bold", start: 0, end: 1 },
      { type: "italic", start: 0, end: 34 },
      { type: "strike", start: 29, end: 30 },
    ],
  },
  {
    id: "c",
    type: "callout",
    text: ".~< W!.*[*& D~`:_:` <|#&(< |-<`6#\\& (<\n#!#C\\[(_ O_O*0 -` a:<<`` ]_|-",
    marks: [
      { type: "bold", start: 0, end: 38 },
      { type: "code", start: 0, end: 17 },
      { type: "bold", start: 39, end: 40 },
      { type: "italic", start: 39, end: 59 },
      { type: "strike", start: 51, end: 53 },
    ],
  },
];

describe("blocks ⇄ Markdown round trip (decision 0026)", () => {
  it("an underscore beside a letter the library writes as a character reference reads back as itself", () => {
    for (const block of UNDERSCORE_BESIDE_REFERENCE) {
      const blocks = [BlockSchema.parse(canonicalBlock(block))];
      expect(canonical(markdownToBlocks(blocksToMarkdown(blocks)))).toEqual(canonical(blocks));
      const text = inlineToMarkdown(block.text, block.marks as never);
      expect(markdownToInline(text)).toEqual({ text: block.text, marks: expect.anything() });
    }
  });

  it("blocks → Markdown → blocks keeps ids, types, text, marks and indent", () => {
    fc.assert(
      fc.property(page, (blocks) => {
        expect(canonical(markdownToBlocks(blocksToMarkdown(blocks)))).toEqual(canonical(blocks));
      }),
      { numRuns: 300 },
    );
  });

  it("answers the same Markdown whether a block's inline Markdown was kept from before or worked out anew", () => {
    fc.assert(
      fc.property(page, (blocks) => {
        const warm = blocksToMarkdown(blocks);
        forgetInlineMarkdown();
        expect(blocksToMarkdown(blocks)).toBe(warm);
        // Worked out one block at a time (other neighbours in the pass) or all at once: the same.
        forgetInlineMarkdown();
        for (const block of blocks) blocksToMarkdown([block]);
        expect(blocksToMarkdown(blocks)).toBe(warm);
      }),
      { numRuns: 100 },
    );
  });

  it("answers a changed block's new Markdown: what is kept under a block's id serves only the same content", () => {
    fc.assert(
      fc.property(page, page, fc.boolean(), (before, others, heading) => {
        // The second page's blocks under the first page's ids: each a different text, marks, type or level.
        const after = others.slice(0, before.length).map((block, i) => ({ ...block, id: before[i]!.id }));
        // The same text and marks as a heading and as a paragraph: the context is part of what is compared.
        const retyped = before.map((block) =>
          heading && block.type === "paragraph" && !block.text.includes("\n")
            ? { ...block, type: "heading" as const, level: 2 as const }
            : block,
        );
        // The same marks over a longer text.
        const edited = before.map((block) => (block.text ? { ...block, text: `${block.text} and more` } : block));
        forgetInlineMarkdown();
        const first = blocksToMarkdown(before);
        for (const changed of [after, retyped, edited]) {
          blocksToMarkdown(before);
          const kept = blocksToMarkdown(changed);
          // Both versions are kept under the ids (pages share ids): read in turn, each is its own.
          expect(blocksToMarkdown(before)).toBe(first);
          forgetInlineMarkdown();
          expect(kept).toBe(blocksToMarkdown(changed));
        }
      }),
      { numRuns: 200 },
    );
  });

  it("measures its Markdown as JSON.stringify does, whatever the text and ids hold", () => {
    // What JSON escapes, one character or two: quotes, backslashes, controls, lone and paired surrogates.
    const escaped = fc.constantFrom('"', "\\", "\u0000", "\u001f", "\t", "\r", "\n", "\b", "\f", "\ud800", "\udc00");
    const unit = fc.oneof(escaped, fc.constantFrom("\ud83d\ude00", "é", "\u2028", "a", " ", "*", "<"));
    const suffix = fc.string({ unit, maxLength: 4 });
    fc.assert(
      fc.property(page, fc.array(fc.tuple(suffix, suffix)), fc.boolean(), (blocks, suffixes, cold) => {
        // Appended, so the marks still fit their text.
        const odd = blocks.map((block, i) => {
          const [text, id] = suffixes[i % Math.max(1, suffixes.length)] ?? ["", ""];
          return { ...block, text: block.type === "divider" ? "" : block.text + text, id: block.id + id };
        });
        if (cold) forgetInlineMarkdown();
        const measured = blocksToMarkdownMeasured(odd);
        expect(measured.jsonLength).toBe(JSON.stringify(measured.text).length);
        // The same text as the plain answer (another test holds it to the library's tree, for the ids the contract allows).
        expect(measured.text).toBe(blocksToMarkdown(odd));
      }),
      { numRuns: 500 },
    );
  });

  it("writes what the library writes for the window's whole tree", () => {
    fc.assert(
      fc.property(page, (blocks) => {
        expect(blocksToMarkdown(blocks)).toBe(treeMarkdown(blocks));
      }),
      { numRuns: 300 },
    );
  });

  it("Markdown → page → Markdown is stable", () => {
    fc.assert(
      fc.property(page, (blocks) => {
        const markdown = blocksToMarkdown(blocks);
        expect(blocksToMarkdown(markdownToBlocks(markdown) as Block[])).toBe(markdown);
      }),
      { numRuns: 200 },
    );
  });
});
