import {
  type AppliedDecision,
  canonicalToolName,
  type ChangeOutcome,
  isWriteTool,
  LIMITS,
  PERSON_TEXT_IS_DATA,
  quoteData,
  TOOL_ERROR_MESSAGES as M,
  TOOLS,
  type ToolScope,
} from "@mnote/contract";
import {
  type ChangeStateRecord,
  hashToken,
  isTokenLive,
  type PageRecord,
  type ProposalRecord,
  type TokenRecord,
} from "@mnote/kernel";
import { changeTarget, type ProposalDetail, proposalOnPage } from "../proposal-merge";
import { canReadPage, hasAccess } from "../access";
import {
  type Authenticated,
  baseRevisionOf,
  type CallProgress,
  type CallStart,
  type CheckedCall,
  type CheckedWorkspaceCall,
  type CheckedWorkspaceWrite,
  type CheckedWrite,
  type EnvelopeReading,
  type HeldDecision,
  type Keyed,
  type Member,
  payloadOf,
  type Permitted,
  type Validated,
  type WriteFacts,
} from "../call-state";
import { bearerSecret, doorRefusal, type ToolsContext } from "../context";
import { AppError, invalidInput } from "../app-error";
import { payloadFingerprint } from "../fingerprint";
import { argsWithoutMarkdown } from "../markdown-args";
import { mayBeAskSession } from "../ask-session";
import type { AccessNeed, ParsedEnvelope, ToolSpec } from "../tool-spec";
import { newPageId, pageToBe } from "../new-page";
import { counted } from "../counted";

/**
 * The checks every tool call passes, in order (`checkRead`, `checkWrite`). Each one either ends the call with a
 * contract error or answers a narrower state of the call for the next (call-state.ts).
 *
 * They are plain functions, run by the tool's procedure itself (tool-procedure.ts), not one tRPC middleware each:
 * every tRPC hop copies its options and context objects several times over, and nine hops cost a write more than
 * its SQL reads did (docs/decisions/0007).
 */

/**
 * 1. Login: a bearer token issued by mnote, not revoked, not expired.
 *
 * The token is read in one statement with every fact the later checks decide on (membership, page,
 * grant, the key's stored result): one read instead of three on every call. That read needs the
 * envelope's ids, so the envelope is parsed here; step 2 gives the verdict on it. A call with a bad
 * envelope still hears "unauthenticated" first when its token is no good.
 */
export async function authenticate<I extends ParsedEnvelope>(
  ctx: ToolsContext,
  call: CallStart<I>,
): Promise<Authenticated<I>> {
  const secret = bearerSecret(ctx.authorization);
  if (!secret) throw new AppError("mnote_tool_unauthenticated", M.unauthenticated);
  const tokenHash = hashToken(secret);
  const parsed = parseEnvelope(call);
  const now = ctx.clock.now().toISOString();
  let token: TokenRecord | null;
  let envelope: EnvelopeReading<I>;
  if (parsed.ok) {
    const input = withNewPageId(ctx, call.tool, parsed.input);
    const key = call.tool.kind === "write" ? input.idempotencyKey : undefined;
    const facts = await ctx.kernel.getCallFacts({
      tokenHash,
      workspaceId: input.workspaceId,
      documentId: input.documentId ?? null,
      idempotency: key === undefined ? null : { toolName: call.tool.name, key, now },
    });
    token = facts.token;
    envelope = { ok: true, input, facts: facts.access, stored: facts.idempotency };
  } else {
    token = await ctx.kernel.findTokenByHash(tokenHash);
    envelope = parsed;
  }
  if (!isTokenLive(token, now)) throw new AppError("mnote_tool_unauthenticated", M.unauthenticated);
  // An OAuth grant's token works only at the resource it was issued for (RFC 8707, decision 0027).
  if (token.resource !== undefined && token.resource !== (ctx.resource ?? null))
    throw new AppError("mnote_tool_unauthenticated", "this token was issued for another resource");
  return { ...call, token, envelope };
}

/**
 * 1b. The door: a person's token only at the panel, an agent's only at an agent door
 * (bridge, MCP, CLI). So an agent cannot borrow the panel to skip the approval policy,
 * and a person's token handed to an agent does not write past it either.
 */
export function checkDoor(ctx: ToolsContext, call: Authenticated<ParsedEnvelope>): void {
  const refusal = doorRefusal(ctx.door, call.token.holder);
  if (refusal) throw new AppError("mnote_tool_permission_denied", refusal);
}

