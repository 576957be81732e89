import { PERSON_TEXT_IS_DATA, quoteData } from "./person-text";

/**
 * Every failure a tool can answer with. The code is the contract; the message is
 * for the model and the person reading the panel, so it must never carry page data.
 */
export const TOOL_ERROR_CODES = [
  "mnote_tool_invalid_input",
  "mnote_tool_unauthenticated",
  "mnote_tool_permission_denied",
  "mnote_tool_not_found",
  "mnote_tool_conflict",
  "mnote_tool_idempotency_conflict",
  "mnote_tool_option_unsupported",
  "mnote_tool_approval_required",
  "mnote_tool_rejected",
  "mnote_tool_payload_too_large",
  "mnote_tool_rate_limited",
  "mnote_tool_unavailable",
] as const;

export type ToolErrorCode = (typeof TOOL_ERROR_CODES)[number];

/** Fixed messages. Where the contract gives the words (section 4) we use them verbatim. */
export const TOOL_ERROR_MESSAGES = {
  unauthenticated: "未登录或令牌无效 (missing, unknown, revoked or expired token)",
  actorMismatch: "actorId 与令牌用户不一致 (actorId does not match the token's user)",
  scopeExceedsToken: "capabilityScope 超出令牌授权范围 (capabilityScope exceeds the token's scopes)",
  scopeMissing: (needed: string) => `capabilityScope 不包含 ${needed} (capabilityScope does not include ${needed})`,
  // One message for "no such page" and "page you may not read": the no-leak rule.
  pageUnreadable: "页面不存在或无页面读取权限 (page not found or not readable)",
  // A workspace tool's: one message for "no such workspace" and "a workspace you are not a member of".
  workspaceUnreadable: "工作区不存在或不是其成员 (workspace not found or you are not a member)",
  pageWriteDenied: "当前用户没有页面写权限 (no write permission on this page)",
  artifactWriteDenied: "当前用户没有 artifact 写权限 (no artifact write permission on this page)",
  conflict: "页面版本冲突，需要刷新后重试 (page revision conflict: refresh and retry)",
  idempotencyConflict: "同一幂等键已用于不同内容 (idempotency key already used with a different payload)",
  /** With the call's own key: repeating the call with it is how the model later hears the person's decision. */
  approvalRequired: (key: string) =>
    `修改已提交，等待用户在页面 AI 面板中批准 (the edit is waiting for the user's approval in the page panel; do not retry it as a new edit. Once the user has decided, this same call with idempotencyKey ${JSON.stringify(key)} answers the decision: the applied result, or mnote_tool_rejected with the user's reason)`,
  /**
   * A person rejected the held edit this call repeats (issue 22). Who decided and their reason (≤ 500 characters,
   * written by a member of the page's workspace, on a page the caller may write): the model reads why, as quoted
   * data (`quoteData`), never as words of mnote's own.
   */
  // Without a reason there is nothing "asked" to follow (issue 36): the model is told to ask, never to guess.
  rejected: (decidedBy: string, reason: string | null) =>
    `修改已被拒绝 (the edit was rejected in the page panel by ${quoteData(decidedBy)}${
      reason
        ? `, who wrote: ${quoteData(reason)}; nothing was written. Do not send it again unchanged: change it as the reason asks, or ask the user`
        : ` without giving a reason; nothing was written. Do not send it again unchanged: ask the user what they want instead`
    }). ${PERSON_TEXT_IS_DATA}`,
  /**
   * A held edit whose changes a person could not apply because the page changed there since (decision 0030): which
   * blocks (or the title, an option) to read again before proposing anew.
   */
  conflicted: (targets: readonly string[], pending: boolean) =>
    `页面已变化 (${targets.slice(0, 20).join(", ")}${targets.length > 20 ? ", …" : ""} changed since this edit was proposed; ${
      pending
        ? "the edit still waits for the user, who sees both versions"
        : "the user kept the page's version and nothing of these changes was written"
    }. Read them again with mnote.page.get before proposing a new edit)`,
  unknownTool: (name: string) => `unknown tool: ${name.slice(0, 80)}`,
  payloadTooLarge: "request body too large",
  rateLimited: "too many calls for this token; retry later",
  /** The failed-authentication limit (per client address): said only to a request whose own token failed. */
  authFailuresLimited: "too many failed authentications from this address; retry later",
  unavailable: "mnote is unavailable; retry later",
} as const;

/**
 * Each code in the few words a person reads where a record names only the code (the Ask Hermes box's tool calls,
 * from the audit trail): never the raw code on screen. A new code without words does not compile.
 */
export const TOOL_ERROR_LABELS: Record<ToolErrorCode, string> = {
  mnote_tool_invalid_input: "refused: the input was not valid",
  mnote_tool_unauthenticated: "refused: not signed in, or the token is not valid",
  mnote_tool_permission_denied: "refused: no permission",
  mnote_tool_not_found: "refused: not found",
  mnote_tool_conflict: "refused: the page changed meanwhile",
  mnote_tool_idempotency_conflict: "refused: the same key was used for another edit",
  mnote_tool_option_unsupported: "refused: a page option mnote does not support",
  mnote_tool_approval_required: "held for a person's approval",
  mnote_tool_rejected: "rejected by a person",
  mnote_tool_payload_too_large: "refused: too large",
  mnote_tool_rate_limited: "refused: too many calls",
  mnote_tool_unavailable: "failed: mnote was unavailable",
};

/** HTTP status for each code, used by the bridge's tool endpoint. */
export const TOOL_ERROR_HTTP_STATUS: Record<ToolErrorCode, number> = {
  mnote_tool_invalid_input: 422,
  mnote_tool_unauthenticated: 401,
  mnote_tool_permission_denied: 403,
  mnote_tool_not_found: 404,
  mnote_tool_conflict: 409,
  mnote_tool_idempotency_conflict: 409,
  mnote_tool_option_unsupported: 422,
  mnote_tool_approval_required: 409,
  mnote_tool_rejected: 409,
  mnote_tool_payload_too_large: 413,
  mnote_tool_rate_limited: 429,
  mnote_tool_unavailable: 503,
};
