import { z } from "zod";
import { outputEnvelopeSchema } from "./envelope";
import { toProviderName } from "./names";
import { MODEL_ENVELOPE_FIELDS, modelArgumentsSchema, toolResultSchema } from "./model-arguments";
import { TOOL_NAMES, TOOLS, type ToolName } from "./tools";

type JsonSchema = Record<string, unknown>;

export interface ToolJsonSchema {
  /** Canonical identity, e.g. `mnote.page.get`. */
  name: ToolName;
  /** What models are handed, e.g. `mnote_page_get`. */
  providerName: string;
  description: string;
  kind: "read" | "write";
  /**
   * JSON Schema of the flat model arguments (input side), in the portable form: no
   * `oneOf` or `const`, so every provider sanitizer Hermes ships keeps its structure
   * (decision 0010).
   */
  parameters: JsonSchema;
  /** The same arguments in OpenAI's strict-mode subset: every property required, optional ones nullable. */
  strictParameters: JsonSchema;
  /** JSON Schema of the output envelope. */
  outputSchema: JsonSchema;
  annotations: (typeof TOOLS)[ToolName]["annotations"];
}

function strip$schema(schema: JsonSchema) {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function withDescription(schema: JsonSchema, ...parts: (string | undefined)[]): JsonSchema {
  const text = parts.filter((part): part is string => Boolean(part)).join(" ");
  return text ? { ...schema, description: text } : schema;
}

function typeList(types: readonly string[]) {
  return types.length === 1 ? `type ${types[0]}` : `types ${types.join(", ")}`;
}

/**
 * The union branches' common discriminator: a property every branch holds as a string
 * `const` (zod's discriminated union renders so).
 */
function discriminatorOf(branches: JsonSchema[]): string | null {
  const [first] = branches;
  if (!first || !branches.every((b) => b.type === "object" && isRecord(b.properties))) return null;
  for (const key of Object.keys(first.properties as JsonSchema)) {
    const tagged = branches.every((b) => {
      const property = (b.properties as JsonSchema)[key];
      return isRecord(property) && typeof property.const === "string";
    });
    if (tagged) return key;
  }
  return null;
}

/**
 * One object for a discriminated union: the discriminator becomes an enum of its
 * values, every other field is the union of the branches' fields, and each field's
 * description says which types use it. Gemini's sanitizer keeps no `oneOf`, so the
 * branches would otherwise reach the model as `{}`. The router's zod schema still
 * decides which fields a type may carry.
 */
function mergedUnion(node: JsonSchema, branches: JsonSchema[], discriminator: string): JsonSchema {
  const tagOf = (branch: JsonSchema) =>
    ((branch.properties as JsonSchema)[discriminator] as JsonSchema).const as string;
  const tags = branches.map(tagOf);
  const order = [discriminator];
  for (const branch of branches) {
    for (const key of Object.keys(branch.properties as JsonSchema)) if (!order.includes(key)) order.push(key);
  }
  const properties: JsonSchema = {};
  const required: string[] = [];
  for (const key of order) {
    const holders = branches.filter((b) => key in (b.properties as JsonSchema));
    const requiredBy = holders.filter((b) => ((b.required as string[] | undefined) ?? []).includes(key));
    if (requiredBy.length === branches.length) required.push(key);
    if (key === discriminator) {
      properties[key] = { type: "string", enum: tags };
      continue;
    }
    const schemas = holders.map((b) => (b.properties as JsonSchema)[key] as JsonSchema);
    const { default: _d, description: fieldDescription, ...shape } = schemas[0]!;
    for (const other of schemas) {
      const { default: _od, description: _odesc, ...otherShape } = other;
      // Two branches that disagree on a field's type cannot share one property.
      if (!sameJson(shape, otherShape)) throw new Error(`union branches disagree on the schema of "${key}"`);
    }
    const defaults = schemas.map((s) => s.default);
    const everyBranch = holders.length === branches.length;
    const oneDefault = defaults.every((d) => sameJson(d, defaults[0])) && everyBranch;
    const scope = everyBranch
      ? requiredBy.length === holders.length || requiredBy.length === 0
        ? undefined
        : `Required except for ${typeList(holders.filter((b) => !requiredBy.includes(b)).map(tagOf))}.`
      : `Only for ${typeList(holders.map(tagOf))}.`;
    // A default only some branches have stays in the description: as a schema `default` it would
    // read as every type's, and strict mode would turn it into a value every block must state.
    const sharedDefault = defaults.every((d) => sameJson(d, defaults[0])) ? defaults[0] : undefined;
    const defaultNote = oneDefault
      ? undefined
      : sharedDefault !== undefined
        ? `Default ${JSON.stringify(sharedDefault)}.`
        : holders
            .filter((b) => ((b.properties as JsonSchema)[key] as JsonSchema).default !== undefined)
            .map(
              (b) =>
                `Default ${JSON.stringify(((b.properties as JsonSchema)[key] as JsonSchema).default)} for ${tagOf(b)}.`,
            )
            .join(" ") || undefined;
    properties[key] = withDescription(
      { ...shape, ...(oneDefault && defaults[0] !== undefined ? { default: defaults[0] } : {}) },
      fieldDescription as string | undefined,
      scope,
      defaultNote,
    );
  }
  const { oneOf: _o, anyOf: _a, ...rest } = node;
  const closed = branches.every((b) => b.additionalProperties === false);
  return {
    ...rest,
    type: "object",
    properties,
    required,
    ...(closed ? { additionalProperties: false } : {}),
  };
}

/** A union of integer literals (`1 | 2 | 3`) as a range or an enum; Gemini keeps neither `const` nor a numeric enum. */
function integerLiterals(node: JsonSchema, branches: JsonSchema[]): JsonSchema | null {
  const values = branches.map((b) => b.const);
  if (!values.every((v): v is number => Number.isInteger(v))) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const { anyOf: _a, oneOf: _o, ...rest } = node;
  const consecutive = sorted.every((v, i) => i === 0 || v === sorted[i - 1]! + 1);
  if (consecutive) return { ...rest, type: "integer", minimum: sorted[0], maximum: sorted[sorted.length - 1] };
  return withDescription(
    { ...rest, type: "integer", enum: sorted },
    rest.description as string | undefined,
    `One of ${sorted.join(", ")}.`,
  );
}

/**
 * Rewrites the forms Hermes's provider sanitizers lose (decision 0010): a
 * discriminated union becomes one object with the union of its fields, a union of
 * integer literals a range. Everything else passes through.
 */
export function portableJsonSchema(schema: JsonSchema): JsonSchema {
  const node: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" && isRecord(value)) {
      node[key] = Object.fromEntries(
        Object.entries(value).map(([name, property]) => [
          name,
          isRecord(property) ? portableJsonSchema(property) : property,
        ]),
      );
    } else if ((key === "items" || key === "additionalProperties") && isRecord(value)) {
      node[key] = portableJsonSchema(value);
    } else if ((key === "oneOf" || key === "anyOf") && Array.isArray(value)) {
      node[key] = (value as unknown[]).map((branch) => (isRecord(branch) ? portableJsonSchema(branch) : branch));
    } else {
      node[key] = value;
    }
  }
  const branches = (node.oneOf ?? node.anyOf) as JsonSchema[] | undefined;
  if (!Array.isArray(branches) || !branches.every(isRecord)) return node;
  const discriminator = discriminatorOf(branches);
  if (discriminator) return mergedUnion(node, branches, discriminator);
  return integerLiterals(node, branches) ?? node;
}

