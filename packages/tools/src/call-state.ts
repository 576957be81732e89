import type {
  AccessFacts,
  CallIdentity,
  IdempotencyRecord,
  PageRecord,
  ProposalRecord,
  Role,
  TokenRecord,
  WorkspaceRecord,
} from "@mnote/kernel";
import { echoEnvelopeIds, echoField, type EchoedField, type EnvelopeIds } from "@mnote/contract";
import type { ParsedEnvelope, ToolRules, ToolSpec } from "./tool-spec";

/*
 * The states of one tool call as the checks (middleware/checks.ts) learn about it. Each check takes one state and
 * answers a narrower one, never changing the one it got: a field a later step relies on is there by type, not by
 * the order the steps happen to run in (as t3's `protectedProcedure` narrows `session`). Reads end at
 * `CheckedCall`, writes at `CheckedWrite`.
 */

/** Before any check: which tool, what the caller sent, when it started. */
export interface CallStart<Input extends ParsedEnvelope> {
  readonly tool: ToolSpec<Input>;
  readonly raw: unknown;
  readonly startedAt: number;
}

/**
 * The envelope as step 1 parsed it against the tool's schema (step 2 gives the verdict) and, when it parsed, what
 * was read for its ids in the same statement as the token.
 */
export type EnvelopeReading<Input extends ParsedEnvelope> =
  | {
      readonly ok: true;
      readonly input: Input;
      readonly facts: AccessFacts;
      /** The caller's unexpired result for this write's idempotency key; null for a read. */
      readonly stored: IdempotencyRecord | null;
    }
  | { readonly ok: false; readonly problem: string };

/** 1. A live token issued by mnote (for this door's resource). */
export interface Authenticated<Input extends ParsedEnvelope> extends CallStart<Input> {
  readonly token: TokenRecord;
  readonly envelope: EnvelopeReading<Input>;
}

/** 2. The envelope and args are the contract's (Markdown args turned into blocks), and the facts for its ids read. */
export interface Validated<Input extends ParsedEnvelope> extends CallStart<Input> {
  readonly token: TokenRecord;
  readonly input: Input;
  readonly facts: AccessFacts;
  readonly stored: IdempotencyRecord | null;
}

/** 4. A member of the workspace. */
export interface Member<Input extends ParsedEnvelope> extends Validated<Input> {
  readonly facts: AccessFacts & { readonly workspace: WorkspaceRecord; readonly role: Role };
}

/** 5. The page exists and the member has the access the tool needs on it. */
export interface Permitted<Input extends ParsedEnvelope> extends Member<Input> {
  readonly facts: Member<Input>["facts"] & { readonly page: PageRecord };
}

/**
 * A workspace tool's call fully checked (it names no page, so none was loaded or permitted): a member of the
 * workspace, and whom the call acts for. `asker.access`: the asking person's membership of this workspace (null when
 * the conversation was asked in another workspace). The tool keeps to what the caller, and the asker, may read.
 */
export interface CheckedWorkspaceCall<Input extends ParsedEnvelope = ParsedEnvelope> extends Member<Input> {
  readonly asker: CheckedCall["asker"];
}

/** A workspace write, keyed and checked for a replay (what a workspace tool's write runs on). */
export interface CheckedWorkspaceWrite<
  Input extends ParsedEnvelope = ParsedEnvelope,
> extends CheckedWorkspaceCall<Input> {
  readonly write: WriteFacts;
  readonly decision: null;
  readonly replay: CheckedWrite["replay"];
}

/**
 * 5b. Whom the call acts for. A read is fully checked here: its code runs on this.
 * `asker`: the person who asked, when the call belongs to a conversation asked from the panel (decision 0021), with
 * their access to the page the call names (null when the conversation is about another page).
 */
export interface CheckedCall<Input extends ParsedEnvelope = ParsedEnvelope> extends Permitted<Input> {
  readonly asker: { readonly userId: string; readonly access: AccessFacts | null } | null;
}

/** What a write's own checks learn (step 6): its key, its payload, what an earlier call with the key left. */
export interface WriteFacts {
  readonly key: string;
  readonly dryRun: boolean;
  /** The payload's fingerprint (baseRevision left out: it is a precondition, not payload). */
  readonly fingerprint: string;
  /** The caller's unexpired result for this key, read with the token in step 1. */
  readonly stored: IdempotencyRecord | null;
  /** The approval policy holds this write for a person (decision 0006): an agent's real write, never a dry run. */
  readonly held: boolean;
}

/** 6. A write, keyed. */
export interface Keyed<Input extends ParsedEnvelope> extends CheckedCall<Input> {
  readonly write: WriteFacts;
}

/** A person's decision on the proposal an earlier, held call of this same write left (issue 22). */
export interface HeldDecision {
  readonly proposal: ProposalRecord;
  /** The applied command's result; null unless applied. */
  readonly result: Record<string, unknown> | null;
  /** The decider's name as the agent is told it. */
  readonly decidedBy: string;
  /** Pending: the targets of its undecided changes that conflict with the page now (decision 0030). */
  readonly conflicts: readonly string[];
}

/** 6b. A write fully checked (step 7 adds nothing): what `runWrite` runs on. */
export interface CheckedWrite<Input extends ParsedEnvelope = ParsedEnvelope> extends Keyed<Input> {
  /** Found only for a repeat of a write the policy holds. */
  readonly decision: HeldDecision | null;
  /**
   * What the write answers instead of running: the key's stored result for this payload, or the result of the held
   * write a person has since applied. Never on a dry run (it warns instead).
   */
  readonly replay: { readonly commandId: string; readonly result: Record<string, unknown> } | null;
}

