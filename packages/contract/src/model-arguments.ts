import { z } from "zod";
import { IdempotencyKeySchema, IdSchema } from "./envelope";
import { DryRunResultSchema, scopeOf, TOOLS, type ToolName, type Tools } from "./tools";

/*
 * What a model sees of a tool: its flat arguments and the result it can answer. json-schema.ts builds every
 * listing from these; tool-input.ts builds the router's envelope schema. Kept apart from both so that neither
 * imports the other in a circle.
 */

export type ToolArgs<N extends ToolName> = z.output<Tools[N]["args"]>;
export type ToolResult<N extends ToolName> = z.output<Tools[N]["result"]>;

/** The envelope fields a model fills itself; the runtime (plugin, MCP server) fills the rest. */
export const MODEL_ENVELOPE_FIELDS = ["workspaceId", "documentId", "dryRun", "idempotencyKey"] as const;

/**
 * What a model is asked for: the page it acts on (a workspace tool: the workspace alone), the tool's args flattened
 * beside it, and for writes `dryRun` and an optional `idempotencyKey`. The seed's per-tool schemas (§4) have this
 * flat form.
 */
export function modelArgumentsSchema(name: ToolName) {
  const tool = TOOLS[name];
  const page =
    scopeOf(tool) === "workspace"
      ? { workspaceId: IdSchema.describe("The workspace to act in.") }
      : {
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
      .describe(
        "true: only return the plan and diff, write nothing. Use it first for anything the user should review.",
      ),
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
