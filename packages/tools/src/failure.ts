import type { ToolErrorCode } from "@mnote/contract";

/**
 * Thrown by a check to end the call with a contract error. The outermost
 * middleware turns it into the failure envelope; nothing else ever reaches the caller.
 */
export class ToolFailure extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "ToolFailure";
  }
}

export const fail = (code: ToolErrorCode, message: string): never => {
  throw new ToolFailure(code, message);
};
