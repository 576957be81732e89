import { LIMITS } from "@mnote/contract";

const printable = /^[^\u0000-\u001f\u007f]+$/;

/**
 * A caller-supplied id we may echo or log: a short printable string, else null.
 * Keeps anything long (page text pasted into an id field) out of logs and envelopes.
 */
export function safeId(value: unknown, max: number = LIMITS.traceFieldLength): string | null {
  return typeof value === "string" && value.length > 0 && value.length <= max && printable.test(value) ? value : null;
}

/** First value of a header that may arrive as a list. */
export function headerValue(value: string | string[] | undefined | null): string | undefined {
  return Array.isArray(value) ? value[0] : (value ?? undefined);
}
