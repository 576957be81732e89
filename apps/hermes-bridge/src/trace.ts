import { randomUUID } from "node:crypto";

// W3C Trace Context: version-traceid-parentid-flags, lower-case hex.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** The 32-hex trace id of a W3C `traceparent` header, or null when it is absent or invalid. */
export function traceIdFromTraceparent(header: unknown): string | null {
  const value: unknown = Array.isArray(header) ? header[0] : header;
  if (typeof value !== "string" || value.length > 512) return null;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return null;
  const [, version, traceId, parentId, , rest] = match;
  // ff is forbidden; all-zero ids are invalid; version 00 has exactly four fields.
  if (version === "ff" || /^0+$/.test(traceId!) || /^0+$/.test(parentId!)) return null;
  if (version === "00" && rest) return null;
  return traceId!;
}

/**
 * A fresh trace id in the W3C form (32 lower-case hex characters): a version-4 UUID's hex digits, 122 random bits.
 * Node draws UUIDs from a pool it refills 128 at a time; `randomBytes(16)` went to the system's generator on every
 * call without a trace id, most of them (issue 37: 13 µs a call in the stdio child's profile).
 */
export function newTraceId(): string {
  return randomUUID().replaceAll("-", "");
}
