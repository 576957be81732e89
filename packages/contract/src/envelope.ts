import { z } from "zod";
import { TOOL_ERROR_CODES } from "./errors";
import { LIMITS } from "./limits";
import { PRINTABLE, storable } from "./text";

export const CAPABILITIES = ["page.read", "page.write", "artifact.write"] as const;
export const CapabilitySchema = z.enum(CAPABILITIES);
export type Capability = z.infer<typeof CapabilitySchema>;

// No control characters in ids: they end up in logs and headers.
const printable = PRINTABLE;
export const IdSchema = storable(z.string())
  .min(1)
  .max(LIMITS.idLength)
  .regex(printable, "must not contain control characters");
const TraceFieldSchema = storable(z.string())
  .min(1)
  .max(LIMITS.traceFieldLength)
  .regex(printable, "must not contain control characters");
export const IdempotencyKeySchema = storable(z.string())
  .min(1)
  .max(LIMITS.idempotencyKeyLength)
  .regex(printable, "must not contain control characters");

/**
 * The one input envelope (contract §2). `args` is checked per tool; the other fields
 * are the same for every tool. Unknown fields are refused so a typo never goes unnoticed.
 */
export const InputEnvelopeSchema = z.strictObject({
  toolName: z.string().min(1).max(LIMITS.idLength),
  workspaceId: IdSchema,
  documentId: IdSchema,
  actorId: IdSchema,
  sessionId: TraceFieldSchema,
  runId: TraceFieldSchema,
  toolCallId: TraceFieldSchema,
  traceId: TraceFieldSchema,
  idempotencyKey: IdempotencyKeySchema.optional(),
  dryRun: z.boolean().optional(),
  capabilityScope: z.array(CapabilitySchema).min(1).max(CAPABILITIES.length),
  args: z.record(z.string(), z.unknown()),
});
export type InputEnvelope = z.infer<typeof InputEnvelopeSchema>;

/** What a call of a page tool without a page hears: the page tools act on one page, named by the envelope. */
export const PAGE_TOOL_NEEDS_DOCUMENT =
  "a page tool acts on one page: name it in documentId (workspace tools such as mnote.workspace.search take none)";
/** What a call of a workspace tool with a page hears: it acts on the whole workspace, so a page id would be ignored. */
export const WORKSPACE_TOOL_TAKES_NO_DOCUMENT =
  "a workspace tool acts on the whole workspace and takes no documentId: leave it out";

/**
 * The envelope of a page tool (the default): `documentId` names the page, and leaving it out says so in words.
 * The same fields as `InputEnvelopeSchema`, whose `documentId` rule the doors echo.
 */
export const PageInputEnvelopeSchema = InputEnvelopeSchema.extend({
  // Typed as the id it is: the pipe's first step only turns "missing" into words, IdSchema is the rule.
  documentId: z
    .unknown()
    .refine((value) => value !== undefined, { message: PAGE_TOOL_NEEDS_DOCUMENT })
    .pipe(IdSchema) as unknown as typeof IdSchema,
});

/**
 * The envelope of a workspace tool (`scope: "workspace"`): the same fields without `documentId`, which is refused
 * with a message (a page id in a workspace call is a caller's mistake worth hearing about, not a field to ignore).
 */
export const WorkspaceInputEnvelopeSchema = InputEnvelopeSchema.extend({
  documentId: z.never({ error: WORKSPACE_TOOL_TAKES_NO_DOCUMENT }).optional(),
});

export const EFFECTS = ["read", "write", "dry_run", "none"] as const;
export const EffectSchema = z.enum(EFFECTS);
export type Effect = z.infer<typeof EffectSchema>;

export const AuditRefSchema = z.object({
  effect: EffectSchema,
  commandId: z.string().nullable(),
  workspaceId: z.string().nullable(),
  documentId: z.string().nullable(),
});

export const ToolErrorSchema = z.object({
  code: z.enum(TOOL_ERROR_CODES),
  message: z.string(),
});
export type ToolError = z.infer<typeof ToolErrorSchema>;

/** The one output envelope (contract §3), for success and failure alike. */
export function outputEnvelopeSchema<R extends z.ZodType>(result: R) {
  return z.object({
    ok: z.boolean(),
    toolName: z.string(),
    toolCallId: z.string().nullable(),
    traceId: z.string().nullable(),
    result: result.nullable(),
    audit: AuditRefSchema,
    error: ToolErrorSchema.nullable(),
  });
}
export const OutputEnvelopeSchema = outputEnvelopeSchema(z.unknown());

export type OutputEnvelope<R = unknown> = {
  ok: boolean;
  toolName: string;
  toolCallId: string | null;
  traceId: string | null;
  result: R | null;
  audit: z.infer<typeof AuditRefSchema>;
  error: ToolError | null;
};
