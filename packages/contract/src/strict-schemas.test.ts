import fc from "fast-check";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { BLOCK_TYPES } from "./blocks";
import type { Schema } from "./hermes-schema-sanitizers.fixture";
import { allToolJsonSchemas, openAiStrictFunction, toolJsonSchema } from "./json-schema";
import { conformsToStrictSchema, openAiStrictViolations } from "./openai-strict-rules.fixture";
import { MODEL_ENVELOPE_FIELDS, modelArgumentsSchema, toolInputSchema } from "./tool-input";
import { TOOL_NAMES, TOOLS, type ToolName } from "./tools";

function rawZodSchema(name: ToolName): Schema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(modelArgumentsSchema(name), {
    io: "input",
    unrepresentable: "any",
  });
  return rest;
}

describe("the OpenAI strict listing", () => {
  const schemas = allToolJsonSchemas();

  it("meets every published strict-mode rule, for every tool", () => {
    for (const schema of schemas)
      expect({ tool: schema.name, violations: openAiStrictViolations(schema.strictParameters) }).toEqual({
        tool: schema.name,
        violations: [],
      });
  });

  it("would catch the non-strict form: optional properties, defaults and lengths are refused", () => {
    const violations = openAiStrictViolations(toolJsonSchema("mnote.page.save").parameters);
    expect(violations).toContain("$.mode: every property must be required");
    expect(violations).toContain("$.mode: keyword default is not supported");
    expect(violations).toContain("$.workspaceId: keyword minLength is not supported");
    expect(violations).toContain("$.content[].level: every property must be required");
    expect(openAiStrictViolations(rawZodSchema("mnote.page.save"))).toContain("$.content[]: no type");
  });

  it("marks the function strict and keeps the contract's name and description", () => {
    const tool = toolJsonSchema("mnote.page.update_title");
    expect(openAiStrictFunction(tool)).toEqual({
      type: "function",
      function: {
        name: "mnote_page_update_title",
        description: tool.description,
        parameters: tool.strictParameters,
        strict: true,
      },
    });
  });

  it("never lets a null stand for dryRun or a defaulted field: those are required and not nullable", () => {
    const save = toolJsonSchema("mnote.page.save").strictParameters.properties as Record<string, Schema>;
    expect(save.dryRun!.type).toBe("boolean");
    expect(save.mode!.type).toBe("string");
    expect(save.mode!.enum).toEqual(["replace", "append"]);
    expect(save.baseRevision!.type).toEqual(["integer", "null"]);
    expect(save.idempotencyKey!.type).toEqual(["string", "null"]);
  });
});

/** Valid flat model arguments for each tool; fc.record leaves out any key not listed as required. */
const text = fc.string({ maxLength: 20 }).filter((s) => s.trim().length > 0);
const blockArb = fc.oneof(
  ...BLOCK_TYPES.map((type) =>
    fc.record(
      {
        type: fc.constant(type),
        id: fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/),
        text: type === "divider" ? fc.constant("") : text,
        ...(type === "heading" ? { level: fc.constantFrom(1, 2, 3) } : {}),
        ...(type === "todo" ? { checked: fc.boolean() } : {}),
        ...(type === "code" ? { language: fc.constantFrom("", "ts", "python") } : {}),
      },
      { requiredKeys: type === "divider" ? ["type"] : ["type", "text"] },
    ),
  ),
);
const blockIdArb = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);
const page = { workspaceId: fc.constant("ws_1"), documentId: fc.constant("doc_1") };
const key = { dryRun: fc.boolean(), idempotencyKey: fc.constantFrom("key-1", "key-2") };
const write = { dryRun: fc.boolean(), idempotencyKey: fc.constantFrom("key-1", "key-2"), baseRevision: fc.nat(50) };
const requiredKeys = <K extends string>(...keys: K[]) => ({
  requiredKeys: ["workspaceId", "documentId", ...keys] as never[],
});
const argumentsArb: { [N in ToolName]: fc.Arbitrary<Record<string, unknown>> } = {
  "mnote.page.get": fc.record(
    {
      ...page,
      includeBody: fc.boolean(),
      includeOptions: fc.boolean(),
      includeBlocks: fc.boolean(),
      startBlockId: blockIdArb,
      limit: fc.integer({ min: 1, max: 500 }),
    },
    requiredKeys(),
  ),
  "mnote.page.save": fc.record(
    { ...page, ...write, content: fc.array(blockArb, { maxLength: 6 }), mode: fc.constantFrom("replace", "append") },
    requiredKeys("content"),
  ),
  "mnote.page.update_title": fc.record({ ...page, ...write, title: text }, requiredKeys("title")),
  "mnote.page.update_options": fc.record(
    {
      ...page,
      ...write,
      options: fc
        .record(
          { wideLayout: fc.boolean(), smallText: fc.boolean(), showToc: fc.boolean(), protectEditing: fc.boolean() },
          { requiredKeys: [] },
        )
        .filter((o) => Object.keys(o).length > 0),
    },
    requiredKeys("options"),
  ),
  // A workspace tool: no documentId (the page it makes does not exist yet).
  "mnote.page.create": fc.oneof(
    fc.record(
      { workspaceId: page.workspaceId, ...key, title: text, markdown: text, private: fc.boolean() },
      { requiredKeys: ["workspaceId", "title", "markdown"] },
    ),
    fc.record(
      { workspaceId: page.workspaceId, ...key, title: text, blocks: fc.array(blockArb, { maxLength: 6 }) },
      { requiredKeys: ["workspaceId", "title", "blocks"] },
    ),
  ),
  "mnote.artifact.create_summary": fc.record({ ...page, ...write, summary: text }, requiredKeys("summary")),
  "mnote.artifact.create_ai_note": fc.record({ ...page, ...write, content: text }, requiredKeys("content")),
  "mnote.comment.create": fc.oneof(
    fc.record(
      { ...page, ...write, blockId: blockIdArb, quote: text, markdown: text },
      requiredKeys("blockId", "markdown"),
    ),
    fc.record(
      { ...page, ...write, threadId: fc.constant("thr_1"), markdown: text },
      requiredKeys("threadId", "markdown"),
    ),
  ),
  "mnote.comment.list": fc.record(
    { ...page, since: fc.constant("2026-12-03T10:00:00Z"), includeResolved: fc.boolean(), cursor: text },
    requiredKeys(),
  ),
  "mnote.workspace.search": fc.record(
    {
      workspaceId: fc.constant("ws_1"),
      query: text,
      limit: fc.integer({ min: 1, max: 50 }),
      cursor: text,
      documentIds: fc.array(blockIdArb, { minLength: 1, maxLength: 3 }),
    },
    { requiredKeys: ["workspaceId", "query"] as never[] },
  ),
  "mnote.page.edit": fc.record(
    {
      ...page,
      ...write,
      operations: fc.array(
        fc.oneof(
          fc.record({ op: fc.constant("replace"), blockId: blockIdArb, text }),
          fc.record({
            op: fc.constant("insert"),
            at: fc.constantFrom("start", "end"),
            blocks: fc.array(blockArb, { minLength: 1, maxLength: 3 }),
          }),
          fc.record({
            op: fc.constant("insert"),
            after: blockIdArb,
            blocks: fc.array(blockArb, { minLength: 1, maxLength: 3 }),
          }),
          fc.record({ op: fc.constant("delete"), blockIds: fc.array(blockIdArb, { minLength: 1, maxLength: 3 }) }),
          fc.record({ op: fc.constant("move"), blockId: blockIdArb, after: blockIdArb }),
        ),
        { minLength: 1, maxLength: 4 },
      ),
    },
    requiredKeys("operations"),
  ),
};

