import { z } from "zod";
import { describe, expect, it } from "vitest";
import { strictNullableArgs } from "./json-schema";
import { LIMITS } from "./limits";
import { toolInputSchema, withoutNullArgs } from "./tool-input";
import { TOOL_NAMES, TOOLS, type ToolName } from "./tools";

function envelope(name: ToolName, args: Record<string, unknown>) {
  return {
    toolName: name,
    workspaceId: "ws_1",
    documentId: "doc_1",
    actorId: "u_1",
    sessionId: "s_1",
    runId: "r_1",
    toolCallId: "c_1",
    traceId: "t_1",
    capabilityScope: ["page.read", "page.write", "artifact.write"],
    idempotencyKey: "key-1",
    dryRun: false,
    args,
  };
}

describe("null args mean absent; null envelope fields do not", () => {
  const base = envelope("mnote.page.update_title", { title: "T" });

  it("refuses a null dryRun: a confused model never turns a preview into a write", () => {
    const parsed = toolInputSchema("mnote.page.update_title").safeParse({ ...base, dryRun: null });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path).toEqual(["dryRun"]);
  });

  it("refuses a null idempotency key and a null required arg", () => {
    expect(toolInputSchema("mnote.page.update_title").safeParse({ ...base, idempotencyKey: null }).success).toBe(false);
    expect(toolInputSchema("mnote.page.update_title").safeParse({ ...base, args: { title: null } }).success).toBe(
      false,
    );
    const save = envelope("mnote.page.save", { content: [{ type: "paragraph", text: null }] });
    expect(toolInputSchema("mnote.page.save").safeParse(save).success).toBe(false);
    expect(toolInputSchema("mnote.page.save").safeParse({ ...save, args: { content: [null] } }).success).toBe(false);
  });

  it("keeps a JSON key named __proto__ a key the schema refuses", () => {
    const args = JSON.parse('{"title":"T","baseRevision":null,"__proto__":{"x":1}}');
    const parsed = toolInputSchema("mnote.page.update_title").safeParse({ ...base, args });
    expect(parsed.success).toBe(false);
  });

  it("answers deeply nested args with a refusal, not a stack overflow", () => {
    let deep: unknown = null;
    for (let i = 0; i < 100_000; i++) deep = { nested: deep };
    expect(toolInputSchema("mnote.page.update_title").safeParse({ ...base, args: { title: deep } }).success).toBe(
      false,
    );
  });

  it("leaves the caller's input as it was", () => {
    const args = { title: "T", baseRevision: null };
    toolInputSchema("mnote.page.update_title").parse({ ...base, args });
    expect(args).toEqual({ title: "T", baseRevision: null });
  });

  it("holds because no tool arg takes null as a value: a nullable arg would need another rule", () => {
    for (const name of TOOL_NAMES) {
      const text = JSON.stringify(z.toJSONSchema(TOOLS[name].args, { io: "input", unrepresentable: "any" }));
      expect(text).not.toContain('"null"');
      expect(text).not.toContain('"nullable"');
    }
  });
});

describe("withoutNullArgs", () => {
  const save = strictNullableArgs("mnote.page.save");

  it("drops null only where the strict listing allows null: optional fields, block fields, not defaults or unknown keys", () => {
    const args = {
      baseRevision: null,
      mode: null,
      surprise: null,
      content: [
        { type: "paragraph", text: "x", id: null, level: null, checked: null, language: null, color: null },
        null,
      ],
    };
    expect(withoutNullArgs(args, save)).toEqual({
      mode: null,
      surprise: null,
      content: [{ type: "paragraph", text: "x", color: null }, null],
    });
    expect(args.baseRevision).toBeNull();
  });

  it("knows the nullable fields of each tool, and no envelope field", () => {
    expect([...save.nullable]).toEqual(["content", "markdown", "baseRevision"]);
    expect([...save.properties.get("content")!.items!.nullable]).toEqual([
      "id",
      "text",
      "marks",
      "level",
      "indent",
      "checked",
      "language",
    ]);
    expect([...strictNullableArgs("mnote.page.update_options").properties.get("options")!.nullable]).toEqual([
      "wideLayout",
      "smallText",
      "showToc",
      "protectEditing",
    ]);
    expect([...strictNullableArgs("mnote.page.get").nullable]).toEqual(["search", "startBlockId", "limit", "cursor"]);
    expect([...save.properties.get("content")!.items!.properties.get("marks")!.items!.nullable]).toEqual(["href"]);
  });

  it("leaves an array over the schema's limit as it is: the schema refuses it without reading it", () => {
    const block = { type: "paragraph", text: "x", id: null, level: null, checked: null, language: null };
    const tooMany = Array.from({ length: LIMITS.blocksPerSave + 1 }, () => block);
    expect((withoutNullArgs({ content: tooMany }, save) as { content: unknown }).content).toBe(tooMany);
    expect((withoutNullArgs({ content: [block] }, save) as { content: unknown[] }).content[0]).toEqual({
      type: "paragraph",
      text: "x",
    });
  });

  it("returns the same object when there is nothing to drop", () => {
    const args = { content: [{ type: "paragraph", text: "x" }], mode: "append" };
    expect(withoutNullArgs(args, save)).toBe(args);
  });

  it("reads a null optional arg as absent, for every tool's baseRevision", () => {
    const samples: Partial<Record<ToolName, Record<string, unknown>>> = {
      "mnote.page.save": { content: [] },
      "mnote.page.update_title": { title: "T" },
      "mnote.page.update_options": { options: { wideLayout: true } },
      "mnote.artifact.create_summary": { summary: "S" },
      "mnote.artifact.create_ai_note": { content: "N" },
    };
    for (const [name, args] of Object.entries(samples) as [ToolName, Record<string, unknown>][]) {
      const withNull = toolInputSchema(name).parse(envelope(name, { ...args, baseRevision: null }));
      const without = toolInputSchema(name).parse(envelope(name, args));
      expect(withNull).toEqual(without);
      expect(withNull.args).not.toHaveProperty("baseRevision");
    }
  });

  it("still refuses a null for a field with a default, an unknown key or an envelope field put in args", () => {
    const refused: [ToolName, Record<string, unknown>][] = [
      ["mnote.page.get", { includeBlocks: null }],
      ["mnote.page.save", { content: [], mode: null }],
      ["mnote.page.save", { content: [], idempotencyKey: null }],
      ["mnote.page.update_title", { title: "T", surprise: null }],
      ["mnote.page.update_options", { options: { wideLayout: null } }],
    ];
    for (const [name, args] of refused)
      expect(toolInputSchema(name).safeParse(envelope(name, args)).success).toBe(false);
  });
});
