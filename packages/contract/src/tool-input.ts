import { z } from "zod";
import { IdempotencyKeySchema, IdSchema, InputEnvelopeSchema } from "./envelope";
import { DryRunResultSchema, TOOLS, type ToolName, type Tools } from "./tools";

/**
 * The full envelope one tool accepts: the shared envelope with that tool's args.
 * Writes must name an idempotency key and say whether they are a dry run (contract §4).
 */
export function toolInputSchema<N extends ToolName>(name: N) {
  const tool = TOOLS[name];
  const base = InputEnvelopeSchema.extend({ args: tool.args as Tools[N]["args"] });
  if (tool.kind === "read") return base;
  return base.extend({ idempotencyKey: IdempotencyKeySchema, dryRun: z.boolean() });
}

export type ToolInput<N extends ToolName> = z.input<ReturnType<typeof toolInputSchema<N>>>;
export type ParsedToolInput<N extends ToolName> = z.output<ReturnType<typeof toolInputSchema<N>>>;
export type ToolArgs<N extends ToolName> = z.output<Tools[N]["args"]>;
export type ToolResult<N extends ToolName> = z.output<Tools[N]["result"]>;

/** The envelope fields a model fills itself; the runtime (plugin, MCP server) fills the rest. */
export const MODEL_ENVELOPE_FIELDS = ["workspaceId", "documentId", "dryRun", "idempotencyKey"] as const;

/**
 * What a model is asked for: the page it acts on, the tool's args flattened beside
 * it, and for writes `dryRun` and an optional `idempotencyKey`. The seed's per-tool
 * schemas (§4) have this flat form.
 */
export function modelArgumentsSchema(name: ToolName) {
  const tool = TOOLS[name];
  const page = {
    workspaceId: IdSchema.describe("The workspace of the page."),
    documentId: IdSchema.describe("The page (document) to act on."),
  };
  if (tool.kind === "read") return z.strictObject({ ...page, ...tool.args.shape });
  return z.strictObject({
    ...page,
    ...tool.args.shape,
    dryRun: z
      .boolean()
      .default(false)
      .describe("true: only return the plan and diff, write nothing. Use it first for anything the user should review."),
    idempotencyKey: IdempotencyKeySchema.optional().describe(
      "Reuse the same key when retrying the same edit; a new edit needs a new key. Filled in for you when omitted.",
    ),
  });
}

/** The result a tool's envelope can carry: a write answers either its result or a dry-run plan. */
export function toolResultSchema(name: ToolName) {
  const tool = TOOLS[name];
  return tool.kind === "read" ? tool.result : z.union([tool.result, DryRunResultSchema]);
}