/**
 * A page.create names the page it makes by its key (decision 0046): from here on the call is about that page, as any
 * page write is about its page — its facts, fingerprint, proposal, command and record name it.
 */
function withNewPageId<I extends ParsedEnvelope>(ctx: ToolsContext, tool: ToolSpec<I>, input: I): I {
  if (tool.access !== "page_create" || input.idempotencyKey === undefined) return input;
  const proposer = ctx.decision?.proposer.actorId ?? input.actorId;
  return { ...input, documentId: newPageId(input.workspaceId, proposer, input.idempotencyKey) };
}

/** The envelope and the tool's args checked against the contract (step 1 reads with it, step 2 judges it). */
function parseEnvelope<I extends ParsedEnvelope>(
  call: CallStart<I>,
): { ok: true; input: I } | { ok: false; problem: string } {
  if (!call.raw || typeof call.raw !== "object" || Array.isArray(call.raw)) {
    return { ok: false, problem: "input: must be the tool input envelope (a JSON object)" };
  }
  const parsed = call.tool.inputSchema.safeParse(call.raw);
  if (!parsed.success) return { ok: false, problem: invalidInput(parsed.error) };
  const input = parsed.data;
  if (canonicalToolName(input.toolName) !== call.tool.name && input.toolName !== call.tool.name) {
    return { ok: false, problem: `toolName: expected ${call.tool.name}` };
  }
  if (textTotal(contentArg(input.args)) > LIMITS.saveTextTotal) {
    return { ok: false, problem: `args.content: more than ${LIMITS.saveTextTotal} characters of text in one save` };
  }
  return { ok: true, input };
}

/** A save's blocks (`content`), whatever the tool's args. */
const contentArg = (args: unknown): unknown =>
  typeof args === "object" && args !== null && "content" in args ? args.content : undefined;

/** A save's content or an edit's operations: what holds a write's text. */
const contentOf = (args: unknown): unknown =>
  contentArg(args) ?? (typeof args === "object" && args !== null && "operations" in args ? args.operations : undefined);

/** The characters of text in a save's content or an edit's operations (the block form, blocks nested in operations). */
function textTotal(value: unknown): number {
  if (!Array.isArray(value)) return 0;
  let total = 0;
  const items: readonly unknown[] = value;
  for (const item of items) {
    if (typeof item !== "object" || item === null) continue;
    if ("text" in item && typeof item.text === "string") total += item.text.length;
    if ("blocks" in item) total += textTotal(item.blocks);
  }
  return total;
}

/**
 * 2. The envelope and the tool's args, exactly as the contract describes them; Markdown args are turned
 * into blocks here (after the token is known good), so every later step sees the block form.
 */
export function validateEnvelope<I extends ParsedEnvelope>(call: Authenticated<I>): Validated<I> {
  const { envelope } = call;
  if (!envelope.ok) throw new AppError("mnote_tool_invalid_input", envelope.problem);
  const args = argsWithoutMarkdown(call.tool.name, envelope.input.args);
  if (args !== envelope.input.args && textTotal(contentOf(args)) > LIMITS.saveTextTotal)
    throw new AppError(
      "mnote_tool_invalid_input",
      `args.markdown: more than ${LIMITS.saveTextTotal} characters of text`,
    );
  return {
    tool: call.tool,
    raw: call.raw,
    startedAt: call.startedAt,
    token: call.token,
    input: args === envelope.input.args ? envelope.input : { ...envelope.input, args },
    facts: envelope.facts,
    stored: envelope.stored,
  };
}

/** 3. The call's capability scope covers the tool and stays within the token's. */
export function checkCapabilityScope({ input, token, tool }: Validated<ParsedEnvelope>): void {
  if (input.actorId !== token.userId) throw new AppError("mnote_tool_unauthenticated", M.actorMismatch);
  if (input.capabilityScope.some((scope) => !token.scopes.includes(scope))) {
    throw new AppError("mnote_tool_permission_denied", M.scopeExceedsToken);
  }
  if (!input.capabilityScope.includes(tool.capability)) {
    throw new AppError("mnote_tool_permission_denied", M.scopeMissing(tool.capability));
  }
}

/**
 * 4. Workspace membership. A stranger learns nothing: a page tool's hears what a missing page answers, a workspace
 * tool's what a missing workspace answers.
 */
