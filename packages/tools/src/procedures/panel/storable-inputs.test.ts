import { hasStorableRule } from "@mnote/contract";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { appRouter } from "../../root";

/**
 * Every string a person can type into the panel passes the one storable-text rule before anything reads or writes
 * it (issue 31, finding 5: a NUL in a rejection reason was stored on SQLite and answered 503 on PostgreSQL). This
 * walks each panel procedure's zod input and names every string field that can be filled without the rule.
 */
function unruledStrings(schema: z.ZodType, path: string, found: string[]): void {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  const walk = (inner: unknown, at: string) => unruledStrings(inner as z.ZodType, at, found);
  switch (def.type) {
    case "string":
      if (!hasStorableRule(schema)) found.push(path);
      return;
    case "object":
      for (const [key, value] of Object.entries(def.shape as Record<string, unknown>)) walk(value, `${path}.${key}`);
      if (def.catchall) walk(def.catchall, `${path}.*`);
      return;
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "nonoptional":
    case "readonly":
    case "catch":
      return walk(def.innerType, path);
    // The pipe's input side is what the caller sends; its output side only ever sees what the input side let through.
    case "pipe":
      return walk(def.in, path);
    case "array":
      return walk(def.element, `${path}[]`);
    case "union":
      (def.options as unknown[]).forEach((option, i) => walk(option, `${path}|${i}`));
      return;
    case "intersection":
      walk(def.left, path);
      return walk(def.right, path);
    case "record":
      walk(def.keyType, `${path}{key}`);
      return walk(def.valueType, `${path}{}`);
    case "tuple":
      (def.items as unknown[]).forEach((item, i) => walk(item, `${path}[${i}]`));
      return;
    case "lazy":
      return walk((def.getter as () => unknown)(), path);
    case "enum":
    case "literal":
    case "number":
    case "int":
    case "boolean":
    case "null":
    case "undefined":
    case "void":
    case "bigint":
    case "never":
      return;
    default:
      // any, unknown, custom…: a string could hide in there unchecked.
      found.push(`${path} (${def.type}: not walkable)`);
  }
}

const panelProcedures = Object.entries(
  // tRPC keeps every procedure by its dotted path here at run time (its type nests them by router).
  appRouter._def.procedures as unknown as Record<string, { _def: { inputs: z.ZodType[] } }>,
).filter(([name]) => name.startsWith("panel."));

describe("every panel input string carries the storable-text rule", () => {
  it("finds the panel's procedures and their inputs", () => {
    expect(panelProcedures.length).toBeGreaterThan(20);
    expect(panelProcedures.map(([name]) => name)).toContain("panel.proposals.reject");
  });

  it.each(panelProcedures)("%s", (name, procedure) => {
    const found: string[] = [];
    for (const input of procedure._def.inputs) unruledStrings(input, name, found);
    expect(found).toEqual([]);
  });
});
