import { createHash, randomBytes, randomUUID } from "node:crypto";

export function newId(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll("-", "")}`;
}

/** Bearer tokens are shown once and stored only as this hash. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export function newTokenSecret(): string {
  return `mnt_${randomBytes(32).toString("base64url")}`;
}
