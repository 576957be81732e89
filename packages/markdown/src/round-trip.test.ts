import { type Block, BlockSchema, canonicalBlock, type Mark, MARK_TYPES } from "@mnote/contract";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blocksToMarkdown, markdownToBlocks } from "./index";
import { forgetInlineMarkdown, treeMarkdown } from "./to-markdown";

/** Words with the characters Markdown gives meaning to, so escaping is exercised. */
const word = fc.stringMatching(/^[a-zA-Z0-9*_`~[\]()<>!#&.:|\\-]{1,8}$/);
const line = fc.array(word, { minLength: 1, maxLength: 6 }).map((words) => words.join(" "));
const lines = fc.array(line, { minLength: 1, maxLength: 3 }).map((ls) => ls.join("\n"));
const href = fc.constantFrom("https://example.com/a", "http://x.org/a_b?c=(1)&d=*", "mailto:a@example.com");

/** Spans of each mark type that neither overlap nor touch (the stored form merges touching spans). */
function marksFor(text: string): fc.Arbitrary<Mark[]> {
  const span = fc
    .tuple(fc.nat(text.length), fc.nat(text.length))
    .map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const)
    .filter(([a, b]) => b > a);
  const ofType = (type: Mark["type"]) =>
    fc.array(span, { maxLength: 3 }).chain((spans) =>
      (type === "link" ? fc.array(href, { minLength: spans.length, maxLength: spans.length }) : fc.constant([])).map(
        (hrefs) => {
          const kept: Mark[] = [];
          for (const [i, [start, end]] of spans.sort((x, y) => x[0] - y[0]).entries()) {
            if (kept.length && start <= kept.at(-1)!.end) continue;
            // Inline code holds no line break (a code span turns it into a space).
            if (type === "code" && text.slice(start, end).includes("\n")) continue;
            kept.push(type === "link" ? { type, start, end, href: hrefs[i]! } : { type, start, end });
          }
          return kept;
        },
      ),
    );
  return fc.tuple(...MARK_TYPES.map(ofType)).map((all) => all.flat());
}

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

describe("blocks ⇄ Markdown round trip (decision 0026)", () => {
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