export function checkMembership<I extends ParsedEnvelope>(call: Validated<I>): Member<I> {
  const { workspace, role } = call.facts;
  if (!workspace || !role) throw new AppError("mnote_tool_permission_denied", strangerRefusal(call.tool.scope));
  return { ...call, facts: { ...call.facts, workspace, role } };
}

/** What a caller who may not see the tool's target hears: one message for missing and forbidden alike. */
const strangerRefusal = (scope: ToolScope) => (scope === "workspace" ? M.workspaceUnreadable : M.pageUnreadable);

/** Refuses `facts` that do not give `need` on a readable page: unreadable and missing pages answer alike. */
function requireAccess(facts: Parameters<typeof hasAccess>[0], need: AccessNeed): void {
  if (need === "page_create") {
    if (!hasAccess(facts, need)) throw new AppError("mnote_tool_permission_denied", M.pageWriteDenied);
    return;
  }
  if (!canReadPage(facts)) throw new AppError("mnote_tool_permission_denied", M.pageUnreadable);
  if (!hasAccess(facts, need)) {
    throw new AppError(
      "mnote_tool_permission_denied",
      need === "artifact_write" ? M.artifactWriteDenied : M.pageWriteDenied,
    );
  }
}

/** 5. Page read, page write or artifact write. Unreadable and missing pages answer alike. */
export function checkPagePermission<I extends ParsedEnvelope>(call: Member<I>): Permitted<I> {
  if (call.tool.access === "page_create") {
    requireAccess(call.facts, "page_create");
    // The page the call would make, empty: a create plans on it whether or not an earlier call already made it.
    const isPrivate = (call.input.args as { private?: boolean }).private === true;
    return { ...call, facts: { ...call.facts, page: pageToBe(call.input, isPrivate) } };
  }
  const { page } = call.facts;
  if (!page) throw new AppError("mnote_tool_permission_denied", M.pageUnreadable);
  requireAccess(call.facts, call.tool.access);
  return { ...call, facts: { ...call.facts, page } };
}

/**
 * 5b. Whom the call acts for (decision 0021): a call of a conversation asked from the panel acts as the person who
 * asked. A session id the panel did not record (made up, or Hermes's own) changes nothing: the token alone decides,
 * as without it. Ids that cannot be a panel conversation cost no read.
 */
export async function findAskedFor<I extends ParsedEnvelope>(
  ctx: ToolsContext,
  call: Permitted<I>,
): Promise<CheckedCall<I>> {
  const { input } = call;
  if (!mayBeAskSession(input.sessionId)) return { ...call, asker: null };
  const session = await ctx.kernel.ask.getSession(input.sessionId);
  if (!session) return { ...call, asker: null };
  // A new page is no page asked about: the asker's role in the workspace decides (decision 0046).
  const samePage =
    session.workspaceId === input.workspaceId &&
    (session.documentId === call.facts.page.id || call.tool.access === "page_create");
  const access = samePage
    ? await ctx.kernel.getAccessFacts({
        workspaceId: session.workspaceId,
        documentId: session.documentId,
        userId: session.userId,
      })
    : null;
  return { ...call, asker: { userId: session.userId, access } };
}

/**
 * 5c. The person who asked must have the access too (the intersection with the token's, never more than either),
 * and only the page they asked about answers: another page, or another workspace, is refused exactly as a missing
 * page is. The call is recorded as acting for them whatever the outcome: a refused call of theirs is theirs too.
 */
export function checkAskedFor({ asker, tool }: CheckedCall): void {
  if (!asker) return;
  if (!asker.access) throw new AppError("mnote_tool_permission_denied", M.pageUnreadable);
  requireAccess(asker.access, tool.access);
}

/**
 * 5b (workspace tools). Whom the call acts for: the person who asked, when the conversation was asked in this
 * workspace (on any of its pages), with their membership; a conversation of another workspace is refused as a
 * missing workspace is, and so is an asker who is no longer a member. What they may read is the tool's to keep to
 * (`readersOf`): the whole workspace is never more than the asker's own share of it.
 */
export async function findWorkspaceAskedFor<I extends ParsedEnvelope>(
  ctx: ToolsContext,
  call: Member<I>,
): Promise<CheckedWorkspaceCall<I>> {
  const { input } = call;
  if (!mayBeAskSession(input.sessionId)) return { ...call, asker: null };
  const session = await ctx.kernel.ask.getSession(input.sessionId);
  if (!session) return { ...call, asker: null };
  const access =
    session.workspaceId === input.workspaceId
      ? await ctx.kernel.getAccessFacts({ workspaceId: session.workspaceId, documentId: null, userId: session.userId })
      : null;
  return { ...call, asker: { userId: session.userId, access } };
}

