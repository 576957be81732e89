import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { hermesMcpConfig } from "./install";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../../..");
const DOCS = ["README.md", "apps/hermes-bridge/README.md", "docs/security.md"];

/** Every `mcp_servers` entry over HTTP (a `url:`) in a YAML block, as written (comments' `#` taken off). */
function httpEntries(text: string): string[] {
  const blocks = [...text.matchAll(/```ya?ml\n([\s\S]*?)```/g)].map((m) => m[1]!);
  blocks.push(text);
  return blocks
    .map((block) => block.replace(/^(\s*)# ?/gm, "$1"))
    .filter((block) => /mcp_servers:/.test(block) && /\burl:\s*"?https?:/.test(block))
    .flatMap((block) => block.split(/\n(?=\s*mcp_servers:)/).filter((entry) => /\burl:/.test(entry)));
}

describe("every documented Hermes MCP config keeps the Hermes result form (issue 35 item 4)", () => {
  it("the README blocks, OAuth included, send X-Mnote-Result-Form: hermes", () => {
    const entries = DOCS.flatMap((doc) => httpEntries(readFileSync(join(ROOT, doc), "utf8")));
    expect(entries.length).toBeGreaterThanOrEqual(3);
    expect(entries.some((entry) => /auth:\s*oauth/.test(entry))).toBe(true);
    for (const entry of entries) expect(entry).toMatch(/X-Mnote-Result-Form:\s*"?hermes"?/);
  });

  it("`mnote-bridge hermes config` prints the header in the token and the OAuth forms, and the login step", () => {
    const printed = hermesMcpConfig();
    const entries = httpEntries(printed);
    expect(entries.length).toBe(2);
    for (const entry of entries) expect(entry).toMatch(/X-Mnote-Result-Form:\s*"hermes"/);
    expect(printed).toContain("hermes mcp login mnote");
  });
});