/**
 * What a strict-mode model sends for the same call: every property present, null for
 * an optional one it leaves out, the value of a defaulted one stated (strict mode has
 * no defaults; `portable` carries them).
 */
function strictForm(value: unknown, strict: Schema, portable: Schema): unknown {
  if (Array.isArray(value))
    return value.map((item) => strictForm(item, strict.items as Schema, portable.items as Schema));
  if (typeof value !== "object" || value === null || !strict.properties) return value;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(strict.properties as Record<string, Schema>)) {
    const portableProperty = (portable.properties as Record<string, Schema>)[key]!;
    if (key in record) out[key] = strictForm(record[key], property, portableProperty);
    else out[key] = portableProperty.default !== undefined ? portableProperty.default : null;
  }
  return out;
}

/** The envelope a runtime builds from flat model arguments (as the bridge's from-model-arguments.ts does). */
function envelopeOf(name: ToolName, modelArguments: Record<string, unknown>) {
  const fields = new Set<string>(MODEL_ENVELOPE_FIELDS);
  const args = Object.fromEntries(Object.entries(modelArguments).filter(([k]) => !fields.has(k)));
  const envelope: Record<string, unknown> = {
    toolName: name,
    workspaceId: modelArguments.workspaceId,
    documentId: modelArguments.documentId,
    actorId: "u_1",
    sessionId: "s_1",
    runId: "r_1",
    toolCallId: "c_1",
    traceId: "t_1",
    capabilityScope: ["page.read", "page.write", "artifact.write"],
    args,
  };
  if (TOOLS[name].kind === "write") {
    envelope.dryRun = modelArguments.dryRun ?? false;
    envelope.idempotencyKey = modelArguments.idempotencyKey ?? "runtime-key";
  }
  return envelope;
}

describe("a strict-mode model's arguments at the router", () => {
  for (const name of TOOL_NAMES) {
    it(`${name}: the strict form conforms to the listing and parses to what the plain call parses to`, () => {
      const { strictParameters, parameters } = toolJsonSchema(name);
      fc.assert(
        fc.property(argumentsArb[name], (modelArguments) => {
          const plain = toolInputSchema(name).safeParse(envelopeOf(name, modelArguments));
          expect(plain.success).toBe(true);
          const strictArguments = strictForm(modelArguments, strictParameters, parameters) as Record<string, unknown>;
          expect(conformsToStrictSchema(strictArguments, strictParameters)).toBe(true);
          const strict = toolInputSchema(name).safeParse(envelopeOf(name, strictArguments));
          expect(strict.success).toBe(true);
          expect(strict.data).toEqual(plain.data);
        }),
        { numRuns: 150 },
      );
    });
  }
});
