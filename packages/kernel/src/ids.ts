import * as crypto from "node:crypto";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { TokenRecord } from "./types";

/**
 * SHA-256 of a string, in hex. `crypto.hash` (Node 20.12+) skips the Hash object and its stream
 * machinery, a third of `createHash`'s cost; every tool call hashes its token and its payload.
 */
export const sha256Hex: (text: string) => string =
  typeof (crypto as { hash?: unknown }).hash === "function"
    ? (text) =>
        (crypto as unknown as { hash(algorithm: string, data: string, encoding: "hex"): string }).hash(
          "sha256",
          text,
          "hex",
        )
    : (text) => createHash("sha256").update(text, "utf8").digest("hex");

export function newId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll("-", "")}`;
}

/** Bearer tokens are shown once and stored only as this hash. */
export function hashToken(token: string): string {
  return sha256Hex(token);
}

/** A token may be used: not revoked and, if it has an expiry, not yet expired (`now`: the clock's, as an ISO string). */
export function isTokenLive(token: TokenRecord | null | undefined, now: string): token is TokenRecord {
  return Boolean(token && !token.revokedAt && (!token.expiresAt || token.expiresAt > now));
}

export function newTokenSecret(): string {
  return `mnt_${randomBytes(32).toString("base64url")}`;
}
