import { type AppliedDecision, canonicalToolName, LIMITS, TOOL_ERROR_MESSAGES as M } from "@mnote/contract";
import { hashToken, isTokenLive, type ProposalRecord, type TokenRecord } from "@mnote/kernel";
import { canReadPage, hasAccess } from "../access";
import type { CallState, ParsedEnvelope } from "../call-state";
import { bearerSecret, doorRefusal, type ToolsContext } from "../context";
import { describeIssues, fail } from "../app-error";
import { payloadFingerprint } from "../fingerprint";
import { argsWithoutMarkdown } from "../markdown-args";
import { mayBeAskSession } from "../ask-session";
import { middleware } from "../trpc";

/**
 * The checks every tool call passes, in order. Each one either ends the call with a
 * contract error or adds what it learned to `call` for the next.
 *
 * They are plain functions run by one tRPC middleware, not one middleware each: every
 * tRPC hop copies its options and context objects several times over, and nine hops
 * cost a write more than its SQL reads did (docs/decisions/0007).
 */
type Check = (ctx: ToolsContext, call: CallState) => Promise<void> | void;

/**
 * 1. Login: a bearer token issued by mnote, not revoked, not expired.
 *
 * The token is read in one statement with every fact the later checks decide on (membership, page,
 * grant, the key's stored result): one read instead of three on every call. That read needs the
 * envelope's ids, so the envelope is parsed here; step 2 gives the verdict on it. A call with a bad
 * envelope still hears "unauthenticated" first when its token is no good.
 */
export async function authenticate(ctx: ToolsContext, call: CallState) {
  const secret = bearerSecret(ctx.authorization);
  if (!secret) return fail("mnote_tool_unauthenticated", M.unauthenticated);
  const tokenHash = hashToken(secret);
  const envelope = parseEnvelope(call);
  const now = ctx.clock.now().toISOString();
  let token: TokenRecord | null;
  if (envelope.ok) {
    const { input } = envelope;
    const facts = await ctx.kernel.getCallFacts({
      tokenHash,
      workspaceId: input.workspaceId,
      documentId: input.documentId,
      idempotency: call.tool.kind === "write" ? { toolName: call.tool.name, key: input.idempotencyKey!, now } : null,
    });
    token = facts.token;
    call.facts = facts.access;
    call.storedResult = facts.idempotency;
  } else {
    token = await ctx.kernel.findTokenByHash(tokenHash);
  }
  if (!isTokenLive(token, now)) return fail("mnote_tool_unauthenticated", M.unauthenticated);
  // An OAuth grant's token works only at the resource it was issued for (RFC 8707, decision 0027).
  if (token.resource !== undefined && token.resource !== (ctx.resource ?? null))
    return fail("mnote_tool_unauthenticated", "this token was issued for another resource");
  call.token = token;
}

/**
 * 1b. The door: a person's token only at the panel, an agent's only at an agent door
 * (bridge, MCP, CLI). So an agent cannot borrow the panel to skip the approval policy,
 * and a person's token handed to an agent does not write past it either.
 */
export function checkDoor(ctx: ToolsContext, call: CallState) {
  const refusal = doorRefusal(ctx.door, call.token!.holder);
  if (refusal) return fail("mnote_tool_permission_denied", refusal);
}

/** The envelope and the tool's args checked against the contract; parsed once per call. */
function parseEnvelope(call: CallState): NonNullable<CallState["parsed"]> {
  call.parsed ??= (() => {
    if (!call.raw || typeof call.raw !== "object" || Array.isArray(call.raw)) {
      return { ok: false, problem: "input: must be the tool input envelope (a JSON object)" } as const;
    }
    const parsed = call.tool.inputSchema.safeParse(call.raw);
    if (!parsed.success) return { ok: false, problem: describeIssues(parsed.error) } as const;
    const input = parsed.data as ParsedEnvelope;
    if (canonicalToolName(input.toolName) !== call.tool.name && input.toolName !== call.tool.name) {
      return { ok: false, problem: `toolName: expected ${call.tool.name}` } as const;
    }
    const content = input.args.content;
    if (Array.isArray(content)) {
      // The envelope schema has checked the blocks; Array.isArray only says `any[]`.
      const total = (content as { text?: string }[]).reduce((sum, block) => sum + (block.text?.length ?? 0), 0);
      if (total > LIMITS.saveTextTotal) {
        return {
          ok: false,
          problem: `args.content: more than ${LIMITS.saveTextTotal} characters of text in one save`,
        } as const;
      }
    }
    return { ok: true, input } as const;
  })();
  return call.parsed;
}

