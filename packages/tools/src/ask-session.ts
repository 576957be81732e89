/** The session id of a conversation asked from the panel (decision 0021): made by panel.ask.start, read by the checks. */
import { createHash, randomUUID } from "node:crypto";

/**
 * The session id of one conversation about one page, in the seed's pattern
 * `mnote_<documentId>_<traceId>`: every tool call of the conversation carries it into the
 * audit trail, which is how the panel finds them again (mnote keeps no chat text).
 */
export function askSessionId(documentId: string, traceId: string = randomUUID().replaceAll("-", "")): string {
  return `mnote_${documentId}_${traceId}`;
}

/**
 * The session id a new conversation started with this key gets: the same for a retried start (a double click, a lost
 * answer before the run was recorded), so the retry's body to Hermes 0.21 is the same and its Idempotency-Key replays
 * the run instead of answering 409 (issue 35). Keyed by person and page too: another person's key never names it.
 */
export function askSessionIdForStart(userId: string, documentId: string, startKey: string): string {
  const traceId = createHash("sha256").update(`${userId}\0${documentId}\0${startKey}`).digest("hex").slice(0, 32);
  return askSessionId(documentId, traceId);
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
