import { TOOL_ERROR_CODES, TOOL_ERROR_LABELS } from "@mnote/contract";
import { describe, expect, it } from "vitest";
import { outcomeText, whoText } from "./labels";

const OUTCOMES = ["ok", "replayed", "proposal", "held_for_approval", "rejected", "failed"] as const;

describe("outcomeText: an audit record's outcome in words, never a raw code", () => {
  it("says every outcome, with or without every contract error code, without an identifier in it", () => {
    for (const outcome of OUTCOMES) {
      for (const errorCode of [null, ...TOOL_ERROR_CODES]) {
        const text = outcomeText({ outcome, errorCode });
        expect(text).not.toMatch(/_/);
        expect(text.length).toBeGreaterThan(0);
      }
    }
  });

  it("an error code says more than the outcome: the contract's label for it", () => {
    expect(outcomeText({ outcome: "held_for_approval", errorCode: "mnote_tool_approval_required" })).toBe(
      TOOL_ERROR_LABELS.mnote_tool_approval_required,
    );
    expect(outcomeText({ outcome: "failed", errorCode: "mnote_tool_permission_denied" })).toBe(
      "refused: no permission",
    );
    expect(outcomeText({ outcome: "ok", errorCode: null })).toBe("done");
  });
});

describe("whoText: who made a call, the person first and an agent token's label as its label", () => {
  const who = { actorId: "user_ben", actorName: "Ben", tokenId: "tok_1" };
  it("says the person, their agent, and the agent's label in quotes (never the label as a person)", () => {
    expect(whoText({ ...who, holder: "person", agentName: null })).toBe("Ben");
    expect(whoText({ ...who, holder: "agent", agentName: "demo agent" })).toBe("Ben’s agent “demo agent”");
    expect(whoText({ ...who, holder: "agent", agentName: null })).toBe("Ben’s agent");
    // No name known: no id in its place (ids are one click away, issue 36).
    expect(whoText({ ...who, actorName: null, holder: "agent", agentName: null })).toBe("someone’s agent");
    expect(whoText({ actorId: "", actorName: null, tokenId: null, holder: null, agentName: null })).toBe(
      "nobody (no valid sign-in)",
    );
  });
});