/**
 * Keywords OpenAI strict mode accepts (Structured Outputs, "Supported schemas":
 * https://platform.openai.com/docs/guides/structured-outputs#supported-schemas).
 * Length limits and defaults it refuses are moved into the description.
 */
const STRICT_KEYWORDS = new Set([
  "type",
  "description",
  "title",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "anyOf",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);

function lengthNote(schema: JsonSchema): string | undefined {
  const min = schema.minLength as number | undefined;
  const max = schema.maxLength as number | undefined;
  if (min !== undefined && max !== undefined) return `${min}-${max} characters.`;
  if (max !== undefined) return `At most ${max} characters.`;
  if (min !== undefined) return `At least ${min} characters.`;
  return undefined;
}

function nullable(schema: JsonSchema): JsonSchema {
  // Array.isArray narrows `unknown` to `any[]`: say what the elements are.
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...(schema.anyOf as unknown[]), { type: "null" }] };
  const types: unknown[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  const enumValues = Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {};
  return { ...schema, type: [...types, "null"], ...enumValues };
}

function strictNode(schema: JsonSchema): JsonSchema {
  const node: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "default" || key === "minLength" || key === "maxLength") continue;
    if (!STRICT_KEYWORDS.has(key)) throw new Error(`no strict-mode form for the JSON Schema keyword "${key}"`);
    if (key === "items" && isRecord(value)) node[key] = strictNode(value);
    else if (key === "anyOf" && Array.isArray(value)) node[key] = value.map((b) => strictNode(b as JsonSchema));
    else if (key !== "properties" && key !== "required" && key !== "additionalProperties") node[key] = value;
  }
  const described = withDescription(
    node,
    node.description as string | undefined,
    lengthNote(schema),
    schema.default !== undefined ? `Default ${JSON.stringify(schema.default)}.` : undefined,
  );
  if (schema.type !== "object" || !isRecord(schema.properties)) return described;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const properties: JsonSchema = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    const strict = strictNode(property as JsonSchema);
    // A field with a default is one the model states (`dryRun`, `mode`): never null, so a null
    // never stands for a value. A truly optional field is nullable, and null means absent.
    const optional = !required.has(name) && (property as JsonSchema).default === undefined;
    properties[name] = optional ? nullable(strict) : strict;
  }
  return { ...described, properties, required: Object.keys(properties), additionalProperties: false };
}