export function checkWorkspaceAskedFor({ asker }: CheckedWorkspaceCall): void {
  if (!asker) return;
  if (!asker.access?.workspace || !asker.access.role)
    throw new AppError("mnote_tool_permission_denied", M.workspaceUnreadable);
}

/**
 * The people whose reading rights a workspace tool's answer keeps to: the token's user, and the person who asked
 * when the call acts for one (decision 0021). A page is in the answer only when every one of them may read it.
 */
export function readersOf({ token, asker }: CheckedWorkspaceCall): string[] {
  return asker && asker.userId !== token.userId ? [token.userId, asker.userId] : [token.userId];
}

/**
 * 6. A write's key and payload, and whether the approval policy holds it: an agent's real write to a page, in a
 * workspace whose agent writes wait for a person (decision 0006), and an agent's artifact (summary, AI note) where
 * the owners chose to hold artifacts too (issue 20, decision 0025). Dry runs and people's writes are never held.
 */
export function keyWrite<I extends ParsedEnvelope, C extends CheckedWorkspaceCall<I>>(
  call: C,
): C & { write: WriteFacts } {
  const { input, tool, token, facts } = call;
  const { idempotencyKey: key, dryRun } = input;
  // Every write tool's schema requires both (contract §4): a write without them never gets past step 2.
  if (key === undefined || dryRun === undefined)
    throw new AppError("mnote_tool_invalid_input", "a write names its idempotencyKey and says whether it is a dryRun");
  const fingerprint = payloadFingerprint({
    toolName: tool.name,
    workspaceId: input.workspaceId,
    documentId: input.documentId ?? null,
    args: payloadOf(input.args),
  });
  const held =
    (tool.holdsForApproval || (tool.access === "artifact_write" && facts.workspace.holdArtifacts)) &&
    token.holder === "agent" &&
    facts.workspace.approvalRequired &&
    !dryRun;
  return { ...call, write: { key, dryRun, fingerprint, stored: call.stored, held } };
}

/**
 * 6a. Idempotency, before the revision check: a retry of a write that already landed must get its stored result,
 * not a conflict with the revision it created. The stored result was read with the token in step 1, for the
 * token's user, who is the actor by step 3.
 */
export function checkIdempotency({ write }: { write: WriteFacts }): void {
  if (write.stored && write.stored.fingerprint !== write.fingerprint) {
    throw new AppError("mnote_tool_idempotency_conflict", M.idempotencyConflict);
  }
}

/**
 * 6b. A repeat of a held agent write (same key, same payload) answers the person's decision on it instead
 * of being held again (issue 22). Before the revision check: the page has moved since, by the approved write
 * itself. Reads only for calls the policy holds and the key has no result for.
 */
export async function findHeldDecision<I extends ParsedEnvelope>(
  ctx: ToolsContext,
  call: Keyed<I>,
): Promise<CheckedWrite<I>> {
  const { write } = call;
  const stored =
    write.stored && !write.dryRun ? { commandId: write.stored.commandId, result: write.stored.result } : null;
  if (stored || !write.held) return { ...call, decision: null, replay: stored };
  const found = await ctx.kernel.getEditDecision({
    documentId: call.facts.page.id,
    toolName: call.tool.name,
    key: write.key,
    fingerprint: write.fingerprint,
    actorId: call.token.userId,
  });
  if (!found) return { ...call, decision: null, replay: null };
  // The key names one intended call (decision 0030): another payload under a held key is refused, recording nothing.
  if (found.otherPayload) throw new AppError("mnote_tool_idempotency_conflict", M.idempotencyConflict);
  const { proposal, result } = found;
  const conflicts =
    proposal.status === "pending" && call.tool.access !== "page_create"
      ? await conflictingTargets(ctx, call.facts.page, proposal)
      : [];
  const decision: HeldDecision = { proposal, result, decidedBy: await nameOf(ctx, proposal.decidedBy), conflicts };
  const appliedAs = proposal.status === "applied" ? proposal.commandId : null;
  const replay =
    appliedAs === null
      ? null
      : {
          commandId: appliedAs,
          result: {
            ...resultAsTool(call.tool.name, proposal, result),
            ...appliedDecision(proposal, decision.decidedBy),
          },
        };
  return { ...call, decision, replay };
}

