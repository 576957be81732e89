/**
 * OpenAI strict mode's schema rules, as published in "Structured Outputs → Supported
 * schemas" (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas;
 * function calling with `strict: true` uses the same subset):
 * - the root is an object, not `anyOf`;
 * - every object sets `additionalProperties: false` and lists every property in `required`
 *   (an optional field is a union with null, e.g. `"type": ["string", "null"]`);
 * - types: string, number, boolean, integer, object, array, enum, anyOf (and null in a union);
 * - supported keywords: string `pattern`, `format`; number `multipleOf`, `maximum`,
 *   `exclusiveMaximum`, `minimum`, `exclusiveMinimum`; array `minItems`, `maxItems`;
 *   `$defs`/`$ref`; anything else (`oneOf`, `allOf`, `not`, `if`/`then`/`else`,
 *   `dependentRequired`, `dependentSchemas`, `default`, `minLength`, `maxLength`,
 *   `patternProperties`, ...) is refused;
 * - limits: 5,000 object properties in all, 10 levels of nesting, 1,000 enum values,
 *   120,000 characters of property names, enum and const values.
 * A tool passes when `openAiStrictViolations` answers an empty list.
 */

type Schema = Record<string, unknown>;

const ANY_KEYWORDS = new Set(["type", "description", "title", "enum", "const", "anyOf", "$ref", "$defs"]);
const KEYWORDS_BY_TYPE: Record<string, string[]> = {
  string: ["pattern", "format"],
  number: ["multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"],
  integer: ["multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"],
  array: ["items", "minItems", "maxItems"],
  object: ["properties", "required", "additionalProperties"],
  boolean: [],
  null: [],
};
const LIMITS = { properties: 5000, depth: 10, enumValues: 1000, stringLength: 120_000 };

function isRecord(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function typesOf(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  return typeof schema.type === "string" ? [schema.type] : [];
}

export function openAiStrictViolations(root: Schema): string[] {
  const violations: string[] = [];
  if (root.type !== "object") violations.push("$: the root must be an object");
  if ("anyOf" in root) violations.push("$: the root must not be anyOf");
  let properties = 0;
  let enumValues = 0;
  let stringLength = 0;
  const visit = (schema: Schema, path: string, depth: number) => {
    const types = typesOf(schema);
    if (
      types.length === 0 &&
      !("anyOf" in schema) &&
      !("$ref" in schema) &&
      !("enum" in schema) &&
      !("const" in schema)
    ) {
      violations.push(`${path}: no type`);
    }
    for (const type of types)
      if (!(type in KEYWORDS_BY_TYPE)) violations.push(`${path}: type ${type} is not supported`);
    const allowed = new Set([...ANY_KEYWORDS, ...types.flatMap((t) => KEYWORDS_BY_TYPE[t] ?? [])]);
    for (const key of Object.keys(schema))
      if (!allowed.has(key)) violations.push(`${path}: keyword ${key} is not supported`);
    if (Array.isArray(schema.enum)) {
      enumValues += schema.enum.length;
      for (const value of schema.enum) if (typeof value === "string") stringLength += value.length;
    }
    if (types.includes("object")) {
      if (depth > LIMITS.depth) violations.push(`${path}: more than ${LIMITS.depth} levels of nesting`);
      if (schema.additionalProperties !== false) violations.push(`${path}: additionalProperties must be false`);
      const names = isRecord(schema.properties) ? Object.keys(schema.properties) : [];
      properties += names.length;
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      for (const name of names) {
        stringLength += name.length;
        if (!required.includes(name)) violations.push(`${path}.${name}: every property must be required`);
      }
      for (const name of names) visit((schema.properties as Schema)[name] as Schema, `${path}.${name}`, depth + 1);
    }
    if (isRecord(schema.items)) visit(schema.items, `${path}[]`, depth);
    if (Array.isArray(schema.anyOf))
      schema.anyOf.forEach((branch, i) => visit(branch as Schema, `${path}.anyOf[${i}]`, depth));
  };
  visit(root, "$", 1);
  if (properties > LIMITS.properties) violations.push(`$: more than ${LIMITS.properties} properties`);
  if (enumValues > LIMITS.enumValues) violations.push(`$: more than ${LIMITS.enumValues} enum values`);
  if (stringLength > LIMITS.stringLength)
    violations.push(`$: more than ${LIMITS.stringLength} characters of names and values`);
  return violations;
}

/**
 * Whether a value is one a strict-mode model can produce for the schema (the subset the
 * rules above allow; patterns and formats are the router's to check).
 */
export function conformsToStrictSchema(value: unknown, schema: Schema): boolean {
  if (Array.isArray(schema.anyOf))
    return schema.anyOf.some((branch) => conformsToStrictSchema(value, branch as Schema));
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return false;
  const types = typesOf(schema);
  const typeOk = types.some((type) => {
    switch (type) {
      case "null":
        return value === null;
      case "string":
        return typeof value === "string";
      case "boolean":
        return typeof value === "boolean";
      case "integer":
        return Number.isInteger(value);
      case "number":
        return typeof value === "number";
      case "array":
        return Array.isArray(value);
      case "object":
        return isRecord(value);
      default:
        return false;
    }
  });
  if (!typeOk) return false;
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) return false;
    if (typeof schema.maximum === "number" && value > schema.maximum) return false;
  }
  if (Array.isArray(value)) {
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) return false;
    return value.every((item) => conformsToStrictSchema(item, schema.items as Schema));
  }
  if (isRecord(value) && isRecord(schema.properties)) {
    const properties = schema.properties;
    const keys = Object.keys(value);
    if (keys.some((key) => !(key in properties))) return false;
    if ((schema.required as string[]).some((key) => !(key in value))) return false;
    return keys.every((key) => conformsToStrictSchema(value[key], properties[key] as Schema));
  }
  return true;
}
