import { canonicalToolName, type Capability, MODEL_ENVELOPE_FIELDS, TOOLS } from "@mnote/contract";

export interface RuntimeFields {
  actorId: string;
  capabilityScope: Capability[];
  sessionId: string;
  runId: string;
  toolCallId: string;
  traceId: string;
  /** The key a write gets when the model gave none (see idempotencyKeyForCall). */
  idempotencyKey: string;
}

/** Stand-ins when the token is unknown: the router then answers mnote_tool_unauthenticated, as for any bad token. */
export const UNAUTHENTICATED_IDENTITY = { actorId: "unauthenticated", capabilityScope: ["page.read"] as Capability[] };

const envelopeFields = new Set<string>(MODEL_ENVELOPE_FIELDS);

/**
 * The full input envelope from what a model sent (the flat model arguments of the
 * contract): MODEL_ENVELOPE_FIELDS go to the envelope, everything else into `args`,
 * and the runtime fills identity and trace fields. A write gets `dryRun: false` and the
 * runtime's idempotency key when the model gave none. Nothing is validated here: the
 * router does that and answers the contract's error.
 */
export function envelopeFromModelArguments(
  name: string,
  modelArguments: Record<string, unknown>,
  runtime: RuntimeFields,
): Record<string, unknown> {
  const toolName = canonicalToolName(name);
  const envelope: Record<string, unknown> = {};
  const args: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(modelArguments)) {
    if (envelopeFields.has(key)) envelope[key] = value;
    else args[key] = value;
  }
  if (toolName && TOOLS[toolName].kind === "write") {
    // Only an absent dryRun means a real write; `null` or any other non-boolean is left for the
    // router to refuse, so a confused model never turns a preview into a write.
    if (envelope.dryRun === undefined) envelope.dryRun = false;
    if (envelope.idempotencyKey === undefined || envelope.idempotencyKey === null) {
      envelope.idempotencyKey = runtime.idempotencyKey;
    }
  }
  return {
    toolName: toolName ?? name,
    workspaceId: envelope.workspaceId,
    // Only when the model named a page: a workspace tool's envelope has none (and refuses one sent to it).
    ...("documentId" in envelope ? { documentId: envelope.documentId } : {}),
    actorId: runtime.actorId,
    sessionId: runtime.sessionId,
    runId: runtime.runId,
    toolCallId: runtime.toolCallId,
    traceId: runtime.traceId,
    ...("idempotencyKey" in envelope ? { idempotencyKey: envelope.idempotencyKey } : {}),
    ...("dryRun" in envelope ? { dryRun: envelope.dryRun } : {}),
    capabilityScope: runtime.capabilityScope,
    args,
  };
}
