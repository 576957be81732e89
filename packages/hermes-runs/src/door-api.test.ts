import { LIMITS } from "@mnote/contract";
import { describe, expect, it } from "vitest";
import { ApprovalBodySchema, AskBodySchema, HERMES_DOOR_PATHS } from "./door-api";

describe("the /api/hermes/* door's one typed description", () => {
  it("names a run in its paths encoded, whatever Hermes called it", () => {
    expect(HERMES_DOOR_PATHS.events("run_1", 7, false)).toBe("/api/hermes/runs/run_1/events?after=7");
    expect(HERMES_DOOR_PATHS.events("run/../x", 0, true)).toBe("/api/hermes/runs/run%2F..%2Fx/events?after=0&reload=1");
    expect(HERMES_DOOR_PATHS.stop("run 2")).toBe("/api/hermes/runs/run%202/stop");
  });

  it("takes a question trimmed and within the contract's limit, and only the relayed approval choices", () => {
    const ref = { workspaceId: "ws", documentId: "doc" };
    expect(AskBodySchema.parse({ ...ref, input: "  what is here?  " }).input).toBe("what is here?");
    expect(AskBodySchema.safeParse({ ...ref, input: "   " }).success).toBe(false);
    expect(AskBodySchema.safeParse({ ...ref, input: "x".repeat(LIMITS.askQuestionChars + 1) }).success).toBe(false);
    expect(AskBodySchema.safeParse({ ...ref, input: "q", startKey: "short" }).success).toBe(false);
    expect(ApprovalBodySchema.safeParse({ choice: "once" }).success).toBe(true);
    expect(ApprovalBodySchema.safeParse({ choice: "always" }).success).toBe(false);
    expect(ApprovalBodySchema.safeParse({ choice: "session" }).success).toBe(false);
  });
});
