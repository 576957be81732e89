import type { DryRunResult, OutputEnvelope, ToolInput, ToolName, ToolResult } from "@mnote/contract";
import type {
  CallProgress,
  CallStart,
  CheckedCall,
  CheckedWorkspaceCall,
  CheckedWorkspaceWrite,
  CheckedWrite,
} from "./call-state";
import type { ToolsContext } from "./context";
import { checkRead, checkWorkspaceRead, checkWorkspaceWrite, checkWrite } from "./middleware/checks";
import { answerCall, refusalOf, type ToolEnding } from "./middleware/answer-and-audit";
import { type ContractToolInput, contractToolSpec, type ParsedEnvelope, type ToolSpec } from "./tool-spec";
import { publicProcedure } from "./trpc";

/** A tool's own code: it runs on the fully checked call and says how the call ended. */
export type ToolRun<Call, Result> = (call: Call, ctx: ToolsContext) => Promise<ToolEnding<Result>>;

/**
 * The typed input a client sends. Validation is not done by tRPC's input parser (it would answer a tRPC error);
 * the checks do it against the tool's schema and answer the contract's error.
 */
const sentInput =
  <Sent>() =>
  (raw: unknown) =>
    raw as Sent;

/**
 * Runs one tool call from start to answer: the checks (each answers a narrower state of the call), the tool's own
 * code on the fully checked call, then the answer and its one audit record, however the call ended. A plain async
 * function inside the procedure, not tRPC middlewares: each tRPC hop copies its options and context several times
 * (decision 0007).
 */
async function runTool<Input extends ParsedEnvelope, Call, Result>(
  ctx: ToolsContext,
  tool: ToolSpec<Input>,
  raw: unknown,
  check: (ctx: ToolsContext, start: CallStart<Input>, progress: CallProgress) => Promise<Call>,
  run: ToolRun<Call, Result>,
) {
  const start: CallStart<Input> = { tool, raw, startedAt: performance.now() };
  const progress: CallProgress = { known: start };
  let ending: ToolEnding<Result>;
  try {
    ending = await run(await check(ctx, start, progress), ctx);
  } catch (error) {
    ending = refusalOf(ctx, tool.name, error);
  }
  return answerCall(ctx, progress.known, ending);
}

/** A tool procedure's whole call, as its resolver makes it: the checks, the tool's code, the answer and its audit. */
export type ToolCall = (ctx: ToolsContext, raw: unknown) => Promise<OutputEnvelope>;

/** Each tool procedure's call, by the procedure tRPC routes (see `toolCallOf`). */
const toolCalls = new WeakMap<object, ToolCall>();

/**
 * The call a tool procedure's resolver makes, for `callTool` (decision 0049): the same function, reached without
 * tRPC's caller proxy and its middleware hops, which copy the call's options at every step and were a fifth of a
 * write's JavaScript. Nothing of the call is skipped: a tool procedure has no middleware, its input parser passes
 * the input through (the checks validate it and answer the contract's error), and `runTool` answers every ending
 * as an envelope, so tRPC never sees an error to format.
 */
export function toolCallOf(procedure: unknown): ToolCall {
  const call = typeof procedure === "function" ? toolCalls.get(procedure) : undefined;
  if (!call) throw new Error("not a tool procedure (toolProcedure(…).query/mutation)");
  return call;
}

function withToolCall<P extends object>(procedure: P, call: ToolCall): P {
  toolCalls.set(procedure, call);
  return procedure;
}

function proceduresOf<Input extends ParsedEnvelope, Sent, Result>(tool: ToolSpec<Input, Sent>) {
  const procedure = publicProcedure.input(sentInput<Sent>());
  /** A page tool's code gets a page; a workspace tool's gets none: building one with the other's checks is a bug. */
  const scoped = (scope: ToolSpec["scope"]) => {
    if (tool.scope !== scope) throw new Error(`${tool.name} is a ${tool.scope} tool: build it with its own checks`);
  };
  return {
    /** A page read tool: every check of a read in front of `run`, which gets the args its schema parsed. */
    query: (run: ToolRun<CheckedCall<Input>, Result>) => {
      scoped("page");
      const call = (ctx: ToolsContext, raw: unknown) => runTool(ctx, tool, raw, checkRead, run);
      return withToolCall(
        procedure.query(({ ctx, input }) => call(ctx, input)),
        call,
      );
    },
    /**
     * A page write tool: a read's checks and a write's own (idempotency, approval policy, revision) in front of
     * `run`. Its result is the tool's, or the preview of a dry run.
     */
    mutation: (run: ToolRun<CheckedWrite<Input>, Result | DryRunResult>) => {
      // A page.create names the page it makes by its key (decision 0046): a page write's checks (role, approval
      // policy, a held call's decision) run on that page, though its envelope, a workspace tool's, names none.
      if (tool.access !== "page_create") scoped("page");
      const call = (ctx: ToolsContext, raw: unknown) => runTool(ctx, tool, raw, checkWrite, run);
      return withToolCall(
        procedure.mutation(({ ctx, input }) => call(ctx, input)),
        call,
      );
    },
    /** A workspace read tool (no page): login, door, envelope, capability, membership, whom it acts for. */
    workspaceQuery: (run: ToolRun<CheckedWorkspaceCall<Input>, Result>) => {
      scoped("workspace");
      const call = (ctx: ToolsContext, raw: unknown) => runTool(ctx, tool, raw, checkWorkspaceRead, run);
      return withToolCall(
        procedure.query(({ ctx, input }) => call(ctx, input)),
        call,
      );
    },
    /** A workspace write tool: a workspace read's checks, then its idempotency key (a retry replays). */
    workspaceMutation: (run: ToolRun<CheckedWorkspaceWrite<Input>, Result | DryRunResult>) => {
      scoped("workspace");
      const call = (ctx: ToolsContext, raw: unknown) => runTool(ctx, tool, raw, checkWorkspaceWrite, run);
      return withToolCall(
        procedure.mutation(({ ctx, input }) => call(ctx, input)),
        call,
      );
    },
  };
}

/** What `toolProcedure` answers: a tRPC procedure with the tool's checks in front, as a query or a mutation. */
export type ToolProcedures<Input extends ParsedEnvelope, Sent, Result> = ReturnType<
  typeof proceduresOf<Input, Sent, Result>
>;

/**
 * A tool's procedure: `toolProcedure("mnote.page.save").mutation((call, ctx) => …)`. The contract's tools by
 * name, their results typed as the contract's; the panel's revert by its spec, with its result type. The tool's code
 * is handed the call fully checked, with the args its schema parsed, typed: no cast between schema and planner.
 */
export function toolProcedure<N extends ToolName>(
  name: N,
): ToolProcedures<ContractToolInput[N], ToolInput<N>, ToolResult<N>>;
export function toolProcedure<Input extends ParsedEnvelope, Sent, Result>(
  tool: ToolSpec<Input, Sent>,
): ToolProcedures<Input, Sent, Result>;
export function toolProcedure(tool: ToolName | ToolSpec) {
  return proceduresOf(typeof tool === "string" ? contractToolSpec(tool) : tool);
}
