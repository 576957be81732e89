import { z } from "zod";
import { IdempotencyKeySchema, IdSchema, InputEnvelopeSchema } from "./envelope";
import { DryRunResultSchema, TOOLS, type ToolName, type Tools } from "./tools";

/**
 * The full envelope one tool accepts: the shared envelope with that tool's args.
 * Writes must name an idempotency key and say whether they are a dry run (contract §4).
 */
export function toolInputSchema<N extends ToolName>(name: N) {
  const tool = TOOLS[name];
  // The cast keeps each tool's args type: the preprocess step only drops null fields.
  const args = z.preprocess((value) => withoutNullFields(value), tool.args) as unknown as Tools[N]["args"];
  const base = InputEnvelopeSchema.extend({ args });
  if (tool.kind === "read") return base;
  return base.extend({ idempotencyKey: IdempotencyKeySchema, dryRun: z.boolean() });
}

/** Deep enough for every tool's args (args → content → block → field); deeper input is left for the schema to refuse. */
const NULL_FIELD_DEPTH = 6;

/**
 * Args with every null-valued object field removed: in `args`, null means "absent"
 * (decision 0008-h3). OpenAI strict mode makes a model send every property, null for
 * the ones it leaves out; no arg accepts null as a value (a test holds that), so this
 * only turns a refusal into the field's documented absence. Envelope fields are not
 * touched: a null `dryRun` is still refused, never taken as a real write. The input is
 * not modified; an object or array is copied only when a null is dropped inside it.
 */
export function withoutNullFields(value: unknown, depth = 0): unknown {
  if (depth > NULL_FIELD_DEPTH || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item = withoutNullFields(value[i], depth + 1);
      if (item !== value[i]) (copy ??= value.slice())[i] = item;
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  const kept: [string, unknown][] = [];
  let changed = false;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (item === null) {
      changed = true;
      continue;
    }
    const cleaned = withoutNullFields(item, depth + 1);
    if (cleaned !== item) changed = true;
    kept.push([key, cleaned]);
  }
  if (!changed) return value;
  const out: Record<string, unknown> = {};
  // defineProperty, so a JSON key named "__proto__" stays a key the schema refuses.
  for (const [key, item] of kept) Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
  return out;
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
