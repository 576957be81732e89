import { createHash, timingSafeEqual } from "node:crypto";

/** RFC 7636 §4.1: a code verifier is 43 to 128 unreserved characters. */
export const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** RFC 7636 §4.2: an S256 challenge is BASE64URL(SHA-256(verifier)), 43 characters without padding. */
export const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** The S256 challenge of a verifier (RFC 7636 §4.2), with node:crypto's SHA-256. */
export const s256Challenge = (verifier: string) => createHash("sha256").update(verifier, "ascii").digest("base64url");

/** Does the verifier answer the challenge? Compared in constant time (both sides are 43 ASCII characters). */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!CODE_VERIFIER.test(verifier) || !S256_CHALLENGE.test(challenge)) return false;
  return timingSafeEqual(Buffer.from(s256Challenge(verifier)), Buffer.from(challenge));
}
