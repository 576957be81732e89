import { allToolJsonSchemas } from "@mnote/contract";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

/**
 * The six tools as MCP lists them: provider-safe names (the description names the
 * canonical `mnote.*` tool), the contract's model-arguments schema as input, the
 * output envelope as output, and the contract's annotations unchanged.
 */
export function mcpToolList(): Tool[] {
  // Built once per process: /mcp makes a server per request (stateless, decision 0008).
  cachedToolList ??= allToolJsonSchemas().map((tool) => ({
    name: tool.providerName,
    description: tool.description,
    inputSchema: tool.parameters as Tool["inputSchema"],
    outputSchema: tool.outputSchema as Tool["outputSchema"],
    annotations: { ...tool.annotations },
  }));
  return cachedToolList;
}

let cachedToolList: Tool[] | undefined;
