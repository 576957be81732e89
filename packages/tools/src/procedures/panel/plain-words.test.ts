import { describe, expect, it } from "vitest";
import { createWorld } from "../../test-support";
import { panelAs } from "./test-panel";

/**
 * Issue 36: what the panel's review screens need from the server to speak in words — where each suggestion ended up
 * (one state per history entry), which edit a revert takes back, and where a change lands — decided here, once.
 */
const INSERT = { operations: [{ op: "insert", after: "p1", blocks: [{ type: "paragraph", text: "Alpha line" }] }] };

async function heldWorld() {
  const w = await createWorld();
  await w.kernel.admin.setWorkspacePolicy(w.ids.ws, { approvalRequired: true }, { by: "test-setup" });
  const ref = { workspaceId: w.ids.ws, documentId: w.ids.page };
  const envelope = w.envelope("mnote.page.edit", INSERT, { idempotencyKey: "held_alpha" });
  const agentCall = () => w.call("mnote.page.edit", envelope, w.tokens.ownerAgent);
  expect((await agentCall()).error?.code).toBe("mnote_tool_approval_required");
  const panel = panelAs(w, w.tokens.owner);
  const [proposal] = await panel.proposals.list(ref);
  return { w, ref, agentCall, panel, proposalId: proposal!.id };
}

describe("the server's words for the review screens", () => {
  it("a suggesting record carries its suggestion's final state; an agent's retry is no person's decision", async () => {
    const { w, ref, agentCall, panel, proposalId } = await heldWorld();
    const held = (await panel.audit.list(ref)).find((row) => row.outcome === "held_for_approval")!;
    expect(held.proposal).toEqual({ status: "pending", decidedBy: null, reason: null });

    await panel.proposals.reject({ ...ref, proposalId, reason: "Not this week" });
    expect((await agentCall()).error?.code).toBe("mnote_tool_rejected");
    const trail = await panel.audit.list(ref);
    // The held record now says where it ended: rejected, by whom, why — not "held" beside "rejected".
    expect(trail.find((row) => row.outcome === "held_for_approval")!.proposal).toEqual({
      status: "rejected",
      decidedBy: "owner",
      reason: "Not this week",
    });
    // The agent's retry names the proposal in its record, but it decided nothing.
    const retry = trail.find((row) => row.who.holder === "agent" && row.errorCode === "mnote_tool_rejected")!;
    expect(retry.decision).toBeNull();
    // The person's rejection is the decision; records that made no suggestion carry no suggestion state.
    expect(trail.find((row) => row.who.holder === "person")!.decision).toMatchObject({ reason: "Not this week" });
    expect(trail.filter((row) => row.proposal !== null)).toHaveLength(1);
    await w.kernel.close();
  });

  it("an insert's change says where it lands in words; a revert names the edit it takes back", async () => {
    const { w, ref, panel, proposalId } = await heldWorld();
    const detail = await panel.proposals.get({ ...ref, proposalId });
    expect(detail.changes.map((c) => [c.proposed.kind, c.where])).toEqual([["insert", "after 'First paragraph'"]]);
    expect(detail.reverts).toBeNull();

    const approved = await panel.proposals.approve({ ...ref, proposalId });
    expect(approved.ok).toBe(true);
    const revert = await panel.page.revert({ ...ref, commandId: approved.audit.commandId! });
    expect(revert.envelope.ok).toBe(true);
    const listed = (await panel.proposals.list(ref)).find((p) => p.id === revert.proposalId)!;
    expect(listed.reverts).toMatchObject({
      by: { holder: "agent", actorName: "owner" },
      description: "inserted 'Alpha line' after 'First paragraph'",
    });
    // The revert's plan says the same edit in words, and its card's detail agrees with the list.
    expect(listed.summary!.plan[0]).toMatch(/^take back 1 change of the edit that inserted 'Alpha line'/);
    expect((await panel.proposals.get({ ...ref, proposalId: revert.proposalId! })).reverts).toEqual(listed.reverts);
    await w.kernel.close();
  });
});
