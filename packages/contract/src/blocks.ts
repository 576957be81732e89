import { z } from "zod";
import { LIMITS } from "./limits";
import { storable } from "./text";

/** Block ids are stable across saves: the diff matches blocks by id. */
export const BlockIdSchema = storable(z.string()).regex(
  /^[A-Za-z0-9_-]{1,64}$/,
  "block id must be 1-64 characters of A-Z a-z 0-9 _ -",
);

const text = storable(z.string()).max(
  LIMITS.blockTextLength,
  `block text is longer than ${LIMITS.blockTextLength} characters`,
);
/** Inline formatting kinds: a span of a block's text is bold, italic, struck through, inline code or a link. */
export const MARK_TYPES = ["bold", "italic", "strike", "code", "link"] as const;
export type MarkType = (typeof MARK_TYPES)[number];
/** The schemes a link may point at: anything else (`javascript:`, `data:`, relative) is refused. */
export const LINK_SCHEMES = ["http:", "https:", "mailto:"] as const;
/** The deepest list nesting: indent 0 (top level) to 3. */
export const MAX_INDENT = 3;

export const MarkSchema = z.strictObject({
  type: z.enum(MARK_TYPES).describe("bold, italic, strike, code (inline code) or link."),
  start: z.number().int().min(0).describe("Offset in text where the span starts (0-based, UTF-16 units)."),
  end: z.number().int().min(1).describe("Offset in text where the span ends (exclusive)."),
  href: storable(z.string())
    .max(LIMITS.hrefLength, `a link is longer than ${LIMITS.hrefLength} characters`)
    .optional()
    .describe("Only for link: an http, https or mailto URL."),
});
export type Mark = z.infer<typeof MarkSchema>;

const marks = z
  .array(MarkSchema)
  .max(LIMITS.marksPerBlock, `a block has more than ${LIMITS.marksPerBlock} marks`)
  .optional()
  .describe(
    "Inline formatting as spans of text: [{type, start, end, href?}]. Omitted on a block whose text is unchanged " +
      "keeps its formatting; omitted with new text makes it plain; [] clears it.",
  );
const indent = z
  .number()
  .int()
  .min(0)
  .max(MAX_INDENT, `indent is more than ${MAX_INDENT}`)
  .optional()
  .describe(`List nesting level 0-${MAX_INDENT} (0 or omitted: top level); at most one deeper than the block before.`);

/** Why a link target is refused, or null when it is an absolute http, https or mailto URL. */
export function hrefProblem(href: string): string | null {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return "a link must be an absolute http, https or mailto URL";
  }
  if (!(LINK_SCHEMES as readonly string[]).includes(url.protocol))
    return `a link's scheme must be http, https or mailto, not ${JSON.stringify(url.protocol.slice(0, 20))}`;
  return null;
}

/**
 * The problems of a block's marks, each with the path of the field at fault: a span outside the text,
 * a link without a good target, an href on another mark, spans of one mark that overlap.
 */
export function markProblems(text: string, list: readonly Mark[]): { path: (string | number)[]; message: string }[] {
  const problems: { path: (string | number)[]; message: string }[] = [];
  list.forEach((mark, i) => {
    if (mark.end <= mark.start)
      problems.push({ path: ["marks", i, "end"], message: `a mark's end must be after its start (${mark.start})` });
    else if (mark.end > text.length)
      problems.push({
        path: ["marks", i, "end"],
        message: `a mark ends at ${mark.end}, past the end of the text (${text.length} characters)`,
      });
    if (mark.type === "link") {
      const problem = mark.href === undefined ? "a link needs href" : hrefProblem(mark.href);
      if (problem) problems.push({ path: ["marks", i, "href"], message: problem });
    } else if (mark.href !== undefined)
      problems.push({ path: ["marks", i, "href"], message: `href is only for link marks, not ${mark.type}` });
  });
  for (const type of MARK_TYPES) {
    const spans = list
      .map((mark, i) => ({ mark, i }))
      .filter(({ mark }) => mark.type === type)
      .sort((a, b) => a.mark.start - b.mark.start);
    for (let k = 1; k < spans.length; k++) {
      if (spans[k]!.mark.start < spans[k - 1]!.mark.end)
        problems.push({
          path: ["marks", spans[k]!.i],
          message: `${type} spans overlap (${spans[k - 1]!.mark.start}-${spans[k - 1]!.mark.end} and ${spans[k]!.mark.start}-${spans[k]!.mark.end})`,
        });
    }
  }
  return problems;
}

/** Adds the marks rule to a block object schema (the spans must fit the block's text). */
function withMarkRule<S extends z.ZodObject>(schema: S): S {
  return schema.check(
    z.superRefine((block: { text?: string; marks?: Mark[] }, ctx) => {
      if (!block.marks || block.marks.length === 0) return;
      for (const problem of markProblems(block.text ?? "", block.marks))
        ctx.addIssue({ code: "custom", path: problem.path, message: problem.message, input: block.marks });
    }),
  );
}

/**
 * The indent rule of a sequence of blocks: a block is at most one level deeper than the one before it
 * (a block that is not a list item counts as level 0). The first block may be at level 0 or 1.
 */
export function indentProblems(
  blocks: readonly { type: string; indent?: number }[],
): { index: number; message: string }[] {
  const problems: { index: number; message: string }[] = [];
  let previous = 0;
  blocks.forEach((block, index) => {
    const level = block.indent ?? 0;
    if (level > previous + 1)
      problems.push({
        index,
        message: `indent ${level} is more than one level deeper than the block before (${previous})`,
      });
    previous = level;
  });
  return problems;
}

