import { z } from "zod";

/** A UTF-16 code unit of a surrogate pair without its partner: not a character, and UTF-8 has no bytes for it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const TEXT_PROBLEMS = {
  nul: "must not contain NUL (U+0000)",
  loneSurrogate: "must not contain an unpaired surrogate (not valid Unicode)",
} as const;

/**
 * Why a string cannot be stored the same on every kernel, or null when it can.
 * PostgreSQL refuses U+0000 in text (SQLite keeps it, so `migrate-data` would break on it),
 * and a lone surrogate becomes U+FFFD on its way to UTF-8: one rule at the contract gives
 * one answer on every kernel.
 */
export function unstorableText(value: string): string | null {
  if (value.includes("\u0000")) return TEXT_PROBLEMS.nul;
  if (LONE_SURROGATE.test(value)) return TEXT_PROBLEMS.loneSurrogate;
  return null;
}

/**
 * The storable-text rule as a zod check: one object, so a test can see which string schemas carry it
 * (`hasStorableRule`) and fail on any that a caller can fill without it.
 */
const STORABLE_CHECK = z.superRefine((value: string, ctx) => {
  const problem = unstorableText(value);
  if (problem) ctx.addIssue({ code: "custom", message: problem, input: value });
});

/** Adds the storable-text rule to a string schema (every text a caller can send goes through it). */
export function storable<S extends z.ZodString | z.ZodStringFormat>(schema: S): S {
  return schema.check(STORABLE_CHECK) as S;
}

/** Whether a string schema carries the storable-text rule (zod keeps checks when `.min()`, `.trim()`… are chained). */
export function hasStorableRule(schema: z.ZodType): boolean {
  const checks = (schema._zod.def as { checks?: unknown[] }).checks ?? [];
  return checks.includes(STORABLE_CHECK);
}

/** No control characters: ids end up in logs and headers. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point of this pattern
export const PRINTABLE = /^[^\u0000-\u001f\u007f]+$/;

/**
 * A caller-given id the system may echo, log or record although the call was refused: a short
 * printable, storable string, else null. Keeps page text pasted into an id field, a 3 MB key,
 * or a NUL (which PostgreSQL would refuse in the audit record) out of envelopes, logs and audit.
 */
export function safeId(value: unknown, max = 256): string | null {
  return typeof value === "string" &&
    value.length > 0 &&
    value.length <= max &&
    PRINTABLE.test(value) &&
    !unstorableText(value)
    ? value
    : null;
}

/** The longest display name mnote keeps (it is shown on Members, proposals, the trail and in the agent's message). */
export const DISPLAY_NAME_MAX = 100;

/**
 * Characters a name never needs and that would change what people or models see: C0/C1 controls (NUL, line breaks,
 * escape sequences), bidirectional overrides and isolates (which reorder what is shown), and lone surrogates.
 */
const NAME_UNWANTED =
  // eslint-disable-next-line no-control-regex -- removing control characters is the point of this pattern
  /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A display name taken from outside mnote (an identity provider's `name` claim): unwanted characters removed
 * (NAME_UNWANTED), white space collapsed to single spaces, cut at DISPLAY_NAME_MAX code points. Null when
 * nothing is left or it is no string: the caller then names the person otherwise (by email).
 */
export function cleanDisplayName(value: unknown): string | null {
  if (typeof value !== "string") return null;
  // Look at a bounded prefix only: a 200,000-character claim costs no more than a short one.
  const cleaned = value
    .slice(0, DISPLAY_NAME_MAX * 8)
    .replace(NAME_UNWANTED, " ")
    .replace(/\s+/g, " ")
    .trim();
  const name = Array.from(cleaned).slice(0, DISPLAY_NAME_MAX).join("").trim();
  return name && !unstorableText(name) ? name : null;
}
