import { describe, expect, expectTypeOf, it } from "vitest";
import {
  allToolJsonSchemas,
  canonicalToolName,
  isWorkspaceTool,
  isWriteTool,
  MODEL_ENVELOPE_FIELDS,
  PAGE_CONTENT_IS_DATA,
  TOOL_NAMES,
  toProviderName,
  WRITE_TOOL_NAMES,
  WORKSPACE_TOOL_NAMES,
  type WriteToolName,
} from "./index";

describe("agent-facing schemas", () => {
  const schemas = allToolJsonSchemas();

  it("lists the tools of the contract", () => {
    expect(schemas.map((s) => s.name)).toEqual([
      "mnote.page.get",
      "mnote.page.save",
      "mnote.page.edit",
      "mnote.page.update_title",
      "mnote.page.update_options",
      "mnote.page.create",
      "mnote.artifact.create_summary",
      "mnote.artifact.create_ai_note",
      "mnote.comment.create",
      "mnote.comment.list",
      "mnote.workspace.search",
    ]);
  });

  it("hands models provider-safe names and names the canonical tool in the description", () => {
    for (const schema of schemas) {
      expect(schema.providerName).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(schema.description).toContain(schema.name);
      expect(canonicalToolName(schema.providerName)).toBe(schema.name);
      expect(canonicalToolName(schema.name)).toBe(schema.name);
    }
    expect(canonicalToolName("mnote.page.delete")).toBeNull();
    expect(canonicalToolName("mnote_page_get ")).toBeNull();
    expect(canonicalToolName(42)).toBeNull();
  });

  it("requires what the seed's per-tool schemas require (§4)", () => {
    const byName = Object.fromEntries(
      schemas.map((s) => [s.name, s.parameters as { required: string[]; type: string; additionalProperties: boolean }]),
    );
    expect(byName["mnote.page.get"]!.required).toEqual(["workspaceId", "documentId"]);
    // The seed requires content; issue 21 lets markdown stand in for it (exactly one, checked by the router).
    expect(byName["mnote.page.save"]!.required).toEqual(["workspaceId", "documentId"]);
    expect(Object.keys((byName["mnote.page.save"] as unknown as { properties: object }).properties)).toEqual(
      expect.arrayContaining(["content", "markdown"]),
    );
    expect(byName["mnote.page.update_title"]!.required).toEqual(["workspaceId", "documentId", "title"]);
    expect(byName["mnote.page.update_options"]!.required).toEqual(["workspaceId", "documentId", "options"]);
    expect(byName["mnote.artifact.create_summary"]!.required).toEqual(["workspaceId", "documentId", "summary"]);
    expect(byName["mnote.artifact.create_ai_note"]!.required).toEqual(["workspaceId", "documentId", "content"]);
    // A thread or a reply: blockId or threadId, exactly one (checked by the router), so only the body is required.
    expect(byName["mnote.comment.create"]!.required).toEqual(["workspaceId", "documentId", "markdown"]);
    expect(byName["mnote.comment.list"]!.required).toEqual(["workspaceId", "documentId"]);
    expect(byName["mnote.workspace.search"]!.required).toEqual(["workspaceId", "query"]);
    for (const schema of Object.values(byName)) {
      expect(schema.type).toBe("object");
      expect(schema.additionalProperties).toBe(false);
    }
  });

  it("keeps planned options visible to models but refuses unknown keys", () => {
    const options = (
      schemas.find((s) => s.name === "mnote.page.update_options")!.parameters as {
        properties: { options: { properties: object; additionalProperties: boolean } };
      }
    ).properties.options;
    expect(Object.keys(options.properties)).toEqual(["wideLayout", "smallText", "showToc", "protectEditing"]);
    expect(options.additionalProperties).toBe(false);
  });

  it("gives writes dryRun and idempotencyKey, reads neither", () => {
    for (const schema of schemas) {
      const properties = Object.keys((schema.parameters as { properties: object }).properties);
      const envelopeFields = MODEL_ENVELOPE_FIELDS.filter((f) => properties.includes(f));
      // A workspace tool's envelope names no page.
      const fields = schema.kind === "write" ? [...MODEL_ENVELOPE_FIELDS] : ["workspaceId", "documentId"];
      expect(envelopeFields).toEqual(
        isWorkspaceTool(schema.name) ? fields.filter((field) => field !== "documentId") : fields,
      );
    }
    expect(WORKSPACE_TOOL_NAMES).toEqual(["mnote.workspace.search"]);
  });

  it("describes the output envelope as an object for every tool", () => {
    for (const schema of schemas) {
      const output = schema.outputSchema as { type: string; required: string[] };
      expect(output.type).toBe("object");
      expect(output.required).toEqual(["ok", "toolName", "toolCallId", "traceId", "result", "audit", "error"]);
    }
  });

  it("says in the descriptions of the tools answering page text that it is data, within 1,024 characters", () => {
    for (const schema of schemas) expect(schema.description.length, schema.name).toBeLessThanOrEqual(1024);
    for (const name of ["mnote.page.get", "mnote.page.save", "mnote.page.edit"]) {
      expect(schemas.find((s) => s.name === name)!.description).toContain(PAGE_CONTENT_IS_DATA);
    }
    const get = schemas.find((s) => s.name === "mnote.page.get")!.outputSchema as { properties: { result: unknown } };
    expect(JSON.stringify(get.properties.result)).toContain('"contentNotice"');
  });

  it("maps names both ways", () => {
    for (const name of TOOL_NAMES) expect(canonicalToolName(toProviderName(name))).toBe(name);
  });
});

describe("tool name types", () => {
  it("derives the write tools from the definitions", () => {
    expectTypeOf<WriteToolName>().toEqualTypeOf<
      | "mnote.page.save"
      | "mnote.page.edit"
      | "mnote.page.update_title"
      | "mnote.page.update_options"
      | "mnote.page.create"
      | "mnote.artifact.create_summary"
      | "mnote.artifact.create_ai_note"
      | "mnote.comment.create"
    >();
  });

  it("lists at run time the same write tools the type names", () => {
    const reads: string[] = ["mnote.page.get", "mnote.comment.list", "mnote.workspace.search"];
    expect(WRITE_TOOL_NAMES).toEqual(TOOL_NAMES.filter((name) => !reads.includes(name)));
    expect(isWriteTool("mnote.page.save")).toBe(true);
    expect(isWriteTool("mnote.page.get")).toBe(false);
    expect(isWriteTool("mnote.page.delete")).toBe(false);
  });
});