/**
 * What the checks had learned of a call when it ended, however far they got: every state above is one. A refused
 * call's answer and audit record say as much as this knows, and no more.
 */
export interface CallKnown {
  readonly tool: ToolRules;
  readonly raw: unknown;
  readonly startedAt: number;
  readonly token?: TokenRecord;
  readonly envelope?: EnvelopeReading<ParsedEnvelope>;
  readonly input?: ParsedEnvelope;
  readonly facts?: AccessFacts;
  readonly asker?: CheckedCall["asker"];
  readonly write?: WriteFacts;
  readonly decision?: HeldDecision | null;
}

/** The one mutable thing about a call: how far its checks got. Only `checkRead` and `checkWrite` move it on. */
export interface CallProgress {
  known: CallKnown;
}

/** The args' `baseRevision`, when the caller named one: a precondition every write may carry (contract §4). */
export function baseRevisionOf(args: unknown): number | null {
  if (typeof args !== "object" || args === null || !("baseRevision" in args)) return null;
  return typeof args.baseRevision === "number" ? args.baseRevision : null;
}

/**
 * The args as an idempotency key's payload: `baseRevision` is a precondition, not payload. The panel adds the
 * proposal's base revision when it applies, and the agent's retry without it must still replay.
 */
export function payloadOf(args: unknown): unknown {
  if (typeof args !== "object" || args === null || !("baseRevision" in args)) return args;
  const { baseRevision: _precondition, ...payload } = args;
  return payload;
}

/**
 * The ids a call without a valid token claimed, as an audit record's detail: kept for an operator
 * under a name that says they are unverified, never as anyone's identity.
 * Only what the contract's schema for each field accepts is kept (`echoField`), as on every door.
 */
const CLAIMED_FIELDS: readonly EchoedField[] = [
  "actorId",
  "workspaceId",
  "documentId",
  "sessionId",
  "runId",
  "toolCallId",
  "traceId",
];
export function unverifiedClaims(raw: unknown): { unverifiedClaims: Record<string, string> } | null {
  const claims: Record<string, string> = {};
  for (const field of CLAIMED_FIELDS) {
    const value = echoField(raw, field);
    if (value) claims[field] = value;
  }
  return Object.keys(claims).length ? { unverifiedClaims: claims } : null;
}

/**
 * Who made the call, as the audit records it. Only a live token says who a caller is: a call
 * without one is recorded with no actor, page, session, run or trace (they are claims, and a
 * forged `actorId: user_ada` must not land in Ada's trail or on her page's proposals list).
 */
export function callIdentity(call: CallKnown, targetVerified = true): CallIdentity {
  const { input, token } = call;
  if (!token) return anonymousIdentity(call.tool.name);
  // A caller refused because it may not read the page it named (issue 20): recorded as itself, under no workspace,
  // page, session or run of the target; what it named is kept as unverified claims (the record's detail).
  if (!targetVerified) {
    return { ...anonymousIdentity(call.tool.name), actorId: token.userId, tokenId: token.id, holder: token.holder };
  }
  return {
    toolName: call.tool.name,
    workspaceId: input?.workspaceId ?? echoField(call.raw, "workspaceId") ?? "",
    // A workspace tool's call names no page, and a refused one's claimed page is not its target either.
    documentId: input
      ? (input.documentId ?? "")
      : call.tool.scope === "workspace"
        ? ""
        : (echoField(call.raw, "documentId") ?? ""),
    actorId: token.userId,
    tokenId: token.id,
    holder: token.holder,
    sessionId: input?.sessionId ?? echoField(call.raw, "sessionId"),
    runId: input?.runId ?? echoField(call.raw, "runId"),
    toolCallId: input?.toolCallId ?? echoField(call.raw, "toolCallId"),
    traceId: input?.traceId ?? echoField(call.raw, "traceId"),
    askedBy: call.asker?.userId ?? null,
  };
}

/**
 * How the audit records a caller no live token vouches for: by the tool it named, and nothing else.
 * The router's checks and the door for unknown tool names both record such calls this way.
 */
export function anonymousIdentity(toolName: string): CallIdentity {
  return {
    toolName,
    workspaceId: "",
    documentId: "",
    actorId: "",
    tokenId: null,
    holder: null,
    sessionId: null,
    runId: null,
    toolCallId: null,
    traceId: null,
    askedBy: null,
  };
}

/** The ids the answer repeats: the validated envelope's, else what the caller sent as far as the contract lets it be echoed. */
export function envelopeIds(call: CallKnown): EnvelopeIds {
  const { input } = call;
  // A workspace tool's answer names no page, even when its caller sent one (and was refused for it).
  if (!input) {
    const echoed = echoEnvelopeIds(call.raw);
    return call.tool.scope === "workspace" ? { ...echoed, documentId: null } : echoed;
  }
  return {
    toolCallId: input.toolCallId,
    traceId: input.traceId,
    workspaceId: input.workspaceId,
    // A page.create's call is about the page its key names (decision 0046), but its answer, a workspace tool's,
    // names no page: the result carries the new page's id.
    documentId: call.tool.scope === "workspace" ? null : (input.documentId ?? null),
  };
}
