import { z } from "zod";
import { IdempotencyKeySchema, PageInputEnvelopeSchema, WorkspaceInputEnvelopeSchema } from "./envelope";
import { type NullableFields, strictNullableArgs } from "./json-schema";
import { scopeOf, TOOLS, type ToolName, type Tools } from "./tools";

export {
  MODEL_ENVELOPE_FIELDS,
  modelArgumentsSchema,
  type ToolArgs,
  type ToolResult,
  toolResultSchema,
} from "./model-arguments";

/**
 * The full envelope one tool accepts: the shared envelope with that tool's args.
 * Writes must name an idempotency key and say whether they are a dry run (contract §4). A page tool's envelope names
 * its page (`documentId`); a workspace tool's names none.
 */
export function toolInputSchema<N extends ToolName>(name: N) {
  const tool = TOOLS[name];
  const nullable = strictNullableArgs(name);
  // The cast keeps each tool's args type: the preprocess step only drops nulls.
  const args = z.preprocess((value) => withoutNullArgs(value, nullable), tool.args) as unknown as Tools[N]["args"];
  const envelope = scopeOf(tool) === "workspace" ? WorkspaceInputEnvelopeSchema : PageInputEnvelopeSchema;
  const base = envelope.extend({ args });
  // The cast keeps each tool's own envelope type (its scope's, its kind's): the branches taken are the ones it names.
  if (tool.kind === "read") return base as unknown as ToolInputSchema<N>;
  return base.extend({ idempotencyKey: IdempotencyKeySchema, dryRun: z.boolean() }) as unknown as ToolInputSchema<N>;
}

/** The envelope a tool's scope calls for: a page tool's names its page, a workspace tool's names none. */
type EnvelopeShape<N extends ToolName> = (Tools[N] extends { scope: "workspace" }
  ? typeof WorkspaceInputEnvelopeSchema
  : typeof PageInputEnvelopeSchema)["shape"];
type WriteFields = { idempotencyKey: typeof IdempotencyKeySchema; dryRun: z.ZodBoolean };
type WithArgs<N extends ToolName> = Omit<EnvelopeShape<N>, "args"> & { args: Tools[N]["args"] };
/**
 * One tool's whole input envelope schema: its scope's envelope with its args, or that with a write's required fields
 * (typed as either, as it always was: the typed clients' envelopes leave the write fields to the runtime check).
 */
export type ToolInputSchema<N extends ToolName> =
  | z.ZodObject<WithArgs<N>, z.core.$strict>
  | z.ZodObject<Omit<WithArgs<N>, keyof WriteFields> & WriteFields, z.core.$strict>;

/**
 * Args with null dropped wherever the strict listing lets a model send null for "left
 * out" (decision 0010): OpenAI strict mode makes a model send every property, null
 * for an optional one. Only those fields: a null for a field with a default (`mode`,
 * `includeBlocks`), a required field, an unknown key or an array element is still
 * refused, and envelope fields are not args (a null `dryRun` is never a real write).
 * The walk follows the schema's fields, so its depth is the schema's, whatever the
 * input's; the input is not modified, and an object or array is copied only when a null
 * is dropped inside it.
 */
export function withoutNullArgs(value: unknown, fields: NullableFields): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const items = fields.items;
    // Over the limit it is refused whatever it holds: zod says so without reading it, and so does this.
    if (!items || (fields.maxItems !== undefined && value.length > fields.maxItems)) return value;
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item = withoutNullArgs(value[i], items);
      if (item !== value[i]) (copy ??= value.slice())[i] = item;
    }
    return copy ?? value;
  }
  // Only the schema's few fields are looked at, not every key the caller sent.
  const record = value as Record<string, unknown>;
  let out: Record<string, unknown> | null = null;
  for (const key of fields.nullable) {
    if (record[key] === null && Object.hasOwn(record, key)) delete (out ??= copyOwn(record))[key];
  }
  for (const [key, inner] of fields.properties) {
    if (!Object.hasOwn(record, key)) continue;
    const item = record[key];
    const cleaned = withoutNullArgs(item, inner);
    if (cleaned !== item) (out ??= copyOwn(record))[key] = cleaned;
  }
  return out ?? value;
}

/**
 * A copy with every own key. Spread defines properties rather than assigning them, so a
 * JSON key named "__proto__" stays a key (one the schema refuses), not a prototype.
 */
function copyOwn(record: Record<string, unknown>): Record<string, unknown> {
  return { ...record };
}

export type ToolInput<N extends ToolName> = z.input<ReturnType<typeof toolInputSchema<N>>>;
export type ParsedToolInput<N extends ToolName> = z.output<ReturnType<typeof toolInputSchema<N>>>;
