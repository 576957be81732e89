import type { CallIdentity } from "../types";

/**
 * A call's identity as the conformance suites record it: who, where and which tool as each suite says, the token
 * and trace fields fixed (the kernel stores them, no suite decides on them).
 */
export const testIdentity = (
  call: Pick<CallIdentity, "toolName" | "workspaceId" | "documentId" | "actorId" | "holder" | "toolCallId"> &
    Partial<CallIdentity>,
): CallIdentity => ({ tokenId: null, sessionId: "s1", runId: "r1", traceId: "t1", ...call });