/** What a pending held edit's undecided changes conflict with on the page now: the targets to read again. */
async function conflictingTargets(ctx: ToolsContext, page: PageRecord, proposal: ProposalRecord): Promise<string[]> {
  const audit = await ctx.kernel.getAudit(proposal.auditId);
  const detail = audit?.detail as unknown as ProposalDetail | undefined;
  if (!detail?.preview) return [];
  const onPage = await proposalOnPage(ctx.kernel, page, detail);
  return onPage.merged.flatMap((merged, i) =>
    merged.state === "conflict" && !proposal.changeStates[i] ? [changeTarget(onPage.changes[i]!)] : [],
  );
}

/**
 * The applied result in the form of the agent's own tool: a proposal decided change by change is written by the
 * tool that applies anchored changes (page.edit for a page.save), and the MCP client checks the result's schema.
 */
function resultAsTool(toolName: string, proposal: ProposalRecord, result: Record<string, unknown> | null) {
  if (Object.keys(proposal.changeStates).length === 0 || !isWriteTool(toolName)) return result;
  const commandName = TOOLS[toolName].commandName;
  return {
    commandName,
    revision: result?.revision,
    ...(toolName === "mnote.page.edit" ? { insertedBlockIds: result?.insertedBlockIds ?? [] } : {}),
  };
}

/**
 * 6c. The decision, when it is not to apply: still pending → approval required again, with no second proposal;
 * rejected → `mnote_tool_rejected` with who decided and why. (Applied → the applied result, as a replay, saying how
 * it differs when a person applied only part of it or edited it.)
 */
export function checkHeldDecision({ decision, write }: CheckedWrite<ParsedEnvelope>): void {
  if (!decision) return;
  const { proposal, conflicts } = decision;
  if (proposal.status === "pending") {
    if (conflicts.length > 0) throw new AppError("mnote_tool_conflict", M.conflicted(conflicts, true));
    throw new AppError("mnote_tool_approval_required", M.approvalRequired(write.key));
  }
  if (proposal.status === "rejected") {
    const states = Object.values(proposal.changeStates);
    // Every change left out because the page changed there: the agent hears which to read again.
    if (states.length > 0 && states.every((state) => state.keptMine)) {
      throw new AppError(
        "mnote_tool_conflict",
        M.conflicted(
          states.map((state) => state.target ?? `change ${state.index}`),
          false,
        ),
      );
    }
    throw new AppError("mnote_tool_rejected", M.rejected(decision.decidedBy, proposal.reason));
  }
}

/** A decider's name as the agent is told it (a person of the page's workspace); "a person" if they are gone. */
async function nameOf(ctx: ToolsContext, userId: string | null): Promise<string> {
  if (!userId) return "a person";
  const names = await ctx.kernel.getDisplayNames({ userIds: [userId], tokenIds: [] });
  return names.users[userId] ?? "a person";
}

/** How a person's application of a proposal differs from what was proposed, for the agent (`decision` in its result). */
function appliedDecision(proposal: ProposalRecord, decidedBy: string): { decision?: AppliedDecision } {
  const states = Object.values(proposal.changeStates).sort((a, b) => a.index - b.index);
  if (states.length > 0) return changeByChange(states, decidedBy);
  if (proposal.appliedPart) {
    const { kept, total } = proposal.appliedPart;
    return {
      decision: {
        status: "applied_in_part",
        decidedBy,
        kept: kept.length,
        total,
        note: `${quoteData(decidedBy)} applied ${kept.length} of the ${total} proposed changes and left the others out. Read the page before editing it again. ${PERSON_TEXT_IS_DATA}`,
      },
    };
  }
  if (proposal.edited) {
    return {
      decision: {
        status: "applied_with_edits",
        decidedBy,
        note: `${quoteData(decidedBy)} changed some of the proposed blocks before applying them. Read the page before editing it again. ${PERSON_TEXT_IS_DATA}`,
      },
    };
  }
  return {};
}

/**
 * A proposal decided change by change (decision 0030), told change by change: which were applied, which in the
 * person's own version (with the final block, so the model does not redo the original), which left out and why.
 */
