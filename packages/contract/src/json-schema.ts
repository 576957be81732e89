import { z } from "zod";
import { outputEnvelopeSchema } from "./envelope";
import { toProviderName } from "./names";
import { modelArgumentsSchema, toolResultSchema } from "./tool-input";
import { TOOL_NAMES, TOOLS, type ToolName } from "./tools";

export interface ToolJsonSchema {
  /** Canonical identity, e.g. `mnote.page.get`. */
  name: ToolName;
  /** What models are handed, e.g. `mnote_page_get`. */
  providerName: string;
  description: string;
  kind: "read" | "write";
  /** JSON Schema of the flat model arguments (input side). */
  parameters: Record<string, unknown>;
  /** JSON Schema of the output envelope. */
  outputSchema: Record<string, unknown>;
  annotations: (typeof TOOLS)[ToolName]["annotations"];
}

function strip$schema(schema: Record<string, unknown>) {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

/** The only place agent-facing JSON Schemas come from: the zod contract. */
export function toolJsonSchema(name: ToolName): ToolJsonSchema {
  const tool = TOOLS[name];
  return {
    name,
    providerName: toProviderName(name),
    description: `${tool.description} (mnote tool ${name})`,
    kind: tool.kind,
    parameters: strip$schema(z.toJSONSchema(modelArgumentsSchema(name), { io: "input", unrepresentable: "any" })),
    outputSchema: strip$schema(
      z.toJSONSchema(outputEnvelopeSchema(toolResultSchema(name)), { io: "output", unrepresentable: "any" }),
    ),
    annotations: tool.annotations,
  };
}

export function allToolJsonSchemas(): ToolJsonSchema[] {
  return TOOL_NAMES.map(toolJsonSchema);
}
