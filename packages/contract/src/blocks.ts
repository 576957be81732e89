import { z } from "zod";
import { LIMITS } from "./limits";
import { storable } from "./text";

/** Block ids are stable across saves: the diff matches blocks by id. */
export const BlockIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, "block id must be 1-64 characters of A-Z a-z 0-9 _ -");

const text = storable(z.string()).max(
  LIMITS.blockTextLength,
  `block text is longer than ${LIMITS.blockTextLength} characters`,
);
const base = { id: BlockIdSchema, text };

export const BlockSchema = z.discriminatedUnion("type", [
  z.strictObject({ ...base, type: z.literal("paragraph") }),
  z.strictObject({ ...base, type: z.literal("heading"), level: z.union([z.literal(1), z.literal(2), z.literal(3)]) }),
  z.strictObject({ ...base, type: z.literal("bulleted") }),
  z.strictObject({ ...base, type: z.literal("numbered") }),
  z.strictObject({ ...base, type: z.literal("todo"), checked: z.boolean() }),
  z.strictObject({ ...base, type: z.literal("quote") }),
  z.strictObject({ ...base, type: z.literal("code"), language: storable(z.string()).max(LIMITS.codeLanguageLength) }),
  z.strictObject({ ...base, type: z.literal("divider") }),
  z.strictObject({ ...base, type: z.literal("callout") }),
]);
export type Block = z.infer<typeof BlockSchema>;
export type BlockType = Block["type"];
export const BLOCK_TYPES = BlockSchema.options.map<BlockType>((o) => o.shape.type.value);

/**
 * What a caller may send: the id is optional for new blocks (the server assigns a
 * deterministic one from the idempotency key), and per-type fields have defaults.
 */
export const BlockInputSchema = z.discriminatedUnion("type", [
  z.strictObject({ id: BlockIdSchema.optional(), text, type: z.literal("paragraph") }),
  z.strictObject({
    id: BlockIdSchema.optional(),
    text,
    type: z.literal("heading"),
    level: z.union([z.literal(1), z.literal(2), z.literal(3)]).default(1),
  }),
  z.strictObject({ id: BlockIdSchema.optional(), text, type: z.literal("bulleted") }),
  z.strictObject({ id: BlockIdSchema.optional(), text, type: z.literal("numbered") }),
  z.strictObject({ id: BlockIdSchema.optional(), text, type: z.literal("todo"), checked: z.boolean().default(false) }),
  z.strictObject({ id: BlockIdSchema.optional(), text, type: z.literal("quote") }),
  z.strictObject({
    id: BlockIdSchema.optional(),
    text,
    type: z.literal("code"),
    language: storable(z.string()).max(LIMITS.codeLanguageLength).default(""),
  }),
  z.strictObject({ id: BlockIdSchema.optional(), text: text.default(""), type: z.literal("divider") }),
  z.strictObject({ id: BlockIdSchema.optional(), text, type: z.literal("callout") }),
]);
export type BlockInput = z.input<typeof BlockInputSchema>;
export type ParsedBlockInput = z.output<typeof BlockInputSchema>;

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