/**
 * OpenAI strict mode's form of portable model arguments: every property required,
 * optional ones nullable (the router reads a null there as absent: `strictNullableArgs`,
 * `toolInputSchema`), `additionalProperties: false` on every object, and only the
 * keywords strict mode supports.
 */
export function strictJsonSchema(schema: JsonSchema): JsonSchema {
  return strictNode(schema);
}

/** The only place agent-facing JSON Schemas come from: the zod contract. */
export function toolJsonSchema(name: ToolName): ToolJsonSchema {
  const tool = TOOLS[name];
  const parameters = portableJsonSchema(
    strip$schema(z.toJSONSchema(modelArgumentsSchema(name), { io: "input", unrepresentable: "any" })),
  );
  return {
    name,
    providerName: toProviderName(name),
    description: `${tool.description} (mnote tool ${name})`,
    kind: tool.kind,
    parameters,
    strictParameters: strictJsonSchema(parameters),
    outputSchema: strip$schema(
      z.toJSONSchema(outputEnvelopeSchema(toolResultSchema(name)), { io: "output", unrepresentable: "any" }),
    ),
    annotations: tool.annotations,
  };
}

export function allToolJsonSchemas(): ToolJsonSchema[] {
  return TOOL_NAMES.map(toolJsonSchema);
}

/** Where a strict-mode model may send null for "left out": per object, its nullable fields and the fields to look inside. */
export interface NullableFields {
  nullable: readonly string[];
  properties: ReadonlyMap<string, NullableFields>;
  /** For an array: its items, and the most it may hold. */
  items?: NullableFields;
  maxItems?: number;
}

function nullableFieldsOf(schema: JsonSchema, leaveOut: readonly string[] = []): NullableFields {
  const nullable: string[] = [];
  const properties = new Map<string, NullableFields>();
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    if (leaveOut.includes(name)) continue;
    if (Array.isArray(property.type) && property.type.includes("null")) nullable.push(name);
    if (property.properties || property.items) properties.set(name, nullableFieldsOf(property));
  }
  return {
    nullable,
    properties,
    ...(isRecord(schema.items) ? { items: nullableFieldsOf(schema.items) } : {}),
    ...(typeof schema.maxItems === "number" ? { maxItems: schema.maxItems } : {}),
  };
}

const nullableArgsCache = new Map<ToolName, NullableFields>();

/**
 * The args fields the strict listing makes nullable, for the router to read a null there
 * as absent (`toolInputSchema`). Envelope fields are not args and are left out.
 */
export function strictNullableArgs(name: ToolName): NullableFields {
  let fields = nullableArgsCache.get(name);
  if (!fields) {
    fields = nullableFieldsOf(toolJsonSchema(name).strictParameters, MODEL_ENVELOPE_FIELDS);
    nullableArgsCache.set(name, fields);
  }
  return fields;
}

/** An OpenAI function-calling tool in strict mode, from one contract schema. */
export function openAiStrictFunction(tool: ToolJsonSchema) {
  return {
    type: "function" as const,
    function: {
      name: tool.providerName,
      description: tool.description,
      parameters: tool.strictParameters,
      strict: true as const,
    },
  };
}