/** The characters of text in a save's content or an edit's operations (Markdown turned into blocks). */
function textTotal(value: unknown): number {
  if (!Array.isArray(value)) return 0;
  let total = 0;
  for (const item of value as { text?: unknown; blocks?: unknown }[]) {
    if (typeof item.text === "string") total += item.text.length;
    total += textTotal(item.blocks);
  }
  return total;
}

/**
 * 2. The envelope and the tool's args, exactly as the contract describes them; Markdown args are turned
 * into blocks here (after the token is known good), so every later step sees the block form.
 */
export function validateEnvelope(_ctx: ToolsContext, call: CallState) {
  const envelope = parseEnvelope(call);
  if (!envelope.ok) return fail("mnote_tool_invalid_input", envelope.problem);
  const args = argsWithoutMarkdown(call.tool.name, envelope.input.args);
  call.input = args === envelope.input.args ? envelope.input : { ...envelope.input, args };
  if (args !== envelope.input.args && textTotal(args.content ?? args.operations) > LIMITS.saveTextTotal)
    return fail("mnote_tool_invalid_input", `args.markdown: more than ${LIMITS.saveTextTotal} characters of text`);
}

/** 3. The call's capability scope covers the tool and stays within the token's. */
export function checkCapabilityScope(_ctx: ToolsContext, call: CallState) {
  const { input, token, tool } = call;
  if (input!.actorId !== token!.userId) return fail("mnote_tool_unauthenticated", M.actorMismatch);
  if (input!.capabilityScope.some((scope) => !token!.scopes.includes(scope))) {
    return fail("mnote_tool_permission_denied", M.scopeExceedsToken);
  }
  if (!input!.capabilityScope.includes(tool.capability)) {
    return fail("mnote_tool_permission_denied", M.scopeMissing(tool.capability));
  }
}

/** 4. Workspace membership. A stranger learns nothing: same answer as a missing page. */
export function checkMembership(_ctx: ToolsContext, call: CallState) {
  const facts = call.facts!;
  if (!facts.workspace || !facts.role) return fail("mnote_tool_permission_denied", M.pageUnreadable);
}

/** 5. Page read, page write or artifact write. Unreadable and missing pages answer alike. */
export async function checkPagePermission(ctx: ToolsContext, call: CallState) {
  const facts = call.facts!;
  if (!canReadPage(facts)) return fail("mnote_tool_permission_denied", M.pageUnreadable);
  if (!hasAccess(facts, call.tool.access)) {
    return fail(
      "mnote_tool_permission_denied",
      call.tool.access === "artifact_write" ? M.artifactWriteDenied : M.pageWriteDenied,
    );
  }
}

/**
 * 5b. A call of a conversation asked from the panel acts as the person who asked (decision 0021): the
 * conversation's person must have the access too (the intersection with the token's, never more than
 * either), and only the page it was asked about answers — another page, or another workspace, is refused
 * exactly as a missing page is. A session id the panel did not record (made up, or Hermes's own) changes
 * nothing: the token alone decides, as without it. Ids that cannot be a panel conversation cost no read.
 */
export async function checkAskedFor(ctx: ToolsContext, call: CallState) {
  const input = call.input!;
  if (!mayBeAskSession(input.sessionId)) return;
  const session = await ctx.kernel.ask.getSession(input.sessionId);
  if (!session) return;
  // Recorded as acting for the person whatever the outcome: a refused call of theirs is theirs too.
  call.askedBy = session.userId;
  if (session.workspaceId !== input.workspaceId || session.documentId !== input.documentId) {
    return fail("mnote_tool_permission_denied", M.pageUnreadable);
  }
  const person = await ctx.kernel.getAccessFacts({
    workspaceId: session.workspaceId,
    documentId: session.documentId,
    userId: session.userId,
  });
  if (!canReadPage(person)) return fail("mnote_tool_permission_denied", M.pageUnreadable);
  if (!hasAccess(person, call.tool.access)) {
    return fail(
      "mnote_tool_permission_denied",
      call.tool.access === "artifact_write" ? M.artifactWriteDenied : M.pageWriteDenied,
    );
  }
}

/**
 * 6. Idempotency, before the revision check: a retry of a write that already
 * landed must get its stored result, not a conflict with the revision it created.
 */
export function checkIdempotency(_ctx: ToolsContext, call: CallState) {
  const input = call.input!;
  if (call.tool.kind !== "write") return;
  // baseRevision is a precondition, not payload: the panel adds the proposal's base
  // revision when it applies, and the agent's retry without it must still replay.
  const { baseRevision: _precondition, ...payload } = input.args;
  call.fingerprint = payloadFingerprint({
    toolName: call.tool.name,
    workspaceId: input.workspaceId,
    documentId: input.documentId,
    args: payload,
  });
  // Read with the token in step 1, for the token's user, who is the actor by step 3.
  const record = call.storedResult ?? null;
  if (record && record.fingerprint !== call.fingerprint) {
    return fail("mnote_tool_idempotency_conflict", M.idempotencyConflict);
  }
  call.replay = record && !input.dryRun ? record : null;
  call.alreadyApplied = record?.commandId ?? null;
}

