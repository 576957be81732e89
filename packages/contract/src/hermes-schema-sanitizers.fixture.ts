/**
 * The tool-schema rewrites Hermes Agent v0.18.2 (NousResearch/hermes-agent 614dc194)
 * applies before a provider sees a tool, encoded as rules: CI cannot run Hermes, so
 * tests run our schemas through these and check nothing is lost. Each rule names the
 * Hermes file and function it comes from. Nothing here is Hermes code; when Hermes
 * changes a rule, change the rule here.
 *
 * The path of a tool's parameters in Hermes:
 *   door:     plugin → as registered; MCP → tools/mcp_tool.py `_normalize_mcp_input_schema`
 *   always:   model_tools.py `get_tool_definitions` → tools/schema_sanitizer.py `sanitize_tool_schemas`
 *   provider: Gemini → agent/gemini_native_adapter.py → agent/gemini_schema.py `sanitize_gemini_tool_parameters`
 *             Anthropic → agent/anthropic_adapter.py `_normalize_tool_input_schema`
 *             Moonshot/Kimi → agent/transports/chat_completions.py → agent/moonshot_schema.py `sanitize_moonshot_tools`
 *             Bedrock → agent/bedrock_adapter.py `convert_tools_to_converse` (parameters unchanged)
 *             OpenAI-compatible chat, Codex Responses (agent/codex_responses_adapter.py `_responses_tools`,
 *               `strict: false`): unchanged
 *             xAI Responses and llama.cpp recovery → tools/schema_sanitizer.py `strip_pattern_and_format`,
 *               `strip_slash_enum`
 */

export type Schema = Record<string, unknown>;

function isRecord(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

/**
 * tools/schema_sanitizer.py `strip_nullable_unions`: an anyOf/oneOf of one schema and
 * `{type: "null"}` becomes that schema (with `nullable: true` when asked), keeping the
 * union node's title, description, default and examples.
 */
export function stripNullableUnions(schema: unknown, keepNullableHint: boolean): unknown {
  if (Array.isArray(schema)) return schema.map((item) => stripNullableUnions(item, keepNullableHint));
  if (!isRecord(schema)) return schema;
  const stripped: Schema = {};
  for (const [key, value] of Object.entries(schema)) stripped[key] = stripNullableUnions(value, keepNullableHint);
  for (const key of ["anyOf", "oneOf"]) {
    const variants = stripped[key];
    if (!Array.isArray(variants)) continue;
    const nonNull = variants.filter((v) => !(isRecord(v) && v.type === "null"));
    if (nonNull.length === 1 && nonNull.length !== variants.length) {
      const replacement: Schema = isRecord(nonNull[0]) ? { ...nonNull[0] } : {};
      if (keepNullableHint && !("nullable" in replacement)) replacement.nullable = true;
      for (const meta of ["title", "description", "default", "examples"]) {
        if (meta in stripped && !(meta in replacement)) {
          if (meta === "default" && "$ref" in replacement) continue;
          replacement[meta] = stripped[meta];
        }
      }
      return stripNullableUnions(replacement, keepNullableHint);
    }
  }
  return stripped;
}

const BARE_TYPES = new Set(["object", "string", "number", "integer", "boolean", "array", "null"]);

/** tools/schema_sanitizer.py `_sanitize_node`. */
function sanitizeNode(node: unknown): unknown {
  if (typeof node === "string") {
    if (BARE_TYPES.has(node)) return node === "object" ? { type: "object", properties: {} } : { type: node };
    return { type: "object", properties: {} };
  }
  if (Array.isArray(node)) return node.map(sanitizeNode);
  if (!isRecord(node)) return node;
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "type" && Array.isArray(value)) {
      // ["X", "null"] → X + nullable; several types → anyOf of each.
      const hasNull = value.includes("null");
      const nonNull = value.filter((t) => typeof t === "string" && t !== "null");
      if (nonNull.length === 1) out.type = nonNull[0];
      else if (nonNull.length >= 2) out.anyOf = nonNull.map((t) => ({ type: t }));
      else out.type = hasNull ? "null" : "object";
      if (nonNull.length >= 1 && hasNull && !("nullable" in out)) out.nullable = true;
      continue;
    }
    if (["properties", "$defs", "definitions"].includes(key) && isRecord(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sanitizeNode(v)]));
    } else if (key === "items" || key === "additionalProperties") {
      out[key] = typeof value === "boolean" ? value : sanitizeNode(value);
    } else if (["anyOf", "oneOf", "allOf"].includes(key) && Array.isArray(value)) {
      out[key] = value.map(sanitizeNode);
    } else if (["required", "enum", "examples"].includes(key)) {
      out[key] = clone(value);
    } else {
      out[key] = typeof value === "object" && value !== null ? sanitizeNode(value) : value;
    }
  }
  if (out.type === "object" && !isRecord(out.properties)) out.properties = {};
  if (out.type === "object" && Array.isArray(out.required)) {
    const properties = (out.properties ?? {}) as Schema;
    const valid = out.required.filter((r) => typeof r === "string" && r in properties);
    if (valid.length === 0) delete out.required;
    else out.required = valid;
  }
  return out;
}

