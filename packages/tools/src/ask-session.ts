/** The session id of a conversation asked from the panel (decision 0021): made by panel.ask.start, read by the checks. */
import { randomUUID } from "node:crypto";

/**
 * The session id of one conversation about one page, in the seed's pattern
 * `mnote_<documentId>_<traceId>`: every tool call of the conversation carries it into the
 * audit trail, which is how the panel finds them again (mnote keeps no chat text).
 */
export function askSessionId(documentId: string, traceId: string = randomUUID().replaceAll("-", "")): string {
  return `mnote_${documentId}_${traceId}`;
}

const ASK_SESSION = /^mnote_.+_[0-9a-f]{32}$/;

/** Could this session id be a conversation asked from the panel? (Only those are looked up on a tool call.) */
export function mayBeAskSession(sessionId: string): boolean {
  return ASK_SESSION.test(sessionId);
}

/** Does this session id name a conversation about this page (and nothing else)? */
export function isAskSessionOf(sessionId: string, documentId: string): boolean {
  const prefix = `mnote_${documentId}_`;
  return sessionId.startsWith(prefix) && /^[0-9a-f]{32}$/.test(sessionId.slice(prefix.length));
}
