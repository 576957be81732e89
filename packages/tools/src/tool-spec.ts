import {
  type Capability,
  type InputEnvelope,
  type ParsedToolInput,
  TOOLS,
  type ToolInput,
  type ToolName,
  type ToolScope,
  scopeOf,
  toolInputSchema,
} from "@mnote/contract";
import type { z } from "zod";

/**
 * Which page permission a call needs after membership is established. `page_create`: the page does not exist yet
 * (mnote.page.create); the member's role decides (decision 0046).
 */
export type AccessNeed = "page_read" | "page_write" | "artifact_write" | "page_create";

/**
 * A tool's input envelope once its schema parsed it: the contract's envelope fields, and the tool's own args. A page
 * tool's names its page; a workspace tool's has no `documentId`.
 */
export type ParsedEnvelope<Args = unknown> = Omit<InputEnvelope, "args" | "documentId"> & {
  documentId?: string;
  args: Args;
};

/** What the checks need to know about a tool, whatever its input. */
export interface ToolRules {
  name: string;
  kind: "read" | "write";
  capability: Capability;
  /** A page tool's checks load the page and its permission; a workspace tool's stop at membership. */
  scope: ToolScope;
  access: AccessNeed;
  /** Page writes from agent tokens wait for a person when the workspace asks for approval. */
  holdsForApproval: boolean;
}

/**
 * A tool as its procedure is built from it: its rules, and the schema of its whole input envelope, which says both
 * what a client sends (`Sent`, the typed client's input) and what the tool's code receives (`Input`, args typed).
 * The agent tools (`TOOL_NAMES`) come from the contract (`contractToolSpec`); the panel's revert is the one extra
 * write, built the same way.
 */
export interface ToolSpec<Input extends ParsedEnvelope = ParsedEnvelope, Sent = unknown> extends ToolRules {
  inputSchema: z.ZodType<Input, Sent>;
}

function accessFor(name: ToolName): AccessNeed {
  const tool = TOOLS[name];
  if (tool.kind === "read") return "page_read";
  if (tool.commandName === "page.create") return "page_create";
  return tool.capability === "artifact.write" ? "artifact_write" : "page_write";
}

/** Each contract tool's input as its schema parses it: the envelope with its args typed as `ToolArgs<N>`. */
export type ContractToolInput = { [N in ToolName]: ParsedToolInput<N> };

function specOf<Input extends ParsedEnvelope, Sent>(
  name: ToolName,
  inputSchema: z.ZodType<Input, Sent>,
): ToolSpec<Input, Sent> {
  const tool = TOOLS[name];
  return {
    name,
    kind: tool.kind,
    capability: tool.capability,
    scope: scopeOf(tool),
    access: accessFor(name),
    inputSchema,
    holdsForApproval: accessFor(name) === "page_write" || accessFor(name) === "page_create",
  };
}

/**
 * Every contract tool's spec, built once. Typed tool by tool (the schema's parsed input is that tool's), so a tool
 * added to the contract without its spec here does not compile.
 */
const CONTRACT_TOOL_SPECS: { [N in ToolName]: ToolSpec<ContractToolInput[N], ToolInput<N>> } = {
  "mnote.page.get": specOf("mnote.page.get", toolInputSchema("mnote.page.get")),
  "mnote.page.save": specOf("mnote.page.save", toolInputSchema("mnote.page.save")),
  "mnote.page.edit": specOf("mnote.page.edit", toolInputSchema("mnote.page.edit")),
  "mnote.page.update_title": specOf("mnote.page.update_title", toolInputSchema("mnote.page.update_title")),
  "mnote.page.update_options": specOf("mnote.page.update_options", toolInputSchema("mnote.page.update_options")),
  "mnote.page.create": specOf("mnote.page.create", toolInputSchema("mnote.page.create")),
  "mnote.artifact.create_summary": specOf(
    "mnote.artifact.create_summary",
    toolInputSchema("mnote.artifact.create_summary"),
  ),
  "mnote.artifact.create_ai_note": specOf(
    "mnote.artifact.create_ai_note",
    toolInputSchema("mnote.artifact.create_ai_note"),
  ),
  "mnote.comment.create": specOf("mnote.comment.create", toolInputSchema("mnote.comment.create")),
  "mnote.comment.list": specOf("mnote.comment.list", toolInputSchema("mnote.comment.list")),
  "mnote.workspace.search": specOf("mnote.workspace.search", toolInputSchema("mnote.workspace.search")),
};

/** A contract tool's spec: its rules, and a schema that parses its input as `ContractToolInput[N]`. */
export function contractToolSpec<N extends ToolName>(name: N): ToolSpec<ContractToolInput[N], ToolInput<N>> {
  return CONTRACT_TOOL_SPECS[name];
}
