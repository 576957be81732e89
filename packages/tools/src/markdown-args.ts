import {
  describeIssues,
  type Block,
  BlockInputSchema,
  indentProblems,
  LIMITS,
  type Mark,
  MARKED_TYPES,
  type ParsedBlockInput,
} from "@mnote/contract";
import { MarkdownRefused, markdownToBlocks } from "@mnote/markdown";
import { AppError } from "./app-error";

/**
 * Markdown a model sent (decision 0026), as the blocks it stands for, checked as if the model had sent
 * them: same limits, same formatting rules, the field named in every refusal. A block of a kind that
 * holds formatting carries `marks` ([] when it has none), so Markdown without bold makes a bold block
 * plain (the keep-marks rule is for the block form, which may leave marks out).
 */
export function blocksOfMarkdown(markdown: string, field: string): ParsedBlockInput[] {
  let parsed: ReturnType<typeof markdownToBlocks>;
  try {
    parsed = markdownToBlocks(markdown);
  } catch (error) {
    if (error instanceof MarkdownRefused) throw new AppError("mnote_tool_invalid_input", `${field}: ${error.message}`);
    throw error;
  }
  if (parsed.length > LIMITS.blocksPerSave)
    throw new AppError("mnote_tool_invalid_input", `${field}: more than ${LIMITS.blocksPerSave} blocks`);
  const blocks = parsed.map((block, index) => {
    const result = BlockInputSchema.safeParse(
      MARKED_TYPES.has(block.type) ? { ...block, marks: block.marks ?? [] } : block,
    );
    if (!result.success) {
      throw new AppError(
        "mnote_tool_invalid_input",
        `${field}: block ${index + 1} (${block.type}): ${describeIssues(result.error, { root: "block", max: 1 })}`,
      );
    }
    return result.data;
  });
  for (const problem of indentProblems(blocks))
    throw new AppError("mnote_tool_invalid_input", `${field}: block ${problem.index + 1}: ${problem.message}`);
  return blocks;
}

/**
 * A replace operation's Markdown as the fields it sets: exactly one block, whose id (if given) is the
 * one replaced. Its type, text and formatting replace the block's; a list item keeps its indent.
 */
function replaceFields(markdown: string, blockId: string, field: string): Record<string, unknown> {
  const blocks = blocksOfMarkdown(markdown, field);
  if (blocks.length !== 1)
    throw new AppError(
      "mnote_tool_invalid_input",
      `${field}: a replace takes one block of Markdown, not ${blocks.length}`,
    );
  const { id, ...fields } = blocks[0]!;
  if (id !== undefined && id !== blockId)
    throw new AppError("mnote_tool_invalid_input", `${field}: the Markdown names block ${id}, not ${blockId}`);
  // One block of Markdown cannot say how deep a list item sits: a replace keeps the item's indent.
  return fields;
}

/**
 * The args with any Markdown form turned into the block form (`markdown` → `content` for page.save,
 * → `blocks` or the replace fields for page.edit). Everything after this (idempotency, planning,
 * proposals) sees blocks only: one path for both forms. The args come back as the same tool's args: both forms
 * are spellings its schema accepts, and the blocks were checked against the block schema as they were made.
 */
export function argsWithoutMarkdown<Args>(toolName: string, args: Args): Args {
  if (typeof args !== "object" || args === null) return args;
  const blockForm = blockFormOf(toolName, args as Record<string, unknown>);
  return blockForm === args ? args : (blockForm as Args);
}

function blockFormOf(toolName: string, args: Record<string, unknown>): Record<string, unknown> {
  if (toolName === "mnote.page.save" && typeof args.markdown === "string") {
    const { markdown, ...rest } = args;
    return { ...rest, content: blocksOfMarkdown(markdown, "args.markdown") };
  }
  if (toolName === "mnote.page.create" && typeof args.markdown === "string") {
    const { markdown, ...rest } = args;
    return { ...rest, blocks: blocksOfMarkdown(markdown, "args.markdown") };
  }
  if (toolName === "mnote.page.edit" && Array.isArray(args.operations)) {
    const operations = args.operations as Record<string, unknown>[];
    if (!operations.some((operation) => typeof operation.markdown === "string")) return args;
    return {
      ...args,
      operations: operations.map((operation, index) => {
        if (typeof operation.markdown !== "string") return operation;
        const { markdown, ...rest } = operation;
        const field = `args.operations[${index}].markdown`;
        if (operation.op === "insert") return { ...rest, blocks: blocksOfMarkdown(markdown, field) };
        return { ...rest, ...replaceFields(markdown, operation.blockId as string, field) };
      }),
    };
  }
  return args;
}

/**
 * The block-form rule for formatting in a page.save replace (decision 0026): a block sent with the id
 * of a block on the page and without `marks` keeps that block's marks while its text is the same
 * (a model that knows only the seed's {id, type, text} does not strip the page's formatting); with new
 * text it is plain; `marks: []` clears them.
 */
export function withKeptMarks(content: ParsedBlockInput[], current: readonly Block[]): ParsedBlockInput[] {
  const byId = new Map(current.map((block) => [block.id, block]));
  return content.map((block) => {
    if (!block.id || !MARKED_TYPES.has(block.type) || (block as { marks?: Mark[] }).marks !== undefined) return block;
    const old = byId.get(block.id);
    const marks = old && "marks" in old ? old.marks : undefined;
    if (!marks || old!.text !== block.text) return block;
    return { ...block, marks } as ParsedBlockInput;
  });
}
