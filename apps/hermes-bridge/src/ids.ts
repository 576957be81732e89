import { LIMITS, safeId as contractSafeId } from "@mnote/contract";

/**
 * A caller-supplied id we may echo or log: a short printable string, else null (the
 * contract's rule, `safeId`, with the trace field length as the default bound).
 */
export function safeId(value: unknown, max: number = LIMITS.traceFieldLength): string | null {
  return contractSafeId(value, max);
}

/** First value of a header that may arrive as a list. */
export function headerValue(value: string | string[] | undefined | null): string | undefined {
  return Array.isArray(value) ? value[0] : (value ?? undefined);
}