/**
 * The approval policy holds this call: an agent's real write to a page, in a workspace whose agent writes
 * wait for a person (decision 0006), and an agent's artifact (summary, AI note) where the owners chose to hold
 * artifacts too (issue 20, decision 0025). Dry runs and people's writes are never held.
 */
export function isHeld(call: CallState): boolean {
  const workspace = call.facts!.workspace!;
  return (
    (call.tool.holdsForApproval || (call.tool.access === "artifact_write" && workspace.holdArtifacts)) &&
    call.token!.holder === "agent" &&
    workspace.approvalRequired &&
    call.input!.dryRun !== true
  );
}

/**
 * 6b. A repeat of a held agent write (same key, same payload) answers the person's decision on it instead
 * of being held again (issue 22): still pending → approval required again, with no second proposal;
 * rejected → `mnote_tool_rejected` with who decided and why; applied → the applied result, saying how it
 * differs when a person applied only part of it or edited it. Before the revision check: the page has moved
 * since, by the approved write itself. Reads only for calls the policy holds.
 */
export async function checkHeldDecision(ctx: ToolsContext, call: CallState) {
  if (call.replay || !isHeld(call)) return;
  const input = call.input!;
  const found = await ctx.kernel.getEditDecision({
    documentId: input.documentId,
    toolName: call.tool.name,
    key: input.idempotencyKey!,
    fingerprint: call.fingerprint!,
    actorId: call.token!.userId,
  });
  if (!found) return;
  const { proposal, result } = found;
  call.audit = { outcome: "failed", detail: { proposalId: proposal.auditId, decision: proposal.status } };
  if (proposal.status === "pending")
    return fail("mnote_tool_approval_required", M.approvalRequired(input.idempotencyKey!));
  const decidedBy = await nameOf(ctx, proposal.decidedBy);
  if (proposal.status === "rejected") return fail("mnote_tool_rejected", M.rejected(decidedBy, proposal.reason));
  call.audit = undefined;
  call.replay = { commandId: proposal.commandId!, result: { ...result, ...appliedDecision(proposal, decidedBy) } };
}

/** A decider's name as the agent is told it (a person of the page's workspace); "a person" if they are gone. */
async function nameOf(ctx: ToolsContext, userId: string | null): Promise<string> {
  if (!userId) return "a person";
  const names = await ctx.kernel.getDisplayNames({ userIds: [userId], tokenIds: [] });
  return names.users[userId] ?? "a person";
}

/** How a person's application of a proposal differs from what was proposed, for the agent (`decision` in its result). */
function appliedDecision(proposal: ProposalRecord, decidedBy: string): { decision?: AppliedDecision } {
  if (proposal.appliedPart) {
    const { kept, total } = proposal.appliedPart;
    return {
      decision: {
        status: "applied_in_part",
        decidedBy,
        kept: kept.length,
        total,
        note: `${decidedBy} applied ${kept.length} of the ${total} proposed changes and left the others out. Read the page before editing it again.`,
      },
    };
  }
  if (proposal.edited) {
    return {
      decision: {
        status: "applied_with_edits",
        decidedBy,
        note: `${decidedBy} changed some of the proposed blocks before applying them. Read the page before editing it again.`,
      },
    };
  }
  return {};
}

/** 7. The base revision, when the caller named one, is still the page's revision. */
export function checkRevision(_ctx: ToolsContext, call: CallState) {
  const baseRevision = call.input!.args.baseRevision;
  if (!call.replay && typeof baseRevision === "number" && baseRevision !== call.facts!.page!.revision) {
    return fail("mnote_tool_conflict", M.conflict);
  }
}

/** In this order: each check may rely on what the ones before it put on `call`. */
export const CALL_CHECKS: readonly Check[] = [
  authenticate,
  checkDoor,
  validateEnvelope,
  checkCapabilityScope,
  checkMembership,
  checkPagePermission,
  checkAskedFor,
  checkIdempotency,
  checkHeldDecision,
  checkRevision,
];

/** Runs every check in front of a tool's own code; the first to fail ends the call. */
export const checkCall = middleware(async ({ ctx, next }) => {
  const { call } = ctx as typeof ctx & { call: CallState };
  for (const check of CALL_CHECKS) {
    // Only the first check reads; awaiting the others' plain results would cost a microtask each.
    const pending = check(ctx, call);
    if (pending) await pending;
  }
  return next();
});
