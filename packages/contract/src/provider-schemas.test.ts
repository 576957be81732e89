import { z } from "zod";
import { describe, expect, it } from "vitest";
import { BLOCK_TYPES } from "./blocks";
import { HERMES_DOORS, HERMES_PROVIDERS, hermesProviderSchema, type Schema } from "./hermes-schema-sanitizers.fixture";
import { allToolJsonSchemas, portableJsonSchema, toolJsonSchema } from "./json-schema";
import { modelArgumentsSchema } from "./tool-input";
import { TOOLS, type ToolName } from "./tools";

/**
 * What a model learns from a schema: each field's path, type, allowed values, limits,
 * default, description and which fields are required. Keywords a provider may drop
 * without the router losing anything (additionalProperties, pattern, format, nullable)
 * are left out.
 */
function structure(schema: Schema, path = "$", out: Record<string, unknown> = {}): Record<string, unknown> {
  const types = Array.isArray(schema.type) ? schema.type.filter((t) => t !== "null") : schema.type;
  out[path] = {
    type: types ?? null,
    enum: Array.isArray(schema.enum) ? schema.enum.filter((v) => v !== null) : null,
    description: schema.description ?? null,
    required: schema.required ?? null,
    properties: schema.properties ? Object.keys(schema.properties) : null,
    limits: ["minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "default"].map(
      (k) => schema[k] ?? null,
    ),
  };
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    structure(property, `${path}.${name}`, out);
  }
  if (schema.items && typeof schema.items === "object") structure(schema.items as Schema, `${path}[]`, out);
  return out;
}

function rawZodSchema(name: ToolName): Schema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(modelArgumentsSchema(name), {
    io: "input",
    unrepresentable: "any",
  });
  return rest;
}

const doors = Object.keys(HERMES_DOORS) as (keyof typeof HERMES_DOORS)[];
const providers = Object.keys(HERMES_PROVIDERS) as (keyof typeof HERMES_PROVIDERS)[];

describe("model-argument schemas through every provider sanitizer Hermes ships", () => {
  const schemas = allToolJsonSchemas();

  it("keep every field, type, value list, limit and description, through either door", () => {
    for (const schema of schemas) {
      const expected = structure(schema.parameters);
      for (const door of doors) {
        for (const provider of providers) {
          const sanitized = hermesProviderSchema(schema.parameters, door, provider);
          expect({ tool: schema.name, door, provider, structure: structure(sanitized) }).toEqual({
            tool: schema.name,
            door,
            provider,
            structure: expected,
          });
        }
      }
    }
  });

  it("describe every block type's fields in page.save's content items, Gemini included", () => {
    const save = toolJsonSchema("mnote.page.save").parameters;
    for (const door of doors) {
      for (const provider of providers) {
        const items = (hermesProviderSchema(save, door, provider).properties as Record<string, Schema>).content!
          .items as Schema;
        const fields = items.properties as Record<string, Schema>;
        expect(Object.keys(fields)).toEqual(["type", "id", "text", "marks", "level", "indent", "checked", "language"]);
        expect(fields.indent).toMatchObject({ type: "integer", minimum: 0, maximum: 3 });
        expect(fields.indent!.description).toContain("Only for types bulleted, numbered, todo.");
        expect((fields.marks!.items as Schema).properties).toHaveProperty("href");
        expect(fields.type!.enum).toEqual(BLOCK_TYPES);
        expect(items.required).toEqual(["type"]);
        expect(fields.level).toMatchObject({
          type: "integer",
          minimum: 1,
          maximum: 3,
          description: "Only for type heading. Default 1.",
        });
        expect(fields.checked).toMatchObject({ type: "boolean", description: "Only for type todo. Default false." });
        expect(fields.language).toMatchObject({
          type: "string",
          maxLength: 40,
          description: 'Only for type code. Default "".',
        });
        expect(fields.text!.description).toBe('Required except for type divider. Default "" for divider.');
      }
    }
  });

  it("would catch the union form: Gemini's sanitizer turns zod's oneOf block items into {}", () => {
    const items = (
      hermesProviderSchema(rawZodSchema("mnote.page.save"), "plugin", "gemini").properties as Record<string, Schema>
    ).content!.items;
    expect(items).toEqual({});
  });

  it("use no keyword a Hermes provider drops: no oneOf, allOf, const or $ref anywhere", () => {
    for (const schema of schemas) {
      const text = JSON.stringify(schema.parameters);
      for (const keyword of ['"oneOf"', '"allOf"', '"const"', '"$ref"', '"not"']) expect(text).not.toContain(keyword);
    }
  });

  it("still validate the same arguments: the merged item form admits every block zod admits", () => {
    const items = (toolJsonSchema("mnote.page.save").parameters.properties as Record<string, Schema>).content!
      .items as Schema;
    const fields = items.properties as Record<string, Schema>;
    for (const type of BLOCK_TYPES) {
      const variant = TOOLS["mnote.page.save"].args.shape.content
        .unwrap()
        .element.options.find((o) => o.shape.type.value === type)!;
      for (const key of Object.keys(variant.shape)) expect(fields).toHaveProperty(key);
    }
  });

  it("refuse to merge union branches that disagree on a field's type", () => {
    const branch = (tag: string, x: Schema) => ({
      type: "object",
      properties: { kind: { type: "string", const: tag }, x },
      required: ["kind"],
      additionalProperties: false,
    });
    expect(() =>
      portableJsonSchema({ oneOf: [branch("a", { type: "string" }), branch("b", { type: "number" })] }),
    ).toThrow(/disagree on the schema of "x"/);
    expect(
      portableJsonSchema({
        anyOf: [
          { type: "number", const: 1 },
          { type: "number", const: 5 },
        ],
      }),
    ).toEqual({
      type: "integer",
      enum: [1, 5],
      description: "One of 1, 5.",
    });
  });
});