/** tools/schema_sanitizer.py `_strip_ref_siblings`: no `default` beside `$ref`. */
function stripRefSiblings(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripRefSiblings);
  if (!isRecord(node)) return node;
  const out: Schema = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, stripRefSiblings(v)]));
  if ("$ref" in out) delete out.default;
  return out;
}

/**
 * tools/schema_sanitizer.py `sanitize_tool_schemas` (`_sanitize_single_tool`): every
 * tool, every provider. Ends with the top-level combinators strict backends refuse
 * (`_strip_top_level_combinators`: allOf, anyOf, oneOf, enum, not) removed.
 */
export function hermesGenericSanitizer(parameters: Schema): Schema {
  let top = sanitizeNode(clone(parameters));
  if (!isRecord(top)) top = { type: "object", properties: {} };
  const record = top as Schema;
  if (record.type !== "object") record.type = "object";
  if (!isRecord(record.properties)) record.properties = {};
  const collapsed = stripNullableUnions(record, true) as Schema;
  for (const key of ["allOf", "anyOf", "oneOf", "enum", "not"]) delete collapsed[key];
  return stripRefSiblings(collapsed) as Schema;
}

/** agent/gemini_schema.py `_GEMINI_SCHEMA_ALLOWED_KEYS`: every other key is dropped (oneOf, const, additionalProperties, $ref, ...). */
const GEMINI_KEYS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "maxItems",
  "minItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "anyOf",
  "propertyOrdering",
  "default",
  "items",
  "minimum",
  "maximum",
]);

/** agent/gemini_schema.py `sanitize_gemini_schema`. */
function geminiSchema(schema: unknown): Schema {
  if (!isRecord(schema)) return {};
  const cleaned: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!GEMINI_KEYS.has(key)) continue;
    if (key === "properties") {
      if (isRecord(value))
        cleaned[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, geminiSchema(v)]));
    } else if (key === "items") {
      cleaned[key] = geminiSchema(value);
    } else if (key === "anyOf") {
      if (Array.isArray(value)) cleaned[key] = value.filter(isRecord).map(geminiSchema);
    } else {
      cleaned[key] = value;
    }
  }
  // Gemini wants string enum values: a typed numeric/boolean enum is dropped.
  if (Array.isArray(cleaned.enum) && ["integer", "number", "boolean"].includes(cleaned.type as string)) {
    if (cleaned.enum.some((v) => typeof v !== "string")) delete cleaned.enum;
  }
  if (Array.isArray(cleaned.required)) {
    const names = isRecord(cleaned.properties) ? Object.keys(cleaned.properties) : [];
    const valid = cleaned.required.filter((r) => typeof r === "string" && names.includes(r));
    if (valid.length === 0) delete cleaned.required;
    else cleaned.required = valid;
  }
  return cleaned;
}