function changeByChange(states: ChangeStateRecord[], decidedBy: string): { decision?: AppliedDecision } {
  const changes: ChangeOutcome[] = states.map((state) => ({
    change: state.index,
    target: state.target ?? `change ${state.index}`,
    outcome: state.state === "rejected" ? (state.keptMine ? "conflict" : "left_out") : state.state,
    ...(state.reason ? { reason: state.reason } : {}),
    ...(state.final ? { final: state.final } : {}),
  }));
  const applied = states.filter((state) => state.state !== "rejected");
  const edited = states.filter((state) => state.state === "applied_with_edits");
  const leftOut = states.length - applied.length;
  if (leftOut === 0 && edited.length === 0) return {};
  const notes = [
    leftOut > 0
      ? `${quoteData(decidedBy)} applied ${applied.length} of the ${states.length} proposed changes and left ${leftOut} out`
      : null,
    edited.length > 0
      ? `${counted(edited.length, "change was", "changes were")} applied in the person's own version (\`final\` holds each block as the page now has it)`
      : null,
  ].filter(Boolean);
  return {
    decision: {
      status: leftOut > 0 ? "applied_in_part" : "applied_with_edits",
      decidedBy,
      ...(leftOut > 0 ? { kept: applied.length, total: states.length } : {}),
      note: `${notes.join("; ")}. Read the page before editing it again. ${PERSON_TEXT_IS_DATA}`,
      changes,
    },
  };
}

/** 7. The base revision, when the caller named one, is still the page's revision (a replay answers regardless). */
export function checkRevision({ input, facts, replay }: CheckedWrite<ParsedEnvelope>): void {
  const baseRevision = baseRevisionOf(input.args);
  if (!replay && baseRevision !== null && baseRevision !== facts.page.revision)
    throw new AppError("mnote_tool_conflict", M.conflict, "page_moved");
}

/**
 * Every check in front of a read, in order; the first to fail ends the call. `progress` is told each state that
 * knows more, so a refused call's record says as much as was learned before it was refused.
 */
export async function checkRead<I extends ParsedEnvelope>(
  ctx: ToolsContext,
  start: CallStart<I>,
  progress: CallProgress,
): Promise<CheckedCall<I>> {
  const authenticated = (progress.known = await authenticate(ctx, start));
  checkDoor(ctx, authenticated);
  const valid = (progress.known = validateEnvelope(authenticated));
  checkCapabilityScope(valid);
  const permitted = checkPagePermission(checkMembership(valid));
  const checked = (progress.known = await findAskedFor(ctx, permitted));
  checkAskedFor(checked);
  return checked;
}

/**
 * Every check in front of a workspace tool's read: login, door, envelope (no page in it), capability in scope,
 * membership (another workspace's member hears what a missing workspace answers), and whom it acts for. No page is
 * loaded: the tool keeps to what `readersOf` the call may read.
 */
export async function checkWorkspaceRead<I extends ParsedEnvelope>(
  ctx: ToolsContext,
  start: CallStart<I>,
  progress: CallProgress,
): Promise<CheckedWorkspaceCall<I>> {
  const authenticated = (progress.known = await authenticate(ctx, start));
  checkDoor(ctx, authenticated);
  const valid = (progress.known = validateEnvelope(authenticated));
  checkCapabilityScope(valid);
  const member = checkMembership(valid);
  const checked = (progress.known = await findWorkspaceAskedFor(ctx, member));
  checkWorkspaceAskedFor(checked);
  return checked;
}

/**
 * Every check in front of a workspace tool's write: a workspace read's, then its key (idempotency: a retry replays
 * the stored result, another payload under the key is a conflict). No page revision: it names no page.
 */
export async function checkWorkspaceWrite<I extends ParsedEnvelope>(
  ctx: ToolsContext,
  start: CallStart<I>,
  progress: CallProgress,
): Promise<CheckedWorkspaceWrite<I>> {
  const keyed = (progress.known = keyWrite<I, CheckedWorkspaceCall<I>>(await checkWorkspaceRead(ctx, start, progress)));
  checkIdempotency(keyed);
  const stored = keyed.write.stored;
  const replay = stored && !keyed.write.dryRun ? { commandId: stored.commandId, result: stored.result } : null;
  return { ...keyed, decision: null, replay };
}

/** Every check in front of a write: a read's, then the write's own (idempotency, approval, revision). */
export async function checkWrite<I extends ParsedEnvelope>(
  ctx: ToolsContext,
  start: CallStart<I>,
  progress: CallProgress,
): Promise<CheckedWrite<I>> {
  const keyed = (progress.known = keyWrite<I, CheckedCall<I>>(await checkRead(ctx, start, progress)));
  checkIdempotency(keyed);
  const checked = (progress.known = await findHeldDecision(ctx, keyed));
  checkHeldDecision(checked);
  checkRevision(checked);
  return checked;
}
