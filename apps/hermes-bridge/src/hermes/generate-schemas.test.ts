import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hermesSchemaText, PLUGIN_SOURCE_DIR, SCHEMA_FILE } from "./generate-schemas";

// `hermes plugins install <repo>#apps/hermes-bridge/hermes-plugin/mnote` copies the plugin
// directory as it is in git (hermes_cli/plugins_cmd.py cmd_install), so the schema file
// must be committed, and it is only right while it equals what the contract generates.
describe("the committed tool_schemas.json", () => {
  it("is exactly what the contract generates", () => {
    const committed = readFileSync(join(PLUGIN_SOURCE_DIR, SCHEMA_FILE), "utf8");
    const generated = hermesSchemaText();
    expect(
      committed === generated,
      `apps/hermes-bridge/hermes-plugin/mnote/${SCHEMA_FILE} is not what @mnote/contract generates. ` +
        "Regenerate it with `node apps/hermes-bridge/bin/mnote-bridge.mjs hermes schemas` and commit the result.",
    ).toBe(true);
  });
});