/** agent/gemini_schema.py `sanitize_gemini_tool_parameters`. */
export function hermesGeminiSanitizer(parameters: Schema): Schema {
  const cleaned = geminiSchema(parameters);
  return Object.keys(cleaned).length === 0 ? { type: "object", properties: {} } : cleaned;
}

/** agent/anthropic_adapter.py `_normalize_tool_input_schema`: nullable unions collapsed without the hint, no top-level union. */
export function hermesAnthropicSanitizer(parameters: Schema): Schema {
  const collapsed = stripNullableUnions(parameters, false);
  if (!isRecord(collapsed)) return { type: "object", properties: {} };
  let record: Schema = collapsed;
  if (["oneOf", "allOf", "anyOf"].some((k) => k in record)) {
    const { oneOf: _o, allOf: _al, anyOf: _an, ...rest } = record;
    record = "type" in rest ? rest : { ...rest, type: "object" };
  }
  if (record.type === "object" && !isRecord(record.properties)) return { ...record, properties: {} };
  return record;
}

const MOONSHOT_MAP_KEYS = new Set(["properties", "patternProperties", "$defs", "definitions"]);
const MOONSHOT_LIST_KEYS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
const MOONSHOT_NODE_KEYS = new Set(["items", "contains", "not", "additionalProperties", "propertyNames"]);

/** agent/moonshot_schema.py `_fill_missing_type`. */
function fillMissingType(node: Schema): Schema {
  if (Array.isArray(node.type)) {
    const concrete = node.type.find((t) => typeof t === "string" && t !== "" && t !== "null") ?? "string";
    return { ...node, type: concrete };
  }
  if ("type" in node && node.type !== null && node.type !== "") return node;
  let inferred = "string";
  if ("properties" in node || "required" in node || "additionalProperties" in node) inferred = "object";
  else if ("items" in node || "prefixItems" in node) inferred = "array";
  else if (Array.isArray(node.enum) && node.enum.length > 0) {
    const sample = node.enum[0];
    inferred =
      typeof sample === "boolean"
        ? "boolean"
        : Number.isInteger(sample)
          ? "integer"
          : typeof sample === "number"
            ? "number"
            : "string";
  }
  return { ...node, type: inferred };
}

/** agent/moonshot_schema.py `_repair_schema`. */
function moonshotRepair(node: unknown, isSchema: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => moonshotRepair(item, true));
  if (!isRecord(node)) return node;
  let repaired: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (MOONSHOT_MAP_KEYS.has(key) && isRecord(value)) {
      repaired[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, moonshotRepair(v, true)]));
    } else if (MOONSHOT_LIST_KEYS.has(key) && Array.isArray(value)) {
      repaired[key] = value.map((v) => moonshotRepair(v, true));
    } else if (MOONSHOT_NODE_KEYS.has(key)) {
      repaired[key] = isRecord(value) ? moonshotRepair(value, true) : value;
    } else {
      repaired[key] = value;
    }
  }
  if (!isSchema) return repaired;
  // `type` belongs on anyOf's branches; a null branch is collapsed away.
  if (Array.isArray(repaired.anyOf)) {
    delete repaired.type;
    const nonNull = repaired.anyOf.filter((b) => isRecord(b) && b.type !== "null") as Schema[];
    if (nonNull.length > 0 && nonNull.length < repaired.anyOf.length) {
      if (nonNull.length === 1) {
        const { anyOf: _a, ...merge } = repaired;
        repaired = { ...merge, ...nonNull[0] };
      } else {
        return { ...repaired, anyOf: nonNull };
      }
    } else {
      return repaired;
    }
  }
  delete repaired.nullable;
  if (!("$ref" in repaired)) repaired = fillMissingType(repaired);
  if (Array.isArray(repaired.enum) && ["string", "integer", "number", "boolean"].includes(repaired.type as string)) {
    const cleaned = repaired.enum.filter((v) => v !== null && v !== "");
    if (cleaned.length > 0) repaired.enum = cleaned;
    else delete repaired.enum;
  }
  return repaired;
}

