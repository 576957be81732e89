import { allToolJsonSchemas } from "@mnote/contract";
import type { Tool } from "@modelcontextprotocol/server";
import type { ResultForm } from "../hermes/model-text";

/**
 * The seven tools as MCP lists them: provider-safe names (the description names the
 * canonical `mnote.*` tool), the contract's model-arguments schema as input, the
 * output envelope as output, and the contract's annotations unchanged. The Hermes form
 * declares no outputSchema: its successes carry no structuredContent (see toResult).
 */
export function mcpToolList(form: ResultForm = "standard"): Tool[] {
  // Built once per process and form: every tools/list of every client answers the same list.
  const cached = cachedToolLists.get(form);
  if (cached) return cached;
  const list: Tool[] = allToolJsonSchemas().map((tool) => ({
    name: tool.providerName,
    description: tool.description,
    inputSchema: tool.parameters as Tool["inputSchema"],
    ...(form === "standard" ? { outputSchema: tool.outputSchema } : {}),
    annotations: { ...tool.annotations },
  }));
  cachedToolLists.set(form, list);
  return list;
}

const cachedToolLists = new Map<ResultForm, Tool[]>();
