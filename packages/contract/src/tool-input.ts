import { z } from "zod";
import { IdempotencyKeySchema, InputEnvelopeSchema } from "./envelope";
import { type NullableFields, strictNullableArgs } from "./json-schema";
import { TOOLS, type ToolName, type Tools } from "./tools";

export {
  MODEL_ENVELOPE_FIELDS,
  modelArgumentsSchema,
  type ToolArgs,
  type ToolResult,
  toolResultSchema,
} from "./model-arguments";

/**
 * The full envelope one tool accepts: the shared envelope with that tool's args.
 * Writes must name an idempotency key and say whether they are a dry run (contract §4).
 */
export function toolInputSchema<N extends ToolName>(name: N) {
  const tool = TOOLS[name];
  const nullable = strictNullableArgs(name);
  // The cast keeps each tool's args type: the preprocess step only drops nulls.
  const args = z.preprocess((value) => withoutNullArgs(value, nullable), tool.args) as unknown as Tools[N]["args"];
  const base = InputEnvelopeSchema.extend({ args });
  if (tool.kind === "read") return base;
  return base.extend({ idempotencyKey: IdempotencyKeySchema, dryRun: z.boolean() });
}

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
