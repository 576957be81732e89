import { type Capability, TOOLS, type ToolName, toolInputSchema } from "@mnote/contract";
import type { z } from "zod";

/** Which page permission a call needs after membership is established. */
export type AccessNeed = "page_read" | "page_write" | "artifact_write";

/**
 * What the middleware chain needs to know about a procedure. The agent tools (`TOOL_NAMES`)
 * come from the contract; the panel's revert is the one extra write, built the same way.
 */
export interface ToolSpec {
  name: string;
  kind: "read" | "write";
  capability: Capability;
  access: AccessNeed;
  inputSchema: z.ZodType;
  /** Page writes from agent tokens wait for a person when the workspace asks for approval. */
  holdsForApproval: boolean;
}

function accessFor(name: ToolName): AccessNeed {
  const tool = TOOLS[name];
  if (tool.kind === "read") return "page_read";
  return tool.capability === "artifact.write" ? "artifact_write" : "page_write";
}

export function contractToolSpec(name: ToolName): ToolSpec {
  const tool = TOOLS[name];
  return {
    name,
    kind: tool.kind,
    capability: tool.capability,
    access: accessFor(name),
    inputSchema: toolInputSchema(name),
    holdsForApproval: accessFor(name) === "page_write",
  };
}