/** agent/moonshot_schema.py `sanitize_moonshot_tool_parameters`. */
export function hermesMoonshotSanitizer(parameters: Schema): Schema {
  const repaired = moonshotRepair(clone(parameters), true);
  if (!isRecord(repaired)) return { type: "object", properties: {} };
  if (repaired.type !== "object") repaired.type = "object";
  if (!("properties" in repaired)) repaired.properties = {};
  return repaired;
}

/**
 * tools/schema_sanitizer.py `strip_pattern_and_format` (llama.cpp grammar recovery;
 * also xAI Responses) and `strip_slash_enum` (xAI): `pattern`/`format` go from schema
 * nodes, an enum with a "/" in a value goes.
 */
export function hermesXaiSanitizer(parameters: Schema): Schema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isRecord(node)) return node;
    const isSchemaNode = "type" in node || "anyOf" in node || "oneOf" in node || "allOf" in node;
    const out: Schema = {};
    for (const [key, value] of Object.entries(node)) {
      if (isSchemaNode && (key === "pattern" || key === "format")) continue;
      out[key] = walk(value);
    }
    if (Array.isArray(out.enum) && out.enum.some((v) => typeof v === "string" && v.includes("/"))) delete out.enum;
    return out;
  };
  return walk(clone(parameters)) as Schema;
}

/**
 * tools/mcp_tool.py `_normalize_mcp_input_schema`, applied when Hermes registers an
 * MCP server's tools: `definitions` → `$defs`, nullable unions collapsed (hint kept),
 * object nodes given a type and properties, `required` pruned to existing properties.
 */
export function hermesMcpNormalizer(schema: Schema): Schema {
  const rewriteRefs = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewriteRefs);
    if (!isRecord(node)) return node;
    const out: Schema = {};
    for (const [key, value] of Object.entries(node)) {
      if ((key === "properties" || key === "patternProperties") && isRecord(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewriteRefs(v)]));
      } else {
        out[key === "definitions" ? "$defs" : key] = rewriteRefs(value);
      }
    }
    if (typeof out.$ref === "string" && out.$ref.startsWith("#/definitions/")) {
      out.$ref = `#/$defs/${out.$ref.slice("#/definitions/".length)}`;
    }
    return out;
  };
  const repairObjects = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(repairObjects);
    if (!isRecord(node)) return node;
    const out: Schema = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, repairObjects(v)]));
    if (!out.type && ("properties" in out || "required" in out)) out.type = "object";
    if (out.type === "object") {
      if (!isRecord(out.properties)) out.properties = {};
      if (Array.isArray(out.required)) {
        const properties = out.properties as Schema;
        const valid = out.required.filter((r) => typeof r === "string" && r in properties);
        if (valid.length !== out.required.length) {
          if (valid.length > 0) out.required = valid;
          else delete out.required;
        }
      }
    }
    return out;
  };
  const normalized = repairObjects(stripNullableUnions(rewriteRefs(clone(schema)), true));
  if (!isRecord(normalized)) return { type: "object", properties: {} };
  if (normalized.type === "object" && !("properties" in normalized)) return { ...normalized, properties: {} };
  return normalized;
}

/** What a provider finally receives, for each door and provider Hermes v0.18.2 ships. */
export const HERMES_DOORS = {
  plugin: (parameters: Schema) => parameters,
  mcp: hermesMcpNormalizer,
} as const;

export const HERMES_PROVIDERS = {
  openaiCompatible: (parameters: Schema) => parameters,
  codexResponses: (parameters: Schema) => parameters,
  bedrock: (parameters: Schema) => parameters,
  gemini: hermesGeminiSanitizer,
  anthropic: hermesAnthropicSanitizer,
  moonshot: hermesMoonshotSanitizer,
  xaiOrLlamaCppRecovery: hermesXaiSanitizer,
} as const;

export function hermesProviderSchema(
  parameters: Schema,
  door: keyof typeof HERMES_DOORS,
  provider: keyof typeof HERMES_PROVIDERS,
): Schema {
  return HERMES_PROVIDERS[provider](hermesGenericSanitizer(HERMES_DOORS[door](clone(parameters))));
}
