import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { allToolJsonSchemas, MODEL_ENVELOPE_FIELDS, TOOL_ERROR_MESSAGES } from "@mnote/contract";

/** The plugin as shipped in the repo: `apps/hermes-bridge/hermes-plugin/mnote/`. */
export const PLUGIN_SOURCE_DIR = fileURLToPath(new URL("../../hermes-plugin/mnote/", import.meta.url));
export const SCHEMA_FILE = "tool_schemas.json";

/**
 * What the Hermes plugin reads at `register(ctx)`: one OpenAI-style schema per tool
 * (provider-safe name, description naming the canonical tool, the contract's flat
 * model arguments), plus what the handlers need to build envelopes. All of it comes
 * from @mnote/contract; nothing is written by hand.
 */
export function hermesSchemaDocument() {
  return {
    generatedBy: "mnote-bridge (src/hermes/generate-schemas.ts) from @mnote/contract; do not edit",
    modelEnvelopeFields: [...MODEL_ENVELOPE_FIELDS],
    unavailableMessage: TOOL_ERROR_MESSAGES.unavailable,
    tools: allToolJsonSchemas().map((tool) => ({
      name: tool.providerName,
      canonicalName: tool.name,
      kind: tool.kind,
      description: tool.description,
      parameters: tool.parameters,
    })),
  };
}

/** `tool_schemas.json` exactly as generated: the committed copy must be this text. */
export function hermesSchemaText(): string {
  return `${JSON.stringify(hermesSchemaDocument(), null, 2)}\n`;
}

/**
 * Write `tool_schemas.json` into the plugin directory; returns its path. The copy in the
 * repository is committed (Hermes's own `hermes plugins install <repo>#<subdir>` copies the
 * directory as it is in git), so after a contract change run `mnote-bridge hermes schemas`
 * and commit the result; a test fails until they match.
 */
export function generateHermesSchemas(dir: string = PLUGIN_SOURCE_DIR): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, SCHEMA_FILE);
  writeFileSync(path, hermesSchemaText());
  return path;
}

// `tsx src/hermes/generate-schemas.ts [DIR]`
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${generateHermesSchemas(process.argv[2] ? resolve(process.argv[2]) : undefined)}\n`);
}
