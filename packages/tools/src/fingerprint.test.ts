import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, payloadFingerprint } from "./fingerprint";

/**
 * Fingerprints are stored with idempotency keys, so the encoding must never drift: a retry
 * after an upgrade has to match the record its first attempt left. The reference below is the
 * first implementation, kept here only to hold the current one to it.
 */
function referenceCanonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(referenceCanonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${referenceCanonicalJson(v)}`).join(",")}}`;
}

/** JSON values with undefined members and unicode keys, as parsed args can hold. */
const payload = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom(null, true, false, 0, -1.5, "", undefined),
    fc.string({ unit: "grapheme" }),
    fc.double({ noNaN: true }),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.string({ unit: "grapheme", maxLength: 6 }), tie("value"), { maxKeys: 5 }),
  ),
})).value;

describe("canonicalJson", () => {
  it("encodes exactly as the first implementation did", () => {
    fc.assert(
      fc.property(payload, (value) => {
        expect(canonicalJson(value)).toBe(referenceCanonicalJson(value));
      }),
      { numRuns: 500 },
    );
  });

  it("does not depend on key order, and drops undefined members", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 4 }), payload, { maxKeys: 6 }), (record) => {
        const reversed = Object.fromEntries(Object.entries(record).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(record));
        expect(canonicalJson({ ...record, zz_missing: undefined })).toBe(canonicalJson(record));
      }),
    );
  });

  it("fingerprints a known payload to a fixed hash", () => {
    // Pinned: changing this value would orphan every stored idempotency record.
    expect(
      payloadFingerprint({
        toolName: "mnote.page.save",
        workspaceId: "ws",
        documentId: "doc",
        args: { mode: "append", content: [{ type: "paragraph", text: "é" }] },
      }),
    ).toBe(payloadFingerprintPinned);
  });
});

// Computed with the first implementation (createHash over the reference encoding).
const payloadFingerprintPinned = "3b54f25b442e78dd51dd51d2af8763c918e6c518b3b0c6fed82d5b2f3347eef2";
