import { sha256Hex } from "@mnote/kernel";
import { canonicalJson } from "@mnote/tools";

/**
 * An idempotency key for a write whose caller named none: the same for a retry of the
 * same call in the same scope (MCP session), different for anything else. `dryRun` and
 * `idempotencyKey` are left out, so a dry run and the real call after it share a key
 * (the router's fingerprint ignores dryRun the same way).
 */
export function derivedIdempotencyKey(scope: string, toolName: string, modelArguments: Record<string, unknown>): string {
  const { dryRun: _dryRun, idempotencyKey: _key, ...payload } = modelArguments;
  const digest = sha256Hex(canonicalJson([scope, toolName, payload]));
  return `derived_${digest}`;
}
