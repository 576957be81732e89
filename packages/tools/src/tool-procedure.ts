import type { ToolInput, ToolName } from "@mnote/contract";
import type { SqlKernel, PageRecord } from "@mnote/kernel";
import type { CallState, ParsedEnvelope } from "./call-state";
import type { ToolsContext } from "./context";
import { checkCall } from "./middleware/checks";
import { envelopeAndAudit } from "./middleware/answer-and-audit";
import type { ToolSpec } from "./tool-spec";
import { publicProcedure } from "./trpc";

/**
 * The typed input a client sends. Validation is not done by tRPC's input parser
 * (it would answer a tRPC error); `validateEnvelope` does it and answers the contract's.
 */
const envelopeInput =
  <Input>() =>
  (raw: unknown) =>
    raw as Input;

/** A procedure with the whole chain of checks in front of it. */
export function toolProcedure<Input = ToolInput<ToolName>>(spec: ToolSpec) {
  return publicProcedure.meta({ tool: spec }).input(envelopeInput<Input>()).use(envelopeAndAudit).use(checkCall);
}

/** What a checked call hands to a tool's own code. */
export interface CheckedCall {
  kernel: SqlKernel;
  call: CallState;
  input: ParsedEnvelope;
  page: PageRecord;
  /**
   * The plan will be shown to a person (a dry run, a write held for approval), so it must be exact.
   * Otherwise a planner may skip a check the kernel makes anyway while writing (an append's derived
   * block ids): if the kernel refuses, `runWrite` plans again with this set.
   */
  exact: boolean;
}

export function checkedCall(ctx: ToolsContext & { call: CallState }, exact = true): CheckedCall {
  return { kernel: ctx.kernel, call: ctx.call, input: ctx.call.input!, page: ctx.call.facts!.page!, exact };
}