const base = { id: BlockIdSchema, text, marks };
const listBase = { ...base, indent };

export const BlockSchema = z.discriminatedUnion("type", [
  withMarkRule(z.strictObject({ ...base, type: z.literal("paragraph") })),
  withMarkRule(
    z.strictObject({ ...base, type: z.literal("heading"), level: z.union([z.literal(1), z.literal(2), z.literal(3)]) }),
  ),
  withMarkRule(z.strictObject({ ...listBase, type: z.literal("bulleted") })),
  withMarkRule(z.strictObject({ ...listBase, type: z.literal("numbered") })),
  withMarkRule(z.strictObject({ ...listBase, type: z.literal("todo"), checked: z.boolean() })),
  withMarkRule(z.strictObject({ ...base, type: z.literal("quote") })),
  z.strictObject({
    id: BlockIdSchema,
    text,
    type: z.literal("code"),
    language: storable(z.string()).max(LIMITS.codeLanguageLength),
  }),
  z.strictObject({ id: BlockIdSchema, text, type: z.literal("divider") }),
  withMarkRule(z.strictObject({ ...base, type: z.literal("callout") })),
]);
export type Block = z.infer<typeof BlockSchema>;
export type BlockType = Block["type"];
export const BLOCK_TYPES = BlockSchema.options.map<BlockType>((o) => o.shape.type.value);

/**
 * What a caller may send: the id is optional for new blocks (the server assigns a
 * deterministic one from the idempotency key), and per-type fields have defaults.
 */
const inputBase = { id: BlockIdSchema.optional(), text, marks };
const inputListBase = { ...inputBase, indent };
export const BlockInputSchema = z.discriminatedUnion("type", [
  withMarkRule(z.strictObject({ ...inputBase, type: z.literal("paragraph") })),
  withMarkRule(
    z.strictObject({
      ...inputBase,
      type: z.literal("heading"),
      level: z.union([z.literal(1), z.literal(2), z.literal(3)]).default(1),
    }),
  ),
  withMarkRule(z.strictObject({ ...inputListBase, type: z.literal("bulleted") })),
  withMarkRule(z.strictObject({ ...inputListBase, type: z.literal("numbered") })),
  withMarkRule(z.strictObject({ ...inputListBase, type: z.literal("todo"), checked: z.boolean().default(false) })),
  withMarkRule(z.strictObject({ ...inputBase, type: z.literal("quote") })),
  z.strictObject({
    id: BlockIdSchema.optional(),
    text,
    type: z.literal("code"),
    language: storable(z.string()).max(LIMITS.codeLanguageLength).default(""),
  }),
  z.strictObject({ id: BlockIdSchema.optional(), text: text.default(""), type: z.literal("divider") }),
  withMarkRule(z.strictObject({ ...inputBase, type: z.literal("callout") })),
]);
export type BlockInput = z.input<typeof BlockInputSchema>;
export type ParsedBlockInput = z.output<typeof BlockInputSchema>;

const MARK_ORDER = new Map<string, number>(MARK_TYPES.map((type, i) => [type, i]));

/**
 * The one stored form of a block: no empty `marks`, no `indent: 0`, marks in order of start then type,
 * no span across a line break (it is one span per line).
 * Two blocks that mean the same are then the same JSON (the diff compares blocks so).
 */
export function canonicalBlock<B extends object>(block: B): B {
  const { marks: list, indent: level, ...rest } = block as { marks?: Mark[]; indent?: number };
  const out = rest as { marks?: Mark[]; indent?: number };
  const text = (block as { text?: string }).text ?? "";
  // A span does not cross a line break (Markdown marks lines, not breaks): one span per line.
  const trimmed = (list ?? []).flatMap((mark) => {
    const pieces: Mark[] = [];
    let start = mark.start;
    while (start < mark.end) {
      const stop = text.indexOf("\n", start);
      const end = stop === -1 || stop >= mark.end ? mark.end : stop;
      if (end > start) pieces.push(mark.type === "link" ? { ...mark, start, end } : { type: mark.type, start, end });
      start = end + 1;
    }
    return pieces;
  });
  if (trimmed.length > 0)
    out.marks = trimmed.sort(
      (a, b) => a.start - b.start || MARK_ORDER.get(a.type)! - MARK_ORDER.get(b.type)! || a.end - b.end,
    );
  if (level !== undefined && level > 0) out.indent = level;
  return out as B;
}

/** Block types whose text can carry marks, and those that nest (list items). */
export const MARKED_TYPES: ReadonlySet<string> = new Set([
  "paragraph",
  "heading",
  "bulleted",
  "numbered",
  "todo",
  "quote",
  "callout",
]);
export const LIST_TYPES: ReadonlySet<string> = new Set(["bulleted", "numbered", "todo"]);

/** The short plain-text digest `page.get` returns as `bodySummary`. */
export function summarizeBlocks(blocks: readonly Block[], maxLength = 280): string {
  // Only as many blocks as the summary can show: a window's first blocks may hold thousands of characters.
  const parts: string[] = [];
  let length = 0;
  for (const block of blocks) {
    const text = block.text.trim().replace(/\s+/g, " ");
    if (!text) continue;
    parts.push(text);
    length += text.length + 1;
    if (length > maxLength) break;
  }
  const joined = parts.join(" ");
  return joined.length <= maxLength ? joined : `${joined.slice(0, maxLength - 1)}…`;
}
