import type { ToolErrorCode } from "@mnote/contract";

/**
 * The panel's one refusal shape, on every route (`/api/trpc`'s door, `/api/hermes/*`, sign-in and sign-out):
 * `{ error: { code, message } }` in the contract's words, the bridge's shape. The browser dispatches on `code`.
 */
export function refuse(status: number, code: ToolErrorCode, message: string, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify({ error: { code, message } }), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

/** A state-changing request from another site (`foreignOrigin`): the same answer from every panel route. */
export const crossOriginRefusal = () =>
  refuse(
    403,
    "mnote_tool_permission_denied",
    "cross-origin request refused: the panel accepts changes only from its own pages",
  );
