import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BlockInputSchema } from "./blocks";
import { IdempotencyKeySchema, IdSchema } from "./envelope";
import { cleanDisplayName, DISPLAY_NAME_MAX, TEXT_PROBLEMS, unstorableText } from "./text";
import { TOOLS } from "./tools";

/** Every string a model can send that ends up stored, with a way to parse it through its real schema. */
const TEXT_FIELDS: Record<string, (value: string) => { success: boolean }> = {
  "page title": (value) => TOOLS["mnote.page.update_title"].args.safeParse({ title: `x${value}` }),
  "block text": (value) => BlockInputSchema.safeParse({ type: "paragraph", text: value }),
  "code language": (value) => BlockInputSchema.safeParse({ type: "code", language: value, text: "" }),
  summary: (value) => TOOLS["mnote.artifact.create_summary"].args.safeParse({ summary: `x${value}` }),
  "AI note": (value) => TOOLS["mnote.artifact.create_ai_note"].args.safeParse({ content: `x${value}` }),
  id: (value) => IdSchema.safeParse(`x${value}`),
  "idempotency key": (value) => IdempotencyKeySchema.safeParse(`x${value}`),
};

describe("storable text: one answer on SQLite and PostgreSQL", () => {
  it("well-formed text without NUL passes the rule (any Unicode, astral characters included)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 40 }), (value) => {
        fc.pre(!value.includes("\u0000"));
        expect(unstorableText(value)).toBeNull();
      }),
    );
  });

  it("NUL anywhere is refused", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), (a, b) => {
        expect(unstorableText(`${a}\u0000${b}`)).toBe(TEXT_PROBLEMS.nul);
      }),
    );
  });

  it("an unpaired surrogate anywhere is refused, a pair is not", () => {
    const lone = fc
      .oneof(fc.integer({ min: 0xd800, max: 0xdbff }), fc.integer({ min: 0xdc00, max: 0xdfff }))
      .map((c) => String.fromCharCode(c));
    const ascii = fc.string({ unit: fc.constantFrom(..."abc xyz"), maxLength: 10 });
    fc.assert(
      fc.property(ascii, lone, ascii, (a, s, b) => {
        expect(unstorableText(`${a}${s}${b}`)).toBe(TEXT_PROBLEMS.loneSurrogate);
      }),
    );
    expect(unstorableText("😀 \uD83D\uDE00")).toBeNull();
  });

  it.each(Object.keys(TEXT_FIELDS))("%s: refuses NUL and an unpaired surrogate, keeps ordinary text", (field) => {
    const parse = TEXT_FIELDS[field]!;
    expect(parse("a\u0000").success).toBe(false);
    expect(parse("a\uD800").success).toBe(false);
    expect(parse("a\uDFFFb").success).toBe(false);
    expect(parse("ts-é😀").success).toBe(true);
  });
});

describe("cleanDisplayName: a name from outside mnote, bounded and clean", () => {
  it("whatever comes in, what comes out is short, storable, free of controls and bidi overrides, or null", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: "binary", maxLength: 300 }), fc.string({ unit: "grapheme", maxLength: 300 })),
        (value) => {
          const name = cleanDisplayName(value);
          if (name === null) return;
          expect(Array.from(name).length).toBeLessThanOrEqual(DISPLAY_NAME_MAX);
          expect(unstorableText(name)).toBeNull();
          // eslint-disable-next-line no-control-regex -- what must not be there
          expect(name).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]|^\s|\s$|\s\s/);
        },
      ),
    );
  });

  it("keeps an ordinary name as it is; a name of nothing but controls is none", () => {
    expect(cleanDisplayName("  Ada   Lovelace ")).toBe("Ada Lovelace");
    expect(cleanDisplayName("Zoë 李 🙂")).toBe("Zoë 李 🙂");
    expect(cleanDisplayName("\u0000\u202e\n")).toBeNull();
    expect(cleanDisplayName(42)).toBeNull();
    expect(cleanDisplayName("x".repeat(200_000))).toBe("x".repeat(DISPLAY_NAME_MAX));
  });
});
